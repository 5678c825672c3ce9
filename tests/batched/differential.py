"""The differential check: a batched engine's games replayed through the reference rules.

Every game of the batch is followed by a reference game (`snail_envs.<game>.rules`) that draws
the kernel's recorded chance outcomes and plays the same actions. At every step both must agree
on the seat to play, its observation and mask (byte for byte, as the reference observer writes
them), the full state, the rewards and how each game ends (with every seat's final view).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import snail_envs.batched


@dataclass
class Reference:
    """One reference game following slot i, with its observer and the points it had."""

    game: Any
    observer: Any
    points: list[float]


def follow(batch: Any, index: int) -> Reference:
    spec = batch.spec
    game = spec.new_game(batch.options, batch.replay_chance(index))
    observer = spec.new_observer(batch.options)
    observer.reset(game)
    return Reference(game, observer, list(game.points()))


def expected_rewards(batch: Any, reference: Reference) -> np.ndarray:
    """The reference environment's rewards for the transition just played (`core/host.py`)."""
    game = reference.game
    rewards = np.zeros(batch.num_players, np.float32)
    if batch.reward_mode == "points":
        points = list(game.points())
        rewards[:] = [now - before for now, before in zip(points, reference.points, strict=True)]
        reference.points = points
    elif game.outcome is not None:
        rewards[:] = [1.0 if seat in game.outcome.winners else -1.0 for seat in range(len(rewards))]
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
    rewards = expected_rewards(batch, reference)
    assert batch.rewards[index].tobytes() == rewards.tobytes(), f"game {index}: rewards"
    ended = game.outcome is not None or game.truncated
    if ended:
        for seat in range(batch.num_players):
            final = reference.observer.observe(game, seat)
            assert batch.final_observations[index, seat].tobytes() == final.tobytes()
    assert game.chance.remaining == 0, f"game {index}: the kernel drew more chance"
    return ended


def run_differential(
    env_name: str, options: dict[str, Any], games: int, num_envs: int, seed: int
) -> int:
    """Play random games in a batch and in the reference rules side by side until `games` have
    ended; returns how many steps it took."""
    batch = snail_envs.batched.make(env_name, num_envs, final_observations=True, **options)
    batch.reset(seed=seed)
    references = [follow(batch, index) for index in range(num_envs)]
    finished = steps = 0
    while finished < games:
        state = batch.state()
        for index, reference in enumerate(references):
            check_turn(batch, index, reference, state)
        actions = batch.random_actions()
        batch.step(actions)
        steps += 1
        for index, reference in enumerate(references):
            tick = slots(batch, reference).items()
            reference.game.apply({seat: int(actions[index, slot]) for seat, slot in tick})
            if check_ending(batch, index, reference):
                finished += 1
                references[index] = follow(batch, index)
    return steps
