"""The expert iteration stage: the compiled search, guided by the network, teaches the network.

    snail-train --env pedzace_slimaki_v0 "stages=[imitation, expert_iteration]"
    snail-train --env snail_sprint_v0 "stages=[imitation, expert_iteration, ppo]" \
        expert_iteration.rounds=5 expert_iteration.iterations=1024

Expert iteration (Anthony, Tian and Barber, 2017, "Thinking Fast and Slow with Deep Learning and
Tree Search"), with AlphaZero's targets (Silver et al., 2017): a slow expert, the search, improves
on a fast apprentice, the network, and the apprentice is trained to play as the expert did. Each
round:

1. Games are played in the batched engine (`snail_envs.batched`): in each game one seat, drawn
   every episode, is the learner's; the game's heuristic (its compiled port) plays the others.
2. At every decision of the learner with more than one legal action, the compiled IS-MCTS of
   `snail_envs.agents.search` searches from that game (`CompiledSearchAgent.visit_counts`), with
   the heuristic as its model of the other seats (the players of the games gathered) and, with
   `prior`, the network's probabilities of the legal actions as PUCT's prior (AlphaZero's
   selection rule). The search's root visit shares, a distribution over the legal actions
   (sharpened by `temperature`: at 0 the most visited action alone), are the decision's target;
   the learner's seat then plays the search's most visited action (`play: search`, the expert's
   own games) or the network's most likely legal action (`play: network`: DAgger-like, the
   states the network's own play leads to).
3. The network is distilled on the targets of the latest `keep_rounds` rounds (all by default):
   cross-entropy to the visit distribution over the legal actions (`imitation.clone` with soft
   targets), and the value head regresses the learner seat's discounted return in the games
   gathered, as in the imitation stage. Whole games are held out (`held_out`): each round reports
   how often the network's most likely action is the search's most visited one on the held-out
   states, by decision kind (as `imitation.agreement`), and the mean cross-entropy and
   KL(search ‖ network) there; `prior_agreement` is the same agreement for the network before
   the round's distillation, on all of the round's states (how much the search changed).

The next round's search is guided by the network just distilled, so that search and network
improve together. Decisions with one legal action are played but not recorded (their rewards
count towards the learner's previous decision). The stage's settings are
`snail_envs.training.config.ExpertIterationConfig`.

In a run folder, every round leaves `expert_iteration/round_<k>.pt` (the network after round k,
weights only, a `ppo:` agent), `round_<k>.npz` (its states and targets: numbers only, loaded
without pickles) and `state.json` (the rounds done, their reports, the run's progress), which
`snail-train --resume RUN_DIR` continues from, at the next round (`snail_envs.training.rounds`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents.search import policy_prior
from snail_envs.training.config import ExpertIterationConfig, ImitationConfig
from snail_envs.training.imitation import (
    DecisionKinds,
    Demonstrations,
    agreement,
    clone,
    discounted_returns,
    greedy_actions,
    masked_logits,
    soft_cross_entropy,
)
from snail_envs.training.rounds import RoundStore, round_seed

# --------------------------------------------------------------------------- the search


def make_search(config: ExpertIterationConfig, env_name: str, policy: Any, seed: int) -> Any:
    """The compiled search of the stage's settings, guided by `policy` with `config.prior`."""
    from snail_envs.agents.search import CompiledSearchAgent

    return CompiledSearchAgent(
        env_name,
        iterations=config.iterations,
        batch=config.search_batch,
        exploration=config.exploration,
        value=config.value,
        rollout=config.rollout,
        opponents="heuristic",
        horizon=None if config.horizon == "default" else config.horizon,
        prior=policy_prior(policy) if config.prior and policy is not None else None,
        seed=seed,
    )


def check_search(env_name: str, options: dict[str, Any], config: ExpertIterationConfig) -> None:
    """A `ValueError` if the stage cannot search this game under these rule options: its batched
    engine must load games, and the game's heuristic (the other seats and the search's opponent
    model) and the rollout player must play them."""
    import snail_envs.batched
    from snail_envs.agents import HEURISTICS

    if env_name not in HEURISTICS:
        raise ValueError(
            f"the expert_iteration stage seats the game's heuristic opposite the learner; "
            f"{env_name} has none"
        )
    try:
        make_search(config, env_name, None, 0)
        engine = snail_envs.batched.make(env_name, 1, **options)
        for player in {"heuristic", config.rollout}:
            engine.check_opponent(player)
    except ValueError as problem:
        raise ValueError(
            f"the expert_iteration stage cannot search {env_name}: {problem}"
        ) from None


def visit_targets(visits: np.ndarray, mask: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    """The search's root visits as a distribution over the legal actions: the shares of the
    visits raised to 1/`temperature`; with `temperature` 0 the most visited actions share it
    alike (uniform over the legal actions if the search visited none)."""
    legal = mask.astype(bool)
    counts = np.where(legal, visits, 0).astype(np.float64)
    if counts.sum() <= 0:
        counts = legal.astype(np.float64)
    if temperature == 0:
        counts = (counts == counts.max()).astype(np.float64)
    elif temperature != 1:
        counts = (counts / counts.max()) ** (1.0 / temperature)
    return (counts / counts.sum()).astype(np.float32)


# --------------------------------------------------------------------------- gathering


def collect_search_targets(
    engine: Any,
    search: Any,
    policy: Any,
    kinds: DecisionKinds,
    states: int,
    *,
    play: str = "search",
    temperature: float = 1.0,
    gamma: float = 0.99,
    held_out: float = 0.0,
    seed: int = 0,
    progress: bool = False,
    description: str = "searching",
) -> Demonstrations:
    """At least `states` decisions with a choice of one learner seat per game of `engine`
    (drawn each episode; the heuristic plays the other seats), each with the search's root visit
    shares (raised to 1/`temperature`, `visit_targets`) as its soft target (`targets`) and its
    most visited action as its label. The learner plays the search's choice (`play="search"`)
    or `policy`'s most likely legal action (`"network"`). Returns are the learner seat's
    discounted rewards (finished games only); whole games are held out with probability
    `held_out`."""
    from tqdm.auto import tqdm

    rng = np.random.default_rng(seed)
    n, players = engine.num_envs, engine.num_players
    engine.check_opponent("heuristic")
    engine.reset(seed=seed)
    learner = rng.integers(players, size=n)
    episode = np.arange(n, dtype=np.int64)
    next_episode = n
    last = np.full(n, -1, np.int64)
    """The learner's latest recorded row in each game, −1 before its first."""
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    targets: list[np.ndarray] = []
    episodes: list[int] = []
    following: list[int] = []
    rewards: list[float] = []
    finished_episodes: list[int] = []
    bar = tqdm(total=states, desc=description, unit="state", disable=not progress)
    while len(targets) < states:
        seats = engine.seats.astype(np.int64)
        actions = engine.heuristic_actions().reshape(n, engine.max_acting)
        choosing = (seats == learner[:, None]) & (engine.action_masks.sum(axis=2) > 1)
        games, slots = np.nonzero(choosing)
        if games.size:
            views = engine.observations[games, slots].copy()
            legal = engine.action_masks[games, slots].astype(bool)
            shares = np.stack(
                [
                    visit_targets(
                        search.visit_counts(
                            engine.games[game].copy(),
                            int(seats[game, slot]),
                            engine.action_masks[game, slot],
                            engine.options,
                            engine.observations[game, slot],
                        ),
                        engine.action_masks[game, slot],
                        temperature,
                    )
                    for game, slot in zip(games.tolist(), slots.tolist(), strict=True)
                ]
            )
            if play == "network":
                actions[games, slots] = greedy_actions(policy, views, legal)
            else:
                actions[games, slots] = np.argmax(np.where(legal, shares, -1.0), axis=1)
            for game in games.tolist():
                row = len(episodes)
                if last[game] >= 0:
                    following[last[game]] = row
                last[game] = row
                episodes.append(int(episode[game]))
                following.append(-1)
                rewards.append(0.0)
            observations.append(views)
            masks.append(legal)
            targets.extend(shares)
            bar.update(games.size)
        engine.step(actions if engine.max_acting > 1 else actions[:, 0])
        rows = np.arange(n)
        paid = (last >= 0) & (engine.rewards[rows, learner] != 0)
        for game in np.flatnonzero(paid).tolist():
            rewards[last[game]] += float(engine.rewards[game, learner[game]])
        for game in np.flatnonzero(engine.terminated | engine.truncated).tolist():
            finished_episodes.append(int(episode[game]))
            last[game] = -1
            learner[game] = rng.integers(players)
            episode[game] = next_episode
            next_episode += 1
    bar.close()
    returns = discounted_returns(np.array(rewards), np.array(following, np.int64), gamma)
    row_episodes = np.array(episodes, np.int64)
    finished = np.isin(row_episodes, np.array(finished_episodes, np.int64))
    draw = np.random.default_rng([seed, 1]).random(next_episode)
    all_masks = np.concatenate(masks)
    soft = np.stack(targets).astype(np.float32)
    return Demonstrations(
        observations=np.concatenate(observations),
        masks=all_masks,
        labels=np.argmax(np.where(all_masks, soft, -1.0), axis=1).astype(np.int64),
        kinds=kinds.codes(all_masks),
        returns=np.where(finished, returns, 0.0).astype(np.float32),
        finished=finished,
        held_out=draw[row_episodes] < held_out,
        targets=soft,
    )


# --------------------------------------------------------------------------- distilling


def distillation_settings(config: ExpertIterationConfig) -> ImitationConfig:
    """The settings of `imitation.clone`'s training loop for the distillation: the stage's own
    epochs, batch size, step size, weight decay and value weight; every state weighs alike."""
    return ImitationConfig(
        epochs=config.epochs,
        batch_size=config.batch_size,
        learning_rate=config.learning_rate,
        weight_decay=config.weight_decay,
        value_coef=config.value_coef,
        class_weight_power=0.0,
        patience=0,
        held_out=config.held_out,
    )


def divergence(policy: Any, data: Demonstrations) -> tuple[float, float] | None:
    """The mean cross-entropy from the targets of `data` to the policy, and the mean
    KL(targets ‖ policy), over its rows (None without rows)."""
    import torch

    if not len(data) or data.targets is None:
        return None
    targets = torch.as_tensor(data.targets)
    with torch.no_grad():
        log_probabilities = masked_logits(
            policy, torch.as_tensor(data.observations), torch.as_tensor(data.masks)
        )
        cross_entropy = soft_cross_entropy(log_probabilities, targets)
        entropy = soft_cross_entropy(torch.log(targets.clamp_min(1e-30)), targets)
    return float(cross_entropy.mean()), float((cross_entropy - entropy).mean())


@dataclass
class ExpertIterationRound:
    """What one round searched, and how well the network then agreed with the search."""

    round: int
    """From 1."""
    states: int
    """States searched in this round."""
    searched_states: int
    """States searched so far, every round together."""
    trained_states: int
    """States the round's distillation trained on (of the latest `keep_rounds` rounds, less
    the held-out ones)."""
    loss: float
    """The distillation's mean loss in its last epoch (cross-entropy plus the value term)."""
    agreement: dict[str, list[float]]
    """Held-out states of this round, by decision kind: [share where the network's most likely
    action is the search's most visited, states]."""
    prior_agreement: float
    """The same share for the network before this round's distillation, on all its states."""
    cross_entropy: float | None
    """Mean cross-entropy from the search's visit shares to the network on this round's
    held-out states, after the distillation (None without held-out states)."""
    kl: float | None
    """Mean KL(visit shares ‖ network) there."""
    search_seconds: float
    """The time the round's search took (states per second: `states / search_seconds`)."""
    seed: int
    """The seed of the round's games and search (from the run's seed and the round)."""


def latest(rounds: list[Demonstrations], keep_rounds: int) -> list[Demonstrations]:
    """The earlier rounds a round trains on with its own: the latest `keep_rounds` − 1 (every
    one with `keep_rounds` 0)."""
    if not keep_rounds:
        return rounds
    return rounds[max(0, len(rounds) - keep_rounds + 1) :] if keep_rounds > 1 else []


def expert_iteration_round(
    policy: Any,
    engine: Any,
    kinds: DecisionKinds,
    config: ExpertIterationConfig,
    earlier: list[Demonstrations],
    round_: int,
    *,
    searched_before: int = 0,
    gamma: float = 0.99,
    seed: int = 0,
    progress: bool = False,
) -> tuple[ExpertIterationRound, Demonstrations]:
    """One round (see the module docstring): search `config.states` of the learner's decisions
    with `policy` as the prior, then distil into `policy` the states of this round and of the
    latest `keep_rounds` − 1 of the `earlier` rounds (all of them with `keep_rounds` 0).
    `searched_before`: the states the earlier rounds searched. Returns the round's report and
    its states."""
    seeded = round_seed(seed, round_)
    search = make_search(config, engine.env_name, policy, seeded)
    started = time.perf_counter()
    policy.set_training_mode(False)
    fresh = collect_search_targets(
        engine,
        search,
        policy,
        kinds,
        config.states,
        play=config.play,
        temperature=config.temperature,
        gamma=gamma,
        held_out=config.held_out,
        seed=seeded,
        progress=progress,
        description=f"round {round_}: searching",
    )
    seconds = time.perf_counter() - started
    before = float((greedy_actions(policy, fresh.observations, fresh.masks) == fresh.labels).mean())
    data = Demonstrations.concatenate([*latest(earlier, config.keep_rounds), fresh])
    training = data.select(np.flatnonzero(~data.held_out))
    loss, _ = clone(
        policy,
        training,
        distillation_settings(config),
        seeded,
        progress,
        description=f"round {round_}: distilling",
    )
    judged = fresh.select(np.flatnonzero(fresh.held_out))
    measured = divergence(policy, judged)
    report = ExpertIterationRound(
        round=round_,
        states=len(fresh),
        searched_states=searched_before + len(fresh),
        trained_states=len(training),
        loss=loss,
        agreement=agreement(policy, judged, kinds),
        prior_agreement=before,
        cross_entropy=None if measured is None else measured[0],
        kl=None if measured is None else measured[1],
        search_seconds=seconds,
        seed=seeded,
    )
    return report, fresh


# --------------------------------------------------------------------------- the run folder

DATA_FIELDS = tuple(Demonstrations.__dataclass_fields__)
"""The arrays of a round's states in its `round_<k>.npz`: every field of its states, the
search's targets included."""


def round_store(run_dir: Path, env_name: str, env_options: dict[str, Any]) -> RoundStore:
    """The stage's files in the run folder `run_dir`, `<run>/expert_iteration/`."""
    return RoundStore(run_dir, "expert_iteration", env_name, env_options, DATA_FIELDS)


def round_arrays(data: Demonstrations) -> dict[str, np.ndarray]:
    """A round's states and the search's targets, as the arrays its file holds."""
    assert data.targets is not None  # a round's states have the search's targets
    return {name: getattr(data, name) for name in DATA_FIELDS}


def round_states(arrays: dict[str, np.ndarray]) -> Demonstrations:
    """A round's states and targets again, from the arrays of its file."""
    return Demonstrations(**arrays)


def kept_rounds(config: ExpertIterationConfig, next_round: int) -> range:
    """The earlier rounds whose states round `next_round` trains on with its own."""
    first = 1 if not config.keep_rounds else max(1, next_round - config.keep_rounds + 1)
    return range(first, next_round)


def expert_iteration(
    policy: Any,
    env_name: str,
    options: dict[str, Any],
    config: ExpertIterationConfig,
    *,
    gamma: float = 0.99,
    seed: int = 0,
    progress: bool = True,
    first_round: int = 1,
    earlier: list[Demonstrations] | None = None,
    searched_before: int = 0,
    after_round: Callable[[ExpertIterationRound, Demonstrations], None] | None = None,
) -> list[ExpertIterationRound]:
    """Rounds `first_round` to `config.rounds` of expert iteration on `policy` (an SB3
    actor-critic policy); see the module docstring. A stage resumed at `first_round` gives
    the states of the earlier rounds it trains on (`earlier`, those of `kept_rounds`, from its
    `RoundStore`) and how many states they searched (`searched_before`). `after_round` is
    called with each round's report and states."""
    import snail_envs.batched

    engine = snail_envs.batched.make(env_name, config.n_envs, **options)
    kinds = DecisionKinds(env_name, options)
    gathered = list(earlier or [])
    reports: list[ExpertIterationRound] = []
    for round_ in range(first_round, config.rounds + 1):
        report, fresh = expert_iteration_round(
            policy,
            engine,
            kinds,
            config,
            gathered,
            round_,
            searched_before=reports[-1].searched_states if reports else searched_before,
            gamma=gamma,
            seed=seed,
            progress=progress,
        )
        gathered = [*latest(gathered, config.keep_rounds), fresh]
        reports.append(report)
        if after_round is not None:
            after_round(report, fresh)
    return reports
