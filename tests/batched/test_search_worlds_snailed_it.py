"""Batched Snailed It! worlds for search, where penalty piles refilled from the tossed pile make
lots: the kernel keeps every card's lot as the reference does, and its redraw shuffles exactly as
the reference's `redraw_hidden` does, one shuffle for one, reading nothing hidden."""

from __future__ import annotations

import copy
import random

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.batched.snailed_it import cards_in
from snail_envs.core.chance import SeededChance
from snail_envs.snailed_it.rules import SnailedIt
from tests.batched.test_search_worlds import (
    acting_seat,
    check_redraw_distribution,
    game_in_progress,
)

LOTS = [
    {"num_players": 6, "hand_size": 12},
    {"num_players": 3, "hand_size": 20},
]
"""Deals that leave a short penalty pile (none at all with six seats), so that refills, and lots,
come early."""


def held_by_lot(record: np.ndarray, seat: int, lots: int) -> list[int]:
    """How many of `seat`'s cards come from each lot, read from the record's hands."""
    held = [0] * lots
    for card in cards_in(record["hand"][seat]):
        held[record["card_lot"][card]] += 1
    return held


def assert_same_lots(record: np.ndarray, game: SnailedIt) -> None:
    assert record["lots"] == len(game.lot_held[0])
    assert record["card_lot"].tolist() == game.card_lot
    for seat in range(game.num_players):
        assert held_by_lot(record, seat, len(game.lot_held[0])) == game.lot_held[seat]


@pytest.mark.parametrize("options", LOTS, ids=str)
def test_a_loaded_game_keeps_its_lots_as_the_reference_game(options: dict) -> None:
    refills = 0
    for seed in range(4):
        game, _ = game_in_progress("snailed_it_v0", options, seed, ticks=10 * seed)
        batch = snail_envs.batched.make("snailed_it_v0", 1, **options)
        batch.load(0, game, seed=seed)
        twin = copy.deepcopy(game)
        twin.chance = batch.replay_chance(0)
        rng = random.Random(seed)
        for _ in range(150):
            assert_same_lots(batch.games[0], twin)
            tick = {seat: rng.choice(twin.legal_actions(seat)) for seat in twin.acting_seats()}
            actions = np.zeros((1, batch.max_acting), np.int64)
            for slot, seat in enumerate(batch.seats[0]):
                if seat >= 0:
                    actions[0, slot] = tick[int(seat)]
            lots = len(twin.lot_held[0])
            step = batch.step(actions)
            twin.apply(tick)
            refills += len(twin.lot_held[0]) > lots
            if step.terminated[0] or step.truncated[0]:
                break
    assert refills > 10


@pytest.mark.parametrize("options", [*LOTS, {}], ids=str)
def test_a_redraw_shuffles_as_the_reference_redraw(options: dict) -> None:
    # the reference, given the outcomes the kernel drew, redraws the very same world
    for seed in range(6):
        game, observer = game_in_progress("snailed_it_v0", options, seed, ticks=8 + 12 * seed)
        seat = acting_seat(game, random.Random(seed))
        batch = snail_envs.batched.make("snailed_it_v0", 8, **options)
        batch.load(0, game, seed=seed)
        batch.redraw(seat, seed=seed)
        states = batch.state()
        for index, record in enumerate(batch.games):
            twin = copy.deepcopy(game)
            twin.tossed_pile.sort()  # its order is hidden: the kernel lays it out by card
            drawn = batch.replay_chance(index)
            twin.redraw_hidden(seat, drawn)
            assert drawn.remaining == 0
            observer.reset(twin)
            np.testing.assert_array_equal(states[index], observer.state(twin))
            assert record["penalty"][: record["penalty_size"]].tolist() == twin.penalty_pile
            assert record["tossed"][: record["tossed_size"]].tolist() == twin.tossed_pile
            assert_same_lots(record, twin)


@pytest.mark.parametrize("options", LOTS, ids=str)
def test_a_redraw_among_lots_reads_nothing_hidden(options: dict) -> None:
    lotted = 0
    for seed in range(6):
        game, _ = game_in_progress("snailed_it_v0", options, seed, ticks=8 + 12 * seed)
        lotted += len(game.lot_held[0]) > 2
        seat = acting_seat(game, random.Random(seed))
        other = copy.deepcopy(game)
        other.redraw_hidden(seat, SeededChance(seed + 1000))
        worlds = []
        for truth in (game, other):
            batch = snail_envs.batched.make("snailed_it_v0", 16, **options)
            batch.load(0, truth, seed=0)
            batch.redraw(seat, seed=seed)
            worlds.append(batch.games.copy())
        for field in worlds[0].dtype.names:
            np.testing.assert_array_equal(worlds[0][field], worlds[1][field], err_msg=field)
    assert lotted


@pytest.mark.parametrize("options", LOTS, ids=str)
def test_a_redraw_among_lots_draws_from_the_reference_distribution(options: dict) -> None:
    for seed in range(2):
        check_redraw_distribution("snailed_it_v0", options, seed=seed, worlds=4_000)
