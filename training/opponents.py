"""The learner's opponents in the ppo stage: the configured mix of random players, the game's
heuristic, frozen snapshots of the learner itself (the self-play pool) and a frozen trained
target (`snail-exploit`'s best response) or several (a league's population, `FrozenPopulation`),
and the training games they play in.

The learner holds one seat of each game, drawn anew each episode; the other seats are played by
opponents drawn from `TrainConfig.opponents`. In the batched engine (`snail_envs.batched`, its
learner vector env) random and heuristic opponents are played inside its kernels and the
snapshots or the target answer for all the games waiting on them at once (`SelfPlayPolicy`,
`FrozenPolicy`); with
`batched=false`, each game is a `snail_envs.single_agent` view of the Python environment whose
opponent seats draw from `opponent_mix` (the pool plays as `SelfPlayPool`).
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents import HEURISTICS, RandomAgent, make_agent
from snail_envs.training.config import TrainConfig


class SelfPlayPool:
    """Frozen snapshots of the learner's policy; each episode an opponent seat drawn from the pool
    plays one snapshot (random play until the first snapshot exists)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.snapshots: list[Any] = []
        self._rng = random.Random(0)
        self._current: Any = None
        self._fallback = RandomAgent(0)

    def add(self, policy: Any) -> None:
        self.snapshots = [*self.snapshots, copy.deepcopy(policy)][-self.size :]

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._fallback.reset(seed)
        self._current = self._rng.choice(self.snapshots) if self.snapshots else None

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self._current is None:
            return self._fallback.act(observation, action_mask)
        action, _ = self._current.predict(
            observation, action_masks=action_mask.astype(bool), deterministic=False
        )
        return int(action)


class SelfPlayPolicy:
    """The self-play pool playing the "policy" seats of the batched engine's games: each game's
    episode draws one snapshot, which plays every policy seat of that game (random play until the
    first snapshot exists)."""

    def __init__(self, pool: SelfPlayPool, num_envs: int, seed: int) -> None:
        self.pool = pool
        self.rng = np.random.default_rng(seed)
        self._playing: list[Any] = [None] * num_envs

    def begin_episodes(self, games: np.ndarray) -> None:
        for game in games.tolist():
            snapshots = self.pool.snapshots
            self._playing[game] = (
                snapshots[self.rng.integers(len(snapshots))] if snapshots else None
            )

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        actions = np.zeros(games.size, np.int64)
        players: dict[int, list[int]] = {}
        for row, game in enumerate(games.tolist()):
            players.setdefault(id(self._playing[game]), []).append(row)
        for rows in players.values():
            snapshot = self._playing[int(games[rows[0]])]
            if snapshot is None:
                keys = self.rng.random(masks[rows].shape)
                actions[rows] = np.argmax(np.where(masks[rows], keys, -1.0), axis=1)
            else:
                actions[rows], _ = snapshot.predict(
                    observations[rows], action_masks=masks[rows], deterministic=False
                )
        return actions


class FrozenPolicy:
    """A frozen trained agent (`PPOAgent`) playing the "policy" seats of the batched engine's
    games: one forward pass of its network for all the seats waiting on it, acting as the agent
    does (its most likely legal action, or a sample of its legal distribution where the agent
    samples). The bare forward pass, without SB3's `predict` and its distribution objects, costs
    about half as much (benchmarks/frozen_forward.py)."""

    def __init__(self, agent: Any) -> None:
        self.network = agent.model
        self.deterministic = agent.deterministic

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        import torch

        network = self.network
        with torch.no_grad():
            features = network.extract_features(
                torch.as_tensor(observations), network.pi_features_extractor
            )
            logits = network.action_net(network.mlp_extractor.forward_actor(features))
            logits = logits.masked_fill(~torch.as_tensor(masks, dtype=torch.bool), -torch.inf)
            if self.deterministic:
                return logits.argmax(1).numpy().astype(np.int64)
            return torch.distributions.Categorical(logits=logits).sample().numpy().astype(np.int64)


class FrozenPopulation:
    """Several frozen networks (`FrozenPolicy`) playing the "policy" seats of the batched
    engine's games: each game's episode draws one of them by `weights` (a league's
    meta-strategy), which plays every policy seat of that game; each answers for all the seats
    waiting on it with one forward pass."""

    def __init__(self, members: list[FrozenPolicy], weights: list[float], seed: int) -> None:
        if len(members) != len(weights) or not members or sum(weights) <= 0:
            raise ValueError(
                f"a frozen population needs one non-negative weight per member, not all zero; "
                f"got {len(members)} members and weights {weights}"
            )
        self.members = members
        self.weights = np.asarray(weights, np.float64) / sum(weights)
        self.rng = np.random.default_rng(seed)
        self._playing = np.zeros(0, np.int64)

    def begin_episodes(self, games: np.ndarray) -> None:
        largest = int(games.max()) + 1 if games.size else 0
        if largest > self._playing.size:
            self._playing = np.pad(self._playing, (0, largest - self._playing.size))
        self._playing[games] = self.rng.choice(len(self.members), games.size, p=self.weights)

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        actions = np.zeros(games.size, np.int64)
        playing = self._playing[games]
        for member in np.unique(playing).tolist():
            rows = np.flatnonzero(playing == member)
            actions[rows] = self.members[member](observations[rows], masks[rows], games[rows])
        return actions


class FrozenAgent:
    """A frozen agent without a network (a `cfr:PATH` table) playing the "policy" seats of the
    batched engine's games, seat by seat from each seat's observation."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        return np.array(
            [self.agent.act(o, m) for o, m in zip(observations, masks, strict=True)], np.int64
        )


def frozen_target(config: TrainConfig) -> Any:
    """The run's `target`, a trained agent, as it plays in every seat it is given."""
    assert config.target is not None  # the config checks that target opponents have one
    return make_agent(config.target, config.env, seed=config.seed, options=config.env_options)


def opponent_mix(config: TrainConfig, pool: SelfPlayPool) -> tuple[list[Any], list[float]]:
    """A fresh set of opponent callables (one per kind with weight > 0) and their weights."""
    makers = {
        "random": lambda: RandomAgent(config.seed),
        "heuristic": lambda: make_agent("heuristic", config.env, options=config.env_options),
        "self": lambda: pool,
        "target": lambda: frozen_target(config).act,
    }
    if config.opponents.get("heuristic", 0) > 0 and config.env not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {config.env}; set opponents.heuristic=0")
    kinds = [kind for kind, weight in config.opponents.items() if weight > 0]
    return [makers[kind]() for kind in kinds], [config.opponents[kind] for kind in kinds]


def make_vec_env(config: TrainConfig, pool: SelfPlayPool, policy: SelfPlayPolicy | None) -> Any:
    """The training games: the batched engine's learner vector env (`policy` plays its "policy"
    seats, the self-play opponents; or the frozen `target`, `FrozenPolicy`), or with
    `batched=false` single-agent views of the Python environment."""
    from stable_baselines3.common.vec_env import VecMonitor

    if config.batched:
        from snail_envs.batched import make_vec_env as make_batched_vec_env

        opponents = {
            "policy" if kind in ("self", "target") else kind: weight
            for kind, weight in config.opponents.items()
            if weight > 0
        }
        outside: SelfPlayPolicy | FrozenPolicy | FrozenAgent | None = policy
        if config.opponents.get("target", 0) > 0:
            target = frozen_target(config)
            outside = FrozenPolicy(target) if hasattr(target, "model") else FrozenAgent(target)
        try:
            venv = make_batched_vec_env(
                config.env,
                config.n_envs,
                opponents=opponents,
                policy=outside if "policy" in opponents else None,
                **config.env_options,
            )
        except ValueError as problem:
            raise ValueError(
                f"{problem} (batched=false trains on the Python environment instead)"
            ) from problem
        return VecMonitor(venv)

    from snail_envs.core.vec_env import SingleAgentVecEnv

    def make(index: int) -> Any:
        def build() -> Any:
            opponents, weights = opponent_mix(config, pool)
            env = snail_envs.single_agent(
                config.env, opponents=opponents, opponent_weights=weights, **config.env_options
            )
            env.reset(seed=config.seed * 1000 + index)
            return env

        return build

    return VecMonitor(SingleAgentVecEnv([make(i) for i in range(config.n_envs)]))
