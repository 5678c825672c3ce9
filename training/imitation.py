"""The imitation stage: clone a teacher's play into the policy network, DAgger-style.

    snail-train --env snail_sprint_v0 "stages=[imitation, ppo]" imitation.states=50000

Games are played in the batched engine (`snail_envs.batched`), and every decision recorded is
labelled with the teacher's action:

1. Round 0: the teacher plays every seat; each seat's decisions are recorded.
2. DAgger rounds: in each game one seat, drawn each episode, is played by the network (its most
   likely legal action) and the others by the teacher; the network's own decisions are recorded,
   labelled with what the teacher would have played there. This teaches the network the states
   its own mistakes lead to, which the teacher never visits.

With `random_seats`, each other seat of a game plays uniformly random legal actions instead, with
that probability (drawn per seat and game), in every round, and its decisions are not recorded:
the network then also learns the tables that careless players make, which a teacher playing
every seat never shows (a Snap table where wrong calls happen).

After each collection the network is trained on all the states gathered so far: cross-entropy to
the teacher's action over the legal actions, each action weighted by (its share of the labels) to
the power −`class_weight_power`, so that rare actions (a Snap call, a toss) are not drowned; and
the value head regresses the discounted return of the recorded seat (finished games only), so
that PPO starts from a critic that knows the clone's games. Whole games are held out: after each
round, the agreement with the teacher on the held-out states of that round is reported for each
decision kind (named by the first word of the game's descriptions of the legal actions: "move",
"play", "pass+toss"..., or "forced" when one action is legal). With `patience`, each round's
training stops once the agreement on all the held-out states so far has not improved for that
many epochs, and keeps the weights of its best epoch: a large network on few games learns them by
heart, and the held-out agreement says when. Forced decisions teach the policy nothing (the one
legal action has all the probability); `record_forced: false` leaves them out of the data, so
that `states` counts decisions with a choice.

The teacher is an agent as `snail_envs.agents.make_agent` names it, one that acts from its seat's
observation and mask (`heuristic`, `random`, `ppo:PATH`, `rllib:PATH`); it is asked state by
state, so it must not rely on remembering earlier moves of its game. The game's heuristic is
asked through the batched engine's compiled port of it (told the game's rule options), every
other teacher through its Python `act`. A trained teacher loads weights only, like every policy
(`snail_envs.agents.weights`). The stage's settings are
`snail_envs.training.config.ImitationConfig`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

import snail_envs
from snail_envs.agents import PlanningAgent, make_agent
from snail_envs.training.config import ImitationConfig

# --------------------------------------------------------------------------- teachers


class Teacher(Protocol):
    def label(self, engine: Any) -> np.ndarray:
        """The teacher's action for every acting slot of the engine's games: int64 (N, K)
        (anything in empty slots)."""
        ...


class KernelHeuristic:
    """The game's heuristic, as the batched engine's compiled port plays it."""

    def label(self, engine: Any) -> np.ndarray:
        return engine.heuristic_actions().reshape(engine.num_envs, engine.max_acting)


class AgentTeacher:
    """Any agent that acts from one seat's observation and mask, asked state by state."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent

    def label(self, engine: Any) -> np.ndarray:
        labels = np.zeros(engine.seats.shape, np.int64)
        for game, slot in zip(*np.nonzero(engine.seats >= 0), strict=True):
            labels[game, slot] = self.agent.act(
                engine.observations[game, slot], engine.action_masks[game, slot]
            )
        return labels


def make_teacher(teacher: str | Any, env_name: str, options: dict[str, Any]) -> Teacher:
    """The teacher of spec `teacher` (or an agent object) for the game, after checking that it
    can play it: it must act from observations and play a legal first move."""
    if isinstance(teacher, str):
        if teacher == "heuristic":
            make_agent(teacher, env_name, options=options)  # no heuristic: make_agent says so
            return KernelHeuristic()
        try:
            agent = make_agent(teacher, env_name, seed=0, options=options)
        except (ValueError, FileNotFoundError) as problem:
            raise ValueError(
                f"imitation.teacher {teacher!r} cannot play {env_name}: {problem}"
            ) from problem
    else:
        agent = teacher
    name = teacher if isinstance(teacher, str) else type(teacher).__name__
    if isinstance(agent, PlanningAgent) or not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"imitation.teacher {name!r} cannot label states of {env_name}: it plans with the "
            "environment, and imitation asks for actions from a seat's observation and mask "
            "(heuristic, random, ppo:PATH, rllib:PATH)"
        )
    env = snail_envs.make(env_name, **options)
    env.reset(seed=0)
    view = env.observe(env.agent_selection)
    try:
        action = int(agent.act(view["observation"], view["action_mask"]))
    except Exception as problem:
        message = f"imitation.teacher {name!r} cannot play {env_name}: {problem}"
        raise ValueError(message) from problem
    if not (0 <= action < len(view["action_mask"]) and view["action_mask"][action]):
        raise ValueError(
            f"imitation.teacher {name!r} cannot play {env_name}: it played the illegal action "
            f"{action} on the first move"
        )
    return AgentTeacher(agent)


# --------------------------------------------------------------------------- decision kinds


class DecisionKinds:
    """Names a decision by the first words of the game's descriptions of its legal actions."""

    def __init__(self, env_name: str, options: dict[str, Any]) -> None:
        env = snail_envs.make(env_name, **options)
        env.reset(seed=0)
        game = env.unwrapped.game
        num_actions = env.action_space(env.possible_agents[0]).n
        verbs = [game.describe_action(0, action).split()[0] for action in range(num_actions)]
        self.verbs = sorted(set(verbs))
        self._verb_of = np.zeros((num_actions, len(self.verbs)), np.int64)
        for action, verb in enumerate(verbs):
            self._verb_of[action, self.verbs.index(verb)] = 1

    def codes(self, masks: np.ndarray) -> np.ndarray:
        """A code per mask: bit v for verb v among its legal actions; −1 when one is legal."""
        present = (masks.astype(np.int64) @ self._verb_of) > 0
        codes = present @ (1 << np.arange(len(self.verbs)))
        return np.where(masks.sum(axis=1) == 1, -1, codes)

    def name(self, code: int) -> str:
        if code < 0:
            return "forced"
        return "+".join(verb for bit, verb in enumerate(self.verbs) if code >> bit & 1)


# --------------------------------------------------------------------------- demonstrations


@dataclass
class Demonstrations:
    """Labelled decisions: one row per recorded seat's decision."""

    observations: np.ndarray
    masks: np.ndarray
    labels: np.ndarray
    kinds: np.ndarray
    """`DecisionKinds` code of each row."""
    returns: np.ndarray
    """The recorded seat's discounted return from this decision (0 where unfinished)."""
    finished: np.ndarray
    """Whether the row's game ended within the collection (its return is known)."""
    held_out: np.ndarray
    targets: np.ndarray | None = None
    """Soft targets, float32 (rows, actions): a distribution over each row's legal actions (a
    search's visit shares, `snail_envs.training.expert_iteration`), which `clone` then fits by
    cross-entropy instead of the hard `labels` (each row's most likely target action); None:
    the labels alone."""

    def __len__(self) -> int:
        return len(self.labels)

    @staticmethod
    def concatenate(parts: list[Demonstrations]) -> Demonstrations:
        """The rows of every part, in order (soft targets only if every part has them)."""
        names = [n for n in Demonstrations.__dataclass_fields__ if n != "targets"]
        joined = {n: np.concatenate([getattr(p, n) for p in parts]) for n in names}
        soft = [p.targets for p in parts if p.targets is not None]
        if soft and len(soft) < len(parts):
            raise ValueError("cannot join demonstrations with soft targets to ones without")
        return Demonstrations(**joined, targets=np.concatenate(soft) if soft else None)

    def select(self, rows: np.ndarray) -> Demonstrations:
        names = [n for n in Demonstrations.__dataclass_fields__ if n != "targets"]
        targets = None if self.targets is None else self.targets[rows]
        return Demonstrations(**{n: getattr(self, n)[rows] for n in names}, targets=targets)


def collect(
    engine: Any,
    teacher: Teacher,
    kinds: DecisionKinds,
    states: int,
    *,
    policy: Any = None,
    gamma: float = 0.99,
    held_out: float = 0.0,
    record_forced: bool = True,
    random_seats: float = 0.0,
    seed: int = 0,
    progress: bool = False,
    description: str = "labelling",
) -> Demonstrations:
    """At least `states` decisions of the engine's games, labelled by `teacher`: every seat's,
    played by the teacher; or, with `policy`, those of one seat per game (drawn each episode)
    played by the policy's most likely legal action, the others by the teacher. With
    `random_seats`, each seat but the policy's plays at random with that probability (drawn each
    episode), unrecorded. Without `record_forced`, decisions with one legal action are played
    but not recorded (their rewards count towards the seat's previous recorded decision)."""
    from tqdm.auto import tqdm

    rng = np.random.default_rng(seed)
    n, players = engine.num_envs, engine.num_players
    engine.reset(seed=seed)
    learner = rng.integers(players, size=n)
    careless = np.zeros((n, players), bool)
    """The seats that play at random in each game."""

    def draw_careless(games: np.ndarray) -> None:
        if not random_seats:
            return
        careless[games] = rng.random((games.size, players)) < random_seats
        if policy is not None:
            careless[games, learner[games]] = False

    draw_careless(np.arange(n))
    episode = np.arange(n, dtype=np.int64)
    next_episode = n
    last = np.full((n, players), -1, np.int64)
    """Each seat's latest recorded row in its game, −1 before its first."""
    observations, masks, episodes = [], [], []
    labels: list[int] = []
    following: list[int] = []
    """Each row's next decision of the same seat in the same game (−1: none)."""
    rewards: list[float] = []
    """Each row's seat's rewards until its next decision."""
    finished_episodes = []
    bar = tqdm(total=states, desc=description, unit="state", disable=not progress)
    while len(labels) < states:
        seats = engine.seats.astype(np.int64)
        acting = seats >= 0
        taught = teacher.label(engine)
        actions = taught.copy()
        at_random = acting & np.take_along_axis(careless, np.maximum(seats, 0), axis=1)
        if at_random.any():
            legal = engine.action_masks[at_random].astype(bool)
            actions[at_random] = np.argmax(rng.random(legal.shape) * legal, axis=1)
        recorded = acting & ~at_random
        if policy is not None:
            recorded &= seats == learner[:, None]
        if not record_forced:
            recorded &= engine.action_masks.sum(axis=2) > 1
        if policy is not None and recorded.any():
            actions[recorded] = greedy_actions(
                policy, engine.observations[recorded], engine.action_masks[recorded]
            )
        games, slots = np.nonzero(recorded)
        observations.append(engine.observations[games, slots].copy())
        masks.append(engine.action_masks[games, slots].astype(bool))
        episodes.append(episode[games])
        for game, seat, label in zip(
            games.tolist(), seats[games, slots].tolist(), taught[games, slots].tolist(), strict=True
        ):
            row = len(labels)
            if last[game, seat] >= 0:
                following[last[game, seat]] = row
            last[game, seat] = row
            labels.append(label)
            following.append(-1)
            rewards.append(0.0)
        bar.update(games.size)
        engine.step(actions if engine.max_acting > 1 else actions[:, 0])
        for game, seat in zip(*np.nonzero((last >= 0) & (engine.rewards != 0)), strict=True):
            rewards[last[game, seat]] += float(engine.rewards[game, seat])
        for game in np.flatnonzero(engine.terminated | engine.truncated):
            finished_episodes.append(episode[game])
            last[game] = -1
            learner[game] = rng.integers(players)
            draw_careless(np.array([game]))
            episode[game] = next_episode
            next_episode += 1
    bar.close()
    returns = discounted_returns(np.array(rewards), np.array(following, np.int64), gamma)
    row_episodes = np.concatenate(episodes)
    finished = np.isin(row_episodes, np.array(finished_episodes, np.int64))
    draw = np.random.default_rng([seed, 1]).random(next_episode)
    all_masks = np.concatenate(masks)
    return Demonstrations(
        observations=np.concatenate(observations),
        masks=all_masks,
        labels=np.array(labels, np.int64),
        kinds=kinds.codes(all_masks),
        returns=np.where(finished, returns, 0.0).astype(np.float32),
        finished=finished,
        held_out=draw[row_episodes] < held_out,
    )


def discounted_returns(rewards: np.ndarray, following: np.ndarray, gamma: float) -> np.ndarray:
    """Each row's reward plus `gamma` times the return of the seat's next decision."""
    returns = np.zeros(len(rewards))
    for row in range(len(rewards) - 1, -1, -1):
        later = following[row]
        returns[row] = rewards[row] + (gamma * returns[later] if later >= 0 else 0.0)
    return returns


# --------------------------------------------------------------------------- cloning


def greedy_actions(policy: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The policy's most likely legal action for each state."""
    import torch

    with torch.no_grad():
        logits = masked_logits(policy, torch.as_tensor(observations), torch.as_tensor(masks))
    return logits.argmax(dim=1).numpy()


def masked_logits(policy: Any, observations: Any, masks: Any) -> Any:
    """The policy's log-probabilities of the legal actions (illegal ones very negative)."""
    distribution = policy.get_distribution(observations, action_masks=masks.bool())
    return distribution.distribution.logits


def class_weights(labels: np.ndarray, num_actions: int, power: float) -> np.ndarray:
    """Per-row weights: (the share of the row's label)^−power, with a mean of 1 over the rows."""
    shares = np.bincount(labels, minlength=num_actions) / max(1, len(labels))
    weights = shares[labels] ** -power
    return (weights / weights.mean()).astype(np.float32)


def soft_cross_entropy(log_probabilities: Any, targets: Any) -> Any:
    """Each row's cross-entropy −Σ target · log p to its target distribution, over the actions
    the target gives weight (the legal ones: the policy's illegal actions, very negative, meet
    zeros)."""
    import torch

    return -torch.where(targets > 0, targets * log_probabilities, 0.0).sum(dim=1)


def clone(
    policy: Any,
    data: Demonstrations,
    config: ImitationConfig,
    seed: int,
    progress: bool,
    held_out: Demonstrations | None = None,
    description: str = "cloning",
) -> tuple[float, list[float]]:
    """Train `policy` on `data` (`config.epochs` passes, fewer with `config.patience`: then the
    policy keeps the weights of its best agreement on `held_out`'s states with a choice).
    With soft targets (`data.targets`), the policy's loss is the cross-entropy to each row's
    target distribution (`soft_cross_entropy`), else to its label; the class weights weigh
    rows by their label either way. Returns the mean loss of the epoch whose weights it keeps,
    and (with `patience`) the held-out agreement after each epoch trained."""
    import torch
    from tqdm.auto import tqdm

    generator = torch.Generator().manual_seed(seed)
    observations = torch.as_tensor(data.observations)
    masks = torch.as_tensor(data.masks)
    labels = torch.as_tensor(data.labels)
    targets = None if data.targets is None else torch.as_tensor(data.targets)
    weights = torch.as_tensor(
        class_weights(data.labels, data.masks.shape[1], config.class_weight_power)
    )
    returns = torch.as_tensor(data.returns)
    finished = torch.as_tensor(data.finished, dtype=torch.float32)
    optimizer = torch.optim.AdamW(
        policy.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
    )
    judged = held_out.select(np.flatnonzero(held_out.kinds >= 0)) if held_out is not None else None
    stopping = config.patience > 0 and judged is not None and len(judged) > 0
    best: tuple[float, float, dict[str, Any]] | None = None
    """The best held-out agreement so far, its epoch's loss and its weights."""
    since_best = 0
    mean_loss = 0.0
    shares: list[float] = []
    for _ in tqdm(range(config.epochs), desc=description, unit="epoch", disable=not progress):
        policy.set_training_mode(True)
        order = torch.randperm(len(labels), generator=generator)
        total = 0.0
        for start in range(0, len(order), config.batch_size):
            batch = order[start : start + config.batch_size]
            logits = masked_logits(policy, observations[batch], masks[batch])
            if targets is None:
                cross_entropy = torch.nn.functional.cross_entropy(
                    logits, labels[batch], reduction="none"
                )
            else:
                cross_entropy = soft_cross_entropy(logits, targets[batch])
            policy_loss = (weights[batch] * cross_entropy).mean()
            values = policy.predict_values(observations[batch]).flatten()
            value_error = finished[batch] * (values - returns[batch]) ** 2
            loss = policy_loss + config.value_coef * value_error.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        mean_loss = total / len(order)
        policy.set_training_mode(False)
        if not stopping:
            continue
        assert judged is not None  # stopping is judged on held-out states
        share = float(
            (greedy_actions(policy, judged.observations, judged.masks) == judged.labels).mean()
        )
        shares.append(share)
        if best is None or share > best[0]:
            best = (share, mean_loss, copy.deepcopy(policy.state_dict()))
            since_best = 0
        else:
            since_best += 1
            if since_best >= config.patience:
                break
    if best is not None:
        policy.load_state_dict(best[2])
        mean_loss = best[1]
    return mean_loss, shares


def agreement(policy: Any, data: Demonstrations, kinds: DecisionKinds) -> dict[str, list[float]]:
    """For each decision kind of `data`: [share of states where the policy's most likely legal
    action is the teacher's, number of states]; `all` counts every state with a choice."""
    chosen = greedy_actions(policy, data.observations, data.masks) if len(data) else data.labels
    same = chosen == data.labels
    result = {}
    for code in np.unique(data.kinds):
        rows = data.kinds == code
        result[kinds.name(int(code))] = [float(same[rows].mean()), int(rows.sum())]
    choices = data.kinds >= 0
    if choices.any():
        result["all"] = [float(same[choices].mean()), int(choices.sum())]
    return result


@dataclass
class ImitationRound:
    """What one round gathered and how well the network then agreed with the teacher."""

    round: int
    states: int
    """States gathered in this round."""
    labelled_states: int
    """States gathered so far, all rounds together."""
    loss: float
    agreement: dict[str, list[float]]
    """Held-out states of this round, by decision kind: [agreement, states]."""
    epoch_agreement: list[float]
    """With `patience`: the agreement on every round's held-out states after each epoch."""


def imitate(
    policy: Any,
    env_name: str,
    options: dict[str, Any],
    config: ImitationConfig,
    *,
    teacher: Any = None,
    gamma: float = 0.99,
    seed: int = 0,
    progress: bool = True,
    after_round: Callable[[ImitationRound], None] | None = None,
) -> list[ImitationRound]:
    """Clone `config.teacher` (or the agent `teacher`) into `policy` (an SB3 actor-critic
    policy); see the module docstring. `after_round` is called with each round's report."""
    import snail_envs.batched

    taught = make_teacher(config.teacher if teacher is None else teacher, env_name, options)
    engine = snail_envs.batched.make(env_name, config.n_envs, **options)
    if isinstance(taught, KernelHeuristic):
        engine.check_opponent("heuristic")
    kinds = DecisionKinds(env_name, options)
    gathered: list[Demonstrations] = []
    reports = []
    for round_ in range(1 + config.dagger_rounds):
        size = config.states if round_ == 0 else config.dagger_states
        if size == 0:
            continue
        fresh = collect(
            engine,
            taught,
            kinds,
            size,
            policy=None if round_ == 0 else policy,
            gamma=gamma,
            held_out=config.held_out,
            record_forced=config.record_forced,
            random_seats=config.random_seats,
            seed=seed * 1000 + round_,
            progress=progress,
            description=f"round {round_}: labelling",
        )
        gathered.append(fresh)
        data = Demonstrations.concatenate(gathered)
        loss, epoch_agreement = clone(
            policy,
            data.select(np.flatnonzero(~data.held_out)),
            config,
            seed + round_,
            progress,
            held_out=data.select(np.flatnonzero(data.held_out)),
        )
        report = ImitationRound(
            round=round_,
            states=len(fresh),
            labelled_states=len(data),
            loss=loss,
            agreement=agreement(policy, fresh.select(np.flatnonzero(fresh.held_out)), kinds),
            epoch_agreement=epoch_agreement,
        )
        reports.append(report)
        if after_round is not None:
            after_round(report)
    return reports
