"""One learner seat per game, the other seats played by players inside the kernels or by a
batched policy: an SB3 `VecEnv`.

    venv = snail_envs.batched.make_vec_env("snail_sprint_v0", num_envs=256, num_players=3,
                                           opponents={"random": 0.5, "heuristic": 0.5})
    model = sb3_contrib.MaskablePPO("MlpPolicy", VecMonitor(venv)).learn(100_000)

It follows `snail_envs.single_agent` (the Gymnasium view of one game), for N games at once:

- The learner holds one seat of each game, drawn anew each episode (or fixed with `seat=`). The
  other seats are played by players drawn each episode from `opponents`: a name, or weights by
  name. The in-kernel players are `engine.opponents` ("random" for every game, "heuristic" where
  the game has a heuristic port); "policy" is a seat played by `policy`, a callable that answers
  for many seats of many games at once (`OpponentPolicy`), such as frozen copies of the learner
  for self-play. The games wait for the policy's seats: every step asks it for the actions of all
  the games waiting, in one call, until every game has come back to its learner.
- Observations and rewards are the learner's own: the reward of a step is the sum of its seat's
  rewards since its previous action, so an episode's return is its seat's result in the game from
  its first decision on (with `reward="margin"`, the change of its lead since then).
- A finished episode is replaced at once: its last observation is in
  `infos[i]["terminal_observation"]`, and `infos[i]["TimeLimit.truncated"]` says whether the
  game was stopped by `max_turns` rather than won.
- `action_masks()` gives the learner's legal actions (sb3-contrib's MaskablePPO reads it).
- The actions of a step are one integer array of shape (N,): another dtype or shape, or an
  action the learner may not play, raises a `ValueError` naming the games, and no game moves.
- Options under which the learner never reaches a decision (`MAX_DEALS` deals in a row end
  before it) raise a `ValueError` naming them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

import snail_envs.batched
from snail_envs.batched.core import NO_DECISION, games_text
from snail_envs.core.options import check_seat, no_decision_error

TICKETS = 1 << 20
"""The resolution of the opponent weights: kind k is drawn with probability tickets[k] / sum."""
POLICY = "policy"
"""The opponent kind played outside the kernels, by the vector env's `policy`."""


class OpponentPolicy(Protocol):
    """Plays the "policy" seats of many games at once."""

    def __call__(
        self, observations: np.ndarray, action_masks: np.ndarray, games: np.ndarray
    ) -> np.ndarray:
        """One legal action for each seat asked: `observations` float32 (M, D) and `action_masks`
        bool (M, A) are each seat's own view and legal actions, `games` (M,) the game it sits in.
        A policy may also have `begin_episodes(games)`, called with the games whose episode
        began since the last call (before it is asked for them), to draw a player per episode."""
        ...


class BatchedVecEnv(VecEnv):
    """N games of `env_name`, one learner seat each (see the module docstring)."""

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        opponents: str | Mapping[str, float] = "random",
        seat: int | None = None,
        policy: OpponentPolicy | None = None,
        **options: Any,
    ) -> None:
        self.engine = snail_envs.batched.make(env_name, num_envs, **options)
        engine = self.engine
        self.tickets = _tickets(opponents, (*engine.opponents, POLICY))
        for name, tickets in zip(engine.opponents, self.tickets, strict=False):
            if tickets:
                engine.check_opponent(name)
        if policy is not None and not callable(policy):
            raise ValueError(f"policy must be callable (see OpponentPolicy); got {policy!r}")
        if bool(self.tickets[-1]) != (policy is not None):
            raise ValueError(
                'a policy plays the "policy" seats: pass one exactly when opponents give them '
                f"weight; got opponents={opponents!r} and policy={policy!r}"
            )
        self.policy = policy
        seat = check_seat(seat, engine.num_players)
        self.fixed_seat = -1 if seat is None else seat
        n, p, size = engine.num_envs, engine.num_players, engine.observation_layout.size
        self.seating = np.zeros(n, engine.seating_dtype)
        self.observations = np.zeros((n, size), np.float32)
        self.masks = np.zeros((n, engine.num_actions), np.int8)
        self.asked_observations = np.zeros((n, p, size), np.float32)
        self.asked_masks = np.zeros((n, p, engine.num_actions), np.int8)
        self.asked_actions = np.zeros((n, p), np.int64)
        self._no_actions = np.zeros(n, np.int64)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self.finals = np.zeros((n, size), np.float32)
        self._views = (
            self.observations,
            self.masks,
            self.asked_observations,
            self.asked_masks,
            self.rewards,
            self.terminated,
            self.truncated,
            self.finals,
        )
        self._actions: np.ndarray | None = None
        self.render_mode = None
        super().__init__(engine.num_envs, engine.observation_space, engine.action_space)

    @property
    def learners(self) -> np.ndarray:
        """The learner's seat in every game."""
        return self.seating["learner"]

    # ----------------------------------------------------------------- the VecEnv API

    def reset(self) -> np.ndarray:
        """New episodes everywhere, from the seed of `seed()` if one was given."""
        engine = self.engine
        engine.seed(self._seeds[0])
        self._reset_seeds()
        self.seating[:] = 0
        status = engine.kernels.learner_step(
            engine.games,
            engine.rules,
            self._no_actions,
            self.asked_actions,
            False,
            True,
            self.fixed_seat,
            self.tickets,
            self.seating,
            *self._views,
        )
        self._check_decision(status)
        self._play_paused_games()
        self._actions = None
        return self.observations.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Take the learner's `actions` for the next `step_wait`: an integer array of shape (N,)."""
        chosen = np.asarray(actions)
        if chosen.dtype.kind not in "iu" or chosen.shape != (self.num_envs,):
            raise ValueError(
                f"{self.engine.env_name} (batched): actions must be an integer array of shape "
                f"({self.num_envs},), one action per game; got an array of {chosen.dtype} of "
                f"shape {chosen.shape}"
            )
        self._actions = np.ascontiguousarray(chosen, np.int64)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("call reset() and step_async() before step_wait()")
        actions, self._actions = self._actions, None
        engine = self.engine
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        if self.policy is not None:  # the policy seats acting in the learner's ticks
            self._ask_policy(np.arange(self.num_envs))
        illegal = engine.kernels.learner_step(
            engine.games,
            engine.rules,
            actions,
            self.asked_actions,
            False,
            False,
            self.fixed_seat,
            self.tickets,
            self.seating,
            *self._views,
        )
        if illegal >= 0:
            self._raise_illegal(actions)
        self._check_decision(illegal)
        self._play_paused_games()
        dones = self.terminated | self.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for index in np.flatnonzero(dones):
            infos[index] = {
                "terminal_observation": self.finals[index].copy(),
                "TimeLimit.truncated": bool(self.truncated[index] and not self.terminated[index]),
            }
        return self.observations.copy(), self.rewards.copy(), dones, infos

    def _play_paused_games(self) -> None:
        """Ask the policy for its seats in the games that wait for them, and play on, until every
        game waits for its learner."""
        if self.policy is None:
            return
        engine, paused = self.engine, self.seating["paused"]
        # each round plays a move in every paused game: it ends as the games go on to their
        # learners or end (a new episode then stops at its learner, or `NO_DECISION` raises)
        while paused.any():
            self._ask_policy(np.flatnonzero(paused))
            status = engine.kernels.learner_step(
                engine.games,
                engine.rules,
                self._no_actions,
                self.asked_actions,
                True,
                False,
                self.fixed_seat,
                self.tickets,
                self.seating,
                *self._views,
            )
            self._check_decision(status)

    def _raise_illegal(self, actions: np.ndarray) -> None:
        """Name the games whose learner may not play its action in `actions` (none was played),
        and the legal actions of the first."""
        masks = self.masks
        in_range = (actions >= 0) & (actions < masks.shape[1])
        legal = in_range.copy()
        legal[in_range] = masks[np.flatnonzero(in_range), actions[in_range]] == 1
        illegal = np.flatnonzero(~legal)
        first = int(illegal[0])
        raise ValueError(
            f"{self.engine.env_name} (batched): illegal actions in game"
            f"{'s' if illegal.size > 1 else ''} {games_text(illegal)} (no game played); game "
            f"{first}: action {actions[first]} is illegal now; legal actions: "
            f"{', '.join(map(str, np.flatnonzero(masks[first]).tolist()))}"
        )

    def _check_decision(self, status: int) -> None:
        """Raise if the kernels found that the options leave the learner no decision."""
        if status == NO_DECISION:
            fixed = {} if self.fixed_seat < 0 else {"seat": self.fixed_seat}
            raise no_decision_error(
                f"{self.engine.env_name} (batched)",
                "the learner's first decision",
                self.engine.options,
                **fixed,
            )

    def _ask_policy(self, games: np.ndarray) -> None:
        """The policy's actions for the seats it is asked to play in `games`."""
        began = self.seating["began"]
        if began.any():
            begin_episodes = getattr(self.policy, "begin_episodes", None)
            if begin_episodes is not None:
                begin_episodes(np.flatnonzero(began))
            began[:] = False
        rows, seats = np.nonzero(self.seating["asks"][games, : self.engine.num_players])
        if rows.size == 0:
            return
        asked, masks = games[rows], self.asked_masks[games[rows], seats].astype(bool)
        actions = np.asarray(
            self.policy(self.asked_observations[asked, seats], masks, asked)  # type: ignore[misc]
        )
        if actions.shape != (asked.size,) or actions.dtype.kind not in "iu":
            raise ValueError(
                f"the policy must return {asked.size} integer actions (one per seat asked); "
                f"got {actions.dtype} of shape {actions.shape}"
            )
        legal = (actions >= 0) & (actions < masks.shape[1])
        legal[legal] = masks[np.flatnonzero(legal), actions[legal]]
        if not legal.all():
            wrong = int(np.flatnonzero(~legal)[0])
            raise ValueError(
                f"{self.engine.env_name} (batched): the policy played illegal action "
                f"{actions[wrong]} for player_{seats[wrong]} in game {asked[wrong]}; legal "
                f"actions: {', '.join(map(str, np.flatnonzero(masks[wrong]).tolist()))}"
            )
        self.asked_actions[asked, seats] = actions

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game: bool (N, A)."""
        return self.masks.astype(bool)

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **kwargs: Any
    ) -> list[Any]:
        """Per-game methods: only `action_masks` (each game's mask)."""
        if method_name != "action_masks":
            raise AttributeError(f"the batched games have no method {method_name!r}")
        masks = self.action_masks()
        return [masks[index] for index in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def _get_indices(self, indices: VecEnvIndices) -> Iterable[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return indices


def _tickets(opponents: str | Mapping[str, float], kinds: Sequence[str]) -> np.ndarray:
    """The weights of the players, as integer tickets in the kernels' order of `kinds`."""
    weights = {opponents: 1.0} if isinstance(opponents, str) else dict(opponents)
    unknown = sorted(set(weights) - set(kinds))
    if unknown or not weights:
        raise ValueError(
            f"opponents must name players among {', '.join(kinds)} (or give them weights); "
            f"got {opponents!r}"
        )
    if any(not w >= 0 for w in weights.values()) or sum(weights.values()) <= 0:
        raise ValueError(f"opponent weights must be non-negative, not all zero; got {opponents!r}")
    total = sum(weights.values())
    tickets = [round(TICKETS * weights.get(kind, 0.0) / total) for kind in kinds]
    return np.array(tickets, np.int64)
