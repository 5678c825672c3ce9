"""The differential check: a batched engine's games replayed through the reference rules.

Every game of the batch is followed by a reference game (`snail_envs.<game>.rules`) that draws
the kernel's recorded chance outcomes and plays the same actions. At every step both must agree
on the seat to play, its observation and mask (byte for byte, as the reference observer writes
them), the full state, the rewards and how each game ends (with every seat's final view).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import snail_envs.batched
from snail_envs.core.host import margin_rewards


@dataclass
class Reference:
    """One reference game following slot i, with its observer, the points it had and the seats
    that were in it (still agents of the reference environment)."""

    game: Any
    observer: Any
    points: list[float]
    live: list[int]
    num_actions: int


def follow(batch: Any, index: int) -> Reference:
    spec = batch.spec
    game = spec.new_game(batch.options, batch.replay_chance(index))
    observer = spec.new_observer(batch.options)
    observer.reset(game)
    live = [seat for seat in range(batch.num_players) if game.is_in_game(seat)]
    return Reference(game, observer, list(game.points()), live, batch.num_actions)


def expected_rewards(batch: Any, reference: Reference) -> np.ndarray:
    """The reference environment's rewards for the transition just played (`core/host.py`), as
    the floats it pays: to the seats that were in the game, a seat that goes out getting −1
    (`reward="winlose"`; at the end, the seats of a shared result the game's `shared_win`) or its
    last margin change (`"margin"`)."""
    game = reference.game
    rewards = np.zeros(batch.num_players)
    live = reference.live
    if batch.reward_mode != "winlose":
        points = list(game.points())
        changes = [points[seat] - reference.points[seat] for seat in live]
        rewards[live] = margin_rewards(changes) if batch.reward_mode == "margin" else changes
        reference.points = points
    elif game.outcome is not None:
        won = batch.spec.info.shared_win if game.outcome.shared else 1.0
        rewards[live] = [won if seat in game.outcome.winners else -1.0 for seat in live]
    else:
        rewards[live] = [0.0 if game.is_in_game(seat) else -1.0 for seat in live]
    reference.live = [seat for seat in live if game.is_in_game(seat)]
    return rewards


def slots(batch: Any, reference: Reference) -> dict[int, int]:
    """The acting seats of the reference game, with the batch slot each one acts in."""
    acting = reference.game.acting_seats()
    return {seat: (0 if batch.max_acting == 1 else seat) for seat in acting}


def check_turn(batch: Any, index: int, reference: Reference, state: np.ndarray) -> None:
    game, observer = reference.game, reference.observer
    acting = slots(batch, reference)
    expected_seats = np.full(batch.max_acting, -1, np.int8)
    for seat, slot in acting.items():
        expected_seats[slot] = seat
        mask = np.zeros(batch.num_actions, np.int8)
        mask[list(game.legal_actions(seat))] = 1
        assert batch.action_masks[index, slot].tobytes() == mask.tobytes(), f"game {index}: mask"
        seen, batched = observer.observe(game, seat), batch.observations[index, slot]
        assert batched.tobytes() == seen.tobytes(), (
            f"game {index}, player_{seat}: the observation differs at "
            f"{np.flatnonzero(batched != seen)}"
        )
    assert (batch.seats[index] == expected_seats).all(), f"game {index}: acting seats"
    for slot in np.flatnonzero(expected_seats < 0):
        assert not batch.action_masks[index, slot].any(), f"game {index}: a waiting slot's mask"
    assert state[index].tobytes() == observer.state(game).tobytes(), f"game {index}: state"


def check_ending(batch: Any, index: int, reference: Reference) -> bool:
    """Check the rewards and the end of the transition just played; True if the game ended."""
    game = reference.game
    assert batch.terminated[index] == (game.outcome is not None), f"game {index}: terminated"
    assert batch.truncated[index] == game.truncated, f"game {index}: truncated"
    rewards = expected_rewards(batch, reference).astype(np.float32)
    assert batch.rewards[index].tobytes() == rewards.tobytes(), f"game {index}: rewards"
    ended = game.outcome is not None or game.truncated
    if ended:
        for seat in range(batch.num_players):
            final = reference.observer.observe(game, seat)
            assert batch.final_observations[index, seat].tobytes() == final.tobytes()
    assert game.chance.remaining == 0, f"game {index}: the kernel drew more chance"
    return ended


def run_differential(
    env_name: str,
    options: dict[str, Any],
    games: int,
    num_envs: int,
    seed: int,
    patience: float = 0.0,
) -> int:
    """Play random games in a batch and in the reference rules side by side until `games` have
    ended; returns how many steps it took. With `patience` p, each acting seat plays action 0
    (`wait`/`pass` in games with windows) with probability p instead of its random action, so
    that windows run longer and claims stand unclaimed."""
    batch = snail_envs.batched.make(env_name, num_envs, final_observations=True, **options)
    batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    references = [follow(batch, index) for index in range(num_envs)]
    finished = steps = 0
    while finished < games:
        state = batch.state()
        for index, reference in enumerate(references):
            check_turn(batch, index, reference, state)
        actions = batch.random_actions()
        if patience:
            actions[rng.random(actions.shape) < patience] = 0
        batch.step(actions)
        steps += 1
        for index, reference in enumerate(references):
            tick = slots(batch, reference).items()
            reference.game.apply({seat: int(actions[index, slot]) for seat, slot in tick})
            if check_ending(batch, index, reference):
                finished += 1
                references[index] = follow(batch, index)
    return steps


def others_ticks(reference: Reference, learner: int, players: Sequence[Any]) -> dict[int, int]:
    """The action of every seat but `learner` that acts now, in seat order, each by its player
    (`players[seat]`) from its own view."""
    game, observer = reference.game, reference.observer
    tick = {}
    for seat in game.acting_seats():
        if seat != learner:
            mask = np.zeros(reference.num_actions, np.int8)
            mask[list(game.legal_actions(seat))] = 1
            tick[seat] = players[seat].act(observer.observe(game, seat), mask)
    return tick


def learner_is_done(reference: Reference, learner: int) -> bool:
    """The learner's episode is over: the game ended, or its seat went out."""
    game = reference.game
    return game.outcome is not None or game.truncated or not game.is_in_game(learner)


def others_play(batch: Any, reference: Reference, learner: int, players: Sequence[Any]) -> float:
    """The `players` play every seat but `learner` until `learner` acts or is done; returns the
    learner's rewards meanwhile."""
    game = reference.game
    earned = 0.0
    while not learner_is_done(reference, learner) and learner not in game.acting_seats():
        game.apply(others_ticks(reference, learner, players))
        earned += expected_rewards(batch, reference)[learner]
    return earned


class HeuristicPolicy:
    """A Python heuristic as the vector env's batched policy: each seat from its own view."""

    def __init__(self) -> None:
        self.heuristic: Any = None
        self.asked = 0

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        assert observations.shape[0] == masks.shape[0] == games.shape[0] > 0
        assert masks.dtype == np.bool_ and masks.any(axis=1).all()
        self.asked += games.size
        return np.array(
            [
                self.heuristic.act(o, m.astype(np.int8))
                for o, m in zip(observations, masks, strict=True)
            ]
        )


def run_learner_replay(
    env_name: str,
    options: dict[str, Any],
    make_heuristic: Any,
    episodes: int,
    opponents: Any = "heuristic",
    replay_random: Callable[[np.ndarray], Any] | None = None,
) -> None:
    """The learner's vector env against heuristics, each episode replayed in the reference rules
    with the Python heuristic (built by `make_heuristic(rule_options)`) in the other seats,
    acting in the learner's ticks too: the learner's observations, masks, rewards and ends must
    be the kernel's (the rewards summed in float32, to within its rounding). The `opponents`
    are the in-kernel heuristic port, or the Python heuristic as the vector env's policy
    ("policy"), in any mix: the games are the same. In-kernel "random" seats are followed by
    `replay_random(record)`, a player that draws from a copy of the game's record (an array of
    one) as the kernel's random player does, the copy taken before each step and as each
    episode begins."""
    policy = HeuristicPolicy()
    venv = snail_envs.batched.make_vec_env(
        env_name,
        64,
        opponents=opponents,
        policy=policy if "policy" in opponents else None,
        **options,
    )
    engine = venv.engine
    heuristic = policy.heuristic = make_heuristic(engine.options)
    random_kind = engine.opponents.index("random")

    def players(index: int) -> list[Any]:
        """The player of every seat of game `index` in its coming ticks."""
        kinds = venv.seating["kinds"][index, : engine.num_players]
        if random_kind not in kinds:
            return [heuristic] * engine.num_players
        assert replay_random is not None, "random seats to follow: give replay_random"
        replayed = replay_random(engine.games[index : index + 1].copy())
        return [replayed if kind == random_kind else heuristic for kind in kinds]

    venv.seed(5)
    observations = venv.reset()
    references = [follow(engine, index) for index in range(venv.num_envs)]
    for index, reference in enumerate(references):
        others_play(engine, reference, int(venv.learners[index]), players(index))
    rng = np.random.default_rng(0)
    finished = 0
    while finished < episodes:
        masks = venv.action_masks()
        for index, reference in enumerate(references):
            game, learner = reference.game, int(venv.learners[index])
            assert learner in game.acting_seats()
            seen = reference.observer.observe(game, learner)
            assert observations[index].tobytes() == seen.tobytes()
            assert np.flatnonzero(masks[index]).tolist() == list(game.legal_actions(learner))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        learners = venv.learners.copy()
        playing = [players(index) for index in range(venv.num_envs)]
        observations, rewards, dones, infos = venv.step(actions)
        for index, reference in enumerate(references):
            game, learner = reference.game, int(learners[index])
            tick = others_ticks(reference, learner, playing[index])
            tick[learner] = int(actions[index])
            game.apply(tick)
            earned = expected_rewards(engine, reference)[learner]
            earned += others_play(engine, reference, learner, playing[index])
            assert rewards[index] == pytest.approx(earned, rel=1e-6, abs=1e-6), f"game {index}"
            ended = learner_is_done(reference, learner)
            assert dones[index] == ended
            if not ended:
                continue
            finished += 1
            final = reference.observer.observe(game, learner)
            assert infos[index]["terminal_observation"].tobytes() == final.tobytes()
            references[index] = follow(engine, index)
            others_play(engine, references[index], int(venv.learners[index]), players(index))
    assert (policy.asked > 0) == ("policy" in opponents)
