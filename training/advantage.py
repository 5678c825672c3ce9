"""The advantage stage: advantage-weighted distillation of the rollout search into the network.

    snail-train --env snailed_it_v0 --config configs/snailed_it/advantage.yaml
    snail-train --env snailed_it_v0 "stages=[imitation, advantage]" advantage.rounds=4

Distilling a search's visit counts (the `expert_iteration` stage) teaches the network the
search's choice at every decision, near-ties included, where the choice is noise. This stage
teaches only what the search has measured. Each round:

1. Games of the Python environment are played with the network in one seat, drawn every game,
   playing its most likely legal action (DAgger: the states the network's own play leads to),
   and the game's heuristic in the others.
2. At `states` of the learner's decisions with a choice, the rollout search
   (`snail_envs.agents.rollout_search`) plays every legal action in the same `worlds` worlds
   drawn from what the seat has seen, the heuristic playing every seat after it to the
   `horizon`: each action's mean value over the worlds (A: the margin, or with `value: win` the
   game's result), and paired standard errors, free of the luck of the deal. The search's best
   action is the one of the largest A (the network's own choice where none is larger), and the
   state weighs

       weight = max(0, A(best) − A(network's choice) − z · SE(best − network's choice))

   in the value's units: zero where the search's preference is within noise of the network's
   choice. Where the weight is above 0 the search leaves the network.
3. The network is trained on the round's states (whole games are held out, `held_out`), the loss
   of a state being weight × cross-entropy towards the search's best action, plus `keep_coef` ×
   cross-entropy towards the network's own choice before the round, on every state, so that it
   keeps its play where the search says nothing. The states where the search leaves the network
   are drawn `oversample` times in each epoch, the others once. The value head is not trained.

Each round reports its states, the share where the search leaves the network (and the mean
A(best) − A(network's choice) there: what the round teaches), the training's loss, and the
network's advantage-weighted agreement with the search after training on the held-out states:
the weighted share of those where it now plays the search's best action (before training, 0 by
construction). A round's labels are measured against that round's network, so each round trains
on its own states. The stage's settings are `snail_envs.training.config.AdvantageConfig`;
`benchmarks/search_deviations.py` measures, before any training, how often the search leaves
the heuristic and what it gains there.

In a run folder, every round leaves `advantage/round_<k>.pt` (the network after round k),
`round_<k>.npz` (its states and labels) and `state.json`, from which `snail-train --resume
RUN_DIR` continues at the next round (`snail_envs.training.rounds`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.agents.rollout_search import PairedComparison, RolloutSearchAgent
from snail_envs.core.testing import deciding_agents
from snail_envs.training.config import AdvantageConfig
from snail_envs.training.imitation import greedy_actions, masked_logits
from snail_envs.training.rounds import RoundStore, round_seed

# --------------------------------------------------------------------------- the search


def make_search(config: AdvantageConfig, env_name: str, seed: int) -> RolloutSearchAgent:
    """The rollout search that labels the stage's states (its `z` is the stage's)."""
    return RolloutSearchAgent(
        env_name,
        worlds=config.worlds,
        z=config.z,
        horizon=config.horizon,
        value=config.value,
        seed=seed,
    )


def check_labelling(env_name: str, options: dict[str, Any]) -> None:
    """A `ValueError` if the stage cannot label this game under these rule options: the game's
    heuristic plays the other seats, and the rollout search needs a batched engine that loads
    its games."""
    try:
        make_agent("heuristic", env_name, options=options)
        RolloutSearchAgent(env_name, worlds=2)
    except ValueError as problem:
        raise ValueError(f"the advantage stage cannot label {env_name}: {problem}") from None


# --------------------------------------------------------------------------- labels


def advantage_weight(gap: np.ndarray, stderr: np.ndarray, z: float) -> np.ndarray:
    """max(0, `gap` − `z` · `stderr`): a state's weight, from the search's mean advantage of its
    best action over the network's choice (`gap`) and that advantage's standard error."""
    return np.maximum(0.0, gap - z * stderr).astype(np.float32)


@dataclass
class AdvantageLabels:
    """Learner decisions, each labelled by the rollout search's paired comparison of its legal
    actions; one row a decision."""

    observations: np.ndarray
    """float32 (rows, observation): what the learner's seat saw."""
    masks: np.ndarray
    """bool (rows, actions): its legal actions."""
    held_out: np.ndarray
    """bool (rows,): whether the row's game is held out of training."""
    advantages: np.ndarray
    """float32 (rows, actions): each legal action's mean advantage over the heuristic's choice,
    world by world, in the search's value (0 where illegal)."""
    stderrs: np.ndarray
    """float32 (rows, actions): its standard error (0 where illegal)."""
    heuristic: np.ndarray
    """int64 (rows,): the heuristic's choice."""
    network: np.ndarray
    """int64 (rows,): the network's choice when the row was labelled (and played)."""
    best: np.ndarray
    """int64 (rows,): the action of the largest mean advantage (the network's choice where no
    other is larger)."""
    gap_stderr: np.ndarray
    """float32 (rows,): the standard error of the mean advantage of `best` over `network`."""

    def __len__(self) -> int:
        return len(self.network)

    def select(self, rows: np.ndarray) -> AdvantageLabels:
        return AdvantageLabels(
            **{name: getattr(self, name)[rows] for name in AdvantageLabels.__dataclass_fields__}
        )

    def gaps(self) -> np.ndarray:
        """Each row's mean advantage of the search's best action over the network's choice."""
        rows = np.arange(len(self))
        return self.advantages[rows, self.best] - self.advantages[rows, self.network]

    def weights(self, z: float) -> np.ndarray:
        """Each row's weight (`advantage_weight`): above 0 where the search leaves the network."""
        return advantage_weight(self.gaps(), self.gap_stderr, z)


DATA_FIELDS = tuple(AdvantageLabels.__dataclass_fields__)
"""The arrays of a round's states in its `round_<k>.npz`."""


@dataclass
class LabelledDecision:
    """One learner decision and what the search measured there (a row of `AdvantageLabels`)."""

    observation: np.ndarray
    mask: np.ndarray
    held_out: bool
    compared: PairedComparison
    network: int


def labels_of(decisions: list[LabelledDecision]) -> AdvantageLabels:
    """The rows of `decisions`: over the heuristic's choice, each legal action's mean advantage
    and standard error; over the network's choice, the best action and its standard error."""
    count, num_actions = len(decisions), len(decisions[0].mask)
    advantages = np.zeros((count, num_actions), np.float32)
    stderrs = np.zeros((count, num_actions), np.float32)
    best = np.zeros(count, np.int64)
    gap_stderr = np.zeros(count, np.float32)
    for row, decision in enumerate(decisions):
        legal = decision.compared.legal
        advantages[row, legal], stderrs[row, legal] = decision.compared.advantages()
        gain, error = decision.compared.advantages(over=decision.network)
        top = int(np.argmax(gain))
        best[row] = legal[top] if gain[top] > 0 else decision.network
        gap_stderr[row] = error[legal.index(int(best[row]))]
    return AdvantageLabels(
        observations=np.stack([d.observation for d in decisions]).astype(np.float32),
        masks=np.stack([d.mask for d in decisions]).astype(bool),
        held_out=np.array([d.held_out for d in decisions], bool),
        advantages=advantages,
        stderrs=stderrs,
        heuristic=np.array([d.compared.heuristic for d in decisions], np.int64),
        network=np.array([d.network for d in decisions], np.int64),
        best=best,
        gap_stderr=gap_stderr,
    )


def gather(
    env_name: str,
    options: dict[str, Any],
    policy: Any,
    search: RolloutSearchAgent,
    states: int,
    *,
    held_out: float = 0.0,
    seed: int = 0,
    progress: bool = False,
    description: str = "labelling",
) -> AdvantageLabels:
    """`states` decisions with a choice of one learner seat per game (drawn every game), which
    `policy` plays by its most likely legal action, the heuristic playing the others; each
    labelled by `search`'s paired comparison. Whole games are held out with probability
    `held_out`."""
    from tqdm.auto import tqdm

    rng = np.random.default_rng(seed)
    heuristic = make_agent("heuristic", env_name, options=options)
    env = snail_envs.make(env_name, **options)
    host = env.unwrapped
    decisions: list[LabelledDecision] = []
    bar = tqdm(total=states, desc=description, unit="state", disable=not progress)
    while len(decisions) < states:
        env.reset(seed=int(rng.integers(2**31)))
        learner = env.possible_agents[int(rng.integers(len(env.possible_agents)))]
        held = bool(rng.random() < held_out)
        for agent in deciding_agents(env):
            legal = host.legal_actions(agent)
            if agent != learner or len(legal) == 1:
                env.step(choose_action(heuristic, env, agent))
                continue
            seen = env.observe(agent)
            view, mask = seen["observation"], seen["action_mask"].astype(bool)
            network = int(greedy_actions(policy, view[None], mask[None])[0])
            compared = search.compare(host, agent, legal)
            decisions.append(LabelledDecision(view, mask, held, compared, network))
            bar.update(1)
            if len(decisions) == states:
                break
            env.step(network)
    bar.close()
    return labels_of(decisions)


# --------------------------------------------------------------------------- training


def distillation_loss(
    log_probabilities: Any, best: Any, weights: Any, kept: Any, keep_coef: float
) -> Any:
    """Each row's loss: `weights` × cross-entropy towards the search's `best` action, plus
    `keep_coef` × cross-entropy towards `kept`, the network's own choice before the round."""
    import torch

    def cross_entropy(actions: Any) -> Any:
        return -torch.gather(log_probabilities, 1, actions[:, None])[:, 0]

    return weights * cross_entropy(best) + keep_coef * cross_entropy(kept)


def training_order(weights: np.ndarray, oversample: int) -> np.ndarray:
    """The rows one epoch draws (in a shuffled order): every row once, and each row where the
    search leaves the network (weight above 0) `oversample` − 1 times more."""
    leaving = np.flatnonzero(weights > 0)
    return np.concatenate([np.arange(len(weights)), np.repeat(leaving, oversample - 1)])


def distil(
    policy: Any,
    labels: AdvantageLabels,
    config: AdvantageConfig,
    seed: int,
    progress: bool = False,
    description: str = "training",
) -> float:
    """Train `policy` on `labels` (`config.epochs` passes of `distillation_loss`, the rows where
    the search leaves the network oversampled); returns the mean loss of the last epoch."""
    import torch
    from tqdm.auto import tqdm

    generator = torch.Generator().manual_seed(seed)
    observations = torch.as_tensor(labels.observations)
    masks = torch.as_tensor(labels.masks)
    best, kept = torch.as_tensor(labels.best), torch.as_tensor(labels.network)
    weights = labels.weights(config.z)
    rows = torch.as_tensor(training_order(weights, config.oversample))
    weighing = torch.as_tensor(weights)
    optimizer = torch.optim.AdamW(
        policy.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    mean_loss = 0.0
    policy.set_training_mode(True)
    for _ in tqdm(range(config.epochs), desc=description, unit="epoch", disable=not progress):
        order = rows[torch.randperm(len(rows), generator=generator)]
        total = 0.0
        for start in range(0, len(order), config.batch_size):
            batch = order[start : start + config.batch_size]
            log_probabilities = masked_logits(policy, observations[batch], masks[batch])
            loss = distillation_loss(
                log_probabilities, best[batch], weighing[batch], kept[batch], config.keep_coef
            ).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        mean_loss = total / len(order)
    policy.set_training_mode(False)
    return mean_loss


def weighted_agreement(policy: Any, labels: AdvantageLabels, z: float) -> float | None:
    """The weighted share of `labels`' rows where the policy's most likely legal action is the
    search's best, each row weighed by its weight (None where no row weighs)."""
    weights = labels.weights(z)
    if not weights.sum() > 0:
        return None
    chosen = greedy_actions(policy, labels.observations, labels.masks)
    return float((weights * (chosen == labels.best)).sum() / weights.sum())


# --------------------------------------------------------------------------- rounds


@dataclass
class AdvantageRound:
    """What one round measured, and how well the network then followed the search."""

    round: int
    """From 1."""
    states: int
    """Learner decisions labelled in this round."""
    measured_states: int
    """Decisions labelled so far, every round together."""
    trained_states: int
    """The round's states trained on (those not held out)."""
    leaves: float
    """The share of the round's states where the search leaves the network (weight above 0)."""
    gain: float | None
    """The mean advantage of the search's best action over the network's choice there, in the
    search's value (None where the search never leaves)."""
    loss: float | None
    """The training's mean loss in its last epoch (None: every state was held out)."""
    agreement: float | None
    """The network's advantage-weighted agreement with the search on the held-out states after
    training (`weighted_agreement`; None where no held-out state weighs)."""
    search_seconds: float
    """The time the round's games and labels took."""
    seed: int
    """The seed of the round's games, search and training (from the run's seed and the round)."""
    value: str = "margin"
    """What the search valued its rollouts by (`AdvantageConfig.value`): the unit of `gain`."""


def advantage_round(
    policy: Any,
    env_name: str,
    options: dict[str, Any],
    config: AdvantageConfig,
    round_: int,
    *,
    measured_before: int = 0,
    seed: int = 0,
    progress: bool = False,
) -> tuple[AdvantageRound, AdvantageLabels]:
    """One round (see the module docstring): label `config.states` of the learner's decisions,
    then train `policy` on those not held out. `measured_before`: the states the earlier rounds
    labelled. Returns the round's report and its states."""
    seeded = round_seed(seed, round_)
    started = time.perf_counter()
    policy.set_training_mode(False)
    labels = gather(
        env_name,
        options,
        policy,
        make_search(config, env_name, seeded),
        config.states,
        held_out=config.held_out,
        seed=seeded,
        progress=progress,
        description=f"round {round_}: labelling",
    )
    seconds = time.perf_counter() - started
    leaving = labels.weights(config.z) > 0
    training = labels.select(np.flatnonzero(~labels.held_out))
    loss = None
    if len(training):
        description = f"round {round_}: training"
        loss = distil(policy, training, config, seeded, progress, description)
    report = AdvantageRound(
        round=round_,
        states=len(labels),
        measured_states=measured_before + len(labels),
        trained_states=len(training),
        leaves=float(leaving.mean()),
        gain=float(labels.gaps()[leaving].mean()) if leaving.any() else None,
        loss=loss,
        agreement=weighted_agreement(
            policy, labels.select(np.flatnonzero(labels.held_out)), config.z
        ),
        search_seconds=seconds,
        seed=seeded,
        value=config.value,
    )
    return report, labels


def advantage(
    policy: Any,
    env_name: str,
    options: dict[str, Any],
    config: AdvantageConfig,
    *,
    seed: int = 0,
    progress: bool = True,
    first_round: int = 1,
    measured_before: int = 0,
    after_round: Callable[[AdvantageRound, AdvantageLabels], None] | None = None,
) -> list[AdvantageRound]:
    """Rounds `first_round` to `config.rounds` on `policy` (an SB3 actor-critic policy); see the
    module docstring. A stage resumed at `first_round` gives how many states the earlier rounds
    labelled (`measured_before`). `after_round` is called with each round's report and states."""
    reports: list[AdvantageRound] = []
    for round_ in range(first_round, config.rounds + 1):
        report, labels = advantage_round(
            policy,
            env_name,
            options,
            config,
            round_,
            measured_before=reports[-1].measured_states if reports else measured_before,
            seed=seed,
            progress=progress,
        )
        reports.append(report)
        if after_round is not None:
            after_round(report, labels)
    return reports


# --------------------------------------------------------------------------- the run folder


def round_store(run_dir: Path, env_name: str, env_options: dict[str, Any]) -> RoundStore:
    """The stage's files in the run folder `run_dir`, `<run>/advantage/`."""
    return RoundStore(run_dir, "advantage", env_name, env_options, DATA_FIELDS)


def round_arrays(labels: AdvantageLabels) -> dict[str, np.ndarray]:
    """A round's states and labels, as the arrays its file holds."""
    return {name: getattr(labels, name) for name in DATA_FIELDS}
