"""Worlds for search: every batched engine loads a reference game in progress and redraws what
one seat cannot see, in its kernels.

- A loaded game shows every seat what the reference shows it, and plays on exactly as the
  reference game does with the same chance.
- A redraw leaves the searching seat's view unchanged, in every world.
- It draws from the distribution of the reference's `redraw_hidden` (`resample_from_infostate`):
  the mean of every component of the full state over 10,000 worlds agrees with the reference's.
- It reads nothing hidden: two games that differ only in what is hidden from the seat give the
  same worlds for the same seed.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.core.chance import SeededChance
from snail_envs.core.options import parse_options
from tests.names import SNAP

SITUATIONS = [
    ("snailed_it_v0", {}),
    ("snailed_it_v0", {"num_players": 4, "hand_size": 5}),
    ("snail_sprint_v0", {}),
    ("snail_sprint_v0", {"num_players": 4, "board": "B"}),
    ("pedzace_slimaki_v0", {}),
    ("pedzace_slimaki_v0", {"num_players": 5}),
    (SNAP, {"same_tick": "random", "refresh": "shuffle"}),
    (SNAP, {"same_tick": "random", "refresh": "shuffle", "glimpse_error": [0.6, 0.3, 0.0]}),
    (
        SNAP,
        {
            "same_tick": "random",
            "refresh": "shuffle",
            "glimpse_error": [0.6, 0.3, 0.0],
            "recall": "perfect",
        },
    ),
    (SNAP, {"num_players": 3, "ruleset": "snap_pot"}),
]
"""Games and rule options (the Snap ones: `equal_reflexes`, `noisy_sight`, with perfect recall,
and pots)."""


def loadable(situations: list) -> list:
    """The situations whose engine loads games (the others are skipped, named)."""
    marked = []
    for env_name, options in situations:
        engine = snail_envs.batched.engine_class(env_name)
        skip = pytest.mark.skipif(
            engine.load_game is None, reason=f"{env_name}'s engine does not load games yet"
        )
        marked.append(pytest.param(env_name, options, marks=skip, id=f"{env_name}-{options}"))
    return marked


def game_in_progress(env_name: str, options: dict, seed: int, ticks: int) -> tuple[Any, Any]:
    """A reference game after up to `ticks` ticks of random legal play (stopping one tick
    before its end), with its observer."""
    spec = snail_envs.batched.engine_class(env_name).spec
    parsed = parse_options(spec.options_class, options, env_name)
    rng = random.Random(seed)
    game = spec.new_game(parsed, SeededChance(seed))
    for _ in range(ticks):
        before = copy.deepcopy(game)
        game.apply({seat: rng.choice(game.legal_actions(seat)) for seat in game.acting_seats()})
        if game.outcome is not None or game.truncated:
            game = before
            break
    observer = spec.new_observer(parsed)
    observer.reset(game)
    return game, observer


def acting_seat(game: Any, rng: random.Random) -> int:
    return rng.choice(list(game.acting_seats()))


@pytest.mark.parametrize(("env_name", "options"), loadable(SITUATIONS))
def test_a_loaded_game_shows_every_seat_what_the_reference_shows(env_name, options) -> None:
    for seed in range(12):
        game, observer = game_in_progress(env_name, options, seed, ticks=seed * 7)
        batch = snail_envs.batched.make(env_name, 3, **options)
        batch.load(1, game, seed=seed)
        np.testing.assert_array_equal(batch.state()[1], observer.state(game))
        for seat in range(game.num_players):
            np.testing.assert_array_equal(batch.observe(seat)[1], observer.observe(game, seat))
        slots = batch.seats[1]
        acting = sorted(int(seat) for seat in slots if seat >= 0)
        assert acting == sorted(game.acting_seats())
        for slot, seat in enumerate(slots):
            if seat >= 0:
                legal = np.flatnonzero(batch.action_masks[1, slot]).tolist()
                assert legal == sorted(game.legal_actions(int(seat)))


@pytest.mark.parametrize(("env_name", "options"), loadable(SITUATIONS))
def test_a_loaded_game_plays_on_as_the_reference_game(env_name, options) -> None:
    for seed in range(6):
        game, observer = game_in_progress(env_name, options, seed, ticks=5 + seed * 9)
        batch = snail_envs.batched.make(env_name, 2, **options)
        batch.load(0, game, seed=100 + seed)
        twin = copy.deepcopy(game)
        twin.chance = batch.replay_chance(0)
        rng = random.Random(seed)
        for _ in range(200):
            actions = np.zeros((2, batch.max_acting), np.int64)
            tick = {seat: rng.choice(twin.legal_actions(seat)) for seat in twin.acting_seats()}
            for slot, seat in enumerate(batch.seats[0]):
                if seat >= 0:
                    actions[0, slot] = tick[int(seat)]
            actions[1] = batch.random_actions()[1]
            step = batch.step(actions)
            twin.apply(tick)
            if step.terminated[0] or step.truncated[0]:
                assert twin.outcome is not None or twin.truncated
                break
            observer.reset(twin)
            np.testing.assert_array_equal(batch.state()[0], observer.state(twin))


@pytest.mark.parametrize(("env_name", "options"), loadable(SITUATIONS))
def test_a_redraw_leaves_the_seats_view_unchanged_in_every_world(env_name, options) -> None:
    rng = random.Random(3)
    varied = 0
    for seed in range(8):
        game, observer = game_in_progress(env_name, options, seed, ticks=seed * 5)
        seat = acting_seat(game, rng)
        batch = snail_envs.batched.make(env_name, 64, **options)
        batch.load(0, game, seed=seed)
        batch.redraw(seat, seed=seed)
        seen = observer.observe(game, seat)
        np.testing.assert_array_equal(batch.observe(seat), np.broadcast_to(seen, (64, seen.size)))
        slot = seat if batch.max_acting > 1 else 0
        legal = np.zeros(batch.num_actions, np.int8)
        legal[list(game.legal_actions(seat))] = 1
        assert (batch.action_masks[:, slot] == legal).all()
        varied += len({state.tobytes() for state in batch.state()}) > 1
    assert varied, "no redraw changed anything hidden"


@pytest.mark.parametrize(("env_name", "options"), loadable(SITUATIONS))
def test_a_redraw_reads_nothing_hidden_from_the_seat(env_name, options) -> None:
    rng = random.Random(5)
    for seed in range(8):
        game, _ = game_in_progress(env_name, options, seed, ticks=3 + seed * 6)
        seat = acting_seat(game, rng)
        other = copy.deepcopy(game)
        other.redraw_hidden(seat, SeededChance(seed + 1000))
        worlds = []
        for truth in (game, other):
            batch = snail_envs.batched.make(env_name, 32, **options)
            batch.load(0, truth, seed=0)
            batch.redraw(seat, seed=seed)
            worlds.append(batch.state())
        np.testing.assert_array_equal(worlds[0], worlds[1])


def reference_worlds(game: Any, observer: Any, seat: int, count: int) -> np.ndarray:
    states = []
    for world in range(count):
        twin = copy.deepcopy(game)
        twin.chance = SeededChance(world)
        twin.redraw_hidden(seat, twin.chance)
        observer.reset(twin)
        states.append(observer.state(twin))
    return np.array(states, np.float64)


def assert_same_means(kernel: np.ndarray, reference: np.ndarray) -> None:
    """Every component's mean agrees within 5 standard errors of the difference (a few
    hundred components are compared, so a lower bound would fail by chance)."""
    n = kernel.shape[0]
    difference = kernel.mean(axis=0) - reference.mean(axis=0)
    stderr = np.sqrt((kernel.var(axis=0) + reference.var(axis=0)) / n)
    outside = np.flatnonzero(np.abs(difference) > 5 * stderr + 1e-9)
    assert not outside.size, (
        f"state components {outside[:10].tolist()}: kernel means "
        f"{kernel.mean(axis=0)[outside[:10]]}, reference {reference.mean(axis=0)[outside[:10]]}"
    )


@pytest.mark.parametrize(("env_name", "options"), loadable([SITUATIONS[i] for i in (0, 2, 4, 7)]))
def test_a_redraw_draws_from_the_reference_distribution(env_name, options) -> None:
    # 10,000 worlds of the kernel against 10,000 of the reference, in one situation
    check_redraw_distribution(env_name, options, seed=11, worlds=10_000)


@pytest.mark.slow
@pytest.mark.parametrize(("env_name", "options"), loadable(SITUATIONS))
def test_redraws_draw_from_the_reference_distribution_in_many_situations(env_name, options):
    for seed in range(3):
        check_redraw_distribution(env_name, options, seed=seed, worlds=4_000)


def check_redraw_distribution(env_name: str, options: dict, seed: int, worlds: int) -> None:
    rng = random.Random(seed)
    game, observer = game_in_progress(env_name, options, seed, ticks=4 + seed * 5)
    seat = acting_seat(game, rng)
    batch = snail_envs.batched.make(env_name, worlds, **options)
    batch.load(0, game, seed=seed)
    batch.redraw(seat, seed=seed, views=False)
    assert_same_means(
        batch.state().astype(np.float64), reference_worlds(game, observer, seat, worlds)
    )
