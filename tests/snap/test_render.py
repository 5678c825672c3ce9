"""Snap's pictures draw what players use: suits, the reaction window, the last calls, the
winner, and for a seat with imperfect sight its own glimpse instead of the card."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import snail_envs
from snail_envs.core import testing
from snail_envs.core.game import Outcome
from snail_envs.snap import render
from snail_envs.snap.rules import SNAP, SUITS
from tests.names import SNAP as SNAP_ENV
from tests.pictures import (
    assert_changes_within,
    assert_distinct_shapes,
    assert_fixed_size,
    colours_in,
    picture,
    region,
)

STATUS = (0, render.STATUS_Y - 2, 10_000, render.CALLS_Y - 4)
CALLS = (0, render.CALLS_Y, 10_000, render.LEGEND_Y)
SEATS = (0, render.SEATS_Y, 10_000, render.CENTRE_Y)
LEGEND = (0, render.LEGEND_Y, 10_000, render.HEIGHT)


def table(**options: object) -> object:
    env = snail_envs.make(SNAP_ENV, num_players=3, **options)
    env.reset(seed=4)
    return env.unwrapped


def test_the_four_suits_are_four_different_shapes() -> None:
    assert_distinct_shapes(render.draw_suit, len(SUITS))


def test_a_pile_shows_the_suit_of_its_top_card() -> None:
    host = table()
    game = host.game
    keys = game.options.card_keys
    first, second = next(
        (a, b) for a, b in itertools.combinations(range(len(keys)), 2) if keys[a] == keys[b]
    )
    game.piles[1] = [first]
    before = picture(host)
    game.piles[1] = [second]
    assert_changes_within(before, picture(host), SEATS)


def test_the_reaction_window_is_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.window_length, host.game.window_tick = 3, 1
    assert_changes_within(before, picture(host), STATUS)


def test_the_last_calls_are_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.last_calls[2] = SNAP
    host.game.last_correct[2] = True
    assert_changes_within(before, picture(host), CALLS)


def test_the_end_shows_the_winner() -> None:
    host = table()
    playing = picture(host)
    host.game.outcome = Outcome(frozenset({0}), "one seat is left in the game")
    won_by_0 = picture(host)
    assert_changes_within(playing, won_by_0, (0, render.STATUS_Y - 2, 10_000, render.LEGEND_Y))
    assert not np.array_equal(region(playing, STATUS), region(won_by_0, STATUS))
    host.game.outcome = Outcome(frozenset({1}), "one seat is left in the game")
    assert_changes_within(won_by_0, picture(host), STATUS)


def test_a_seat_with_imperfect_sight_sees_its_glimpse_not_the_card() -> None:
    host = table(glimpse_error=(0.5, 0.2, 0.0))
    game = host.game
    ((_, pile, card),) = game.just_flipped
    keys = game.options.card_keys
    seen, spectator = picture(host, 0), picture(host)
    other = next(c for c in range(len(keys)) if keys[c] != keys[card] and c != card)
    game.piles[pile][-1] = other
    assert np.array_equal(picture(host, 0), seen)
    assert not np.array_equal(picture(host), spectator)
    game.glimpses[0][-1] = (game.glimpses[0][-1] + 1) % game.options.num_keys
    assert_changes_within(seen, picture(host, 0), (0, 0, 10_000, render.LEGEND_Y))


def test_a_seat_view_names_the_seat_and_hides_whether_a_claim_is_real() -> None:
    host = table()
    assert not np.array_equal(picture(host, 0), picture(host))
    assert "claimable" in host.render_text()
    assert "claimable" not in host.render_seat("player_0")


def test_the_legend_is_drawn() -> None:
    assert colours_in(picture(table()), LEGEND) > 10


def test_pictures_keep_one_size_however_many_pots() -> None:
    assert_fixed_size(lambda: snail_envs.make(SNAP_ENV, num_players=4, ruleset="snap_pot"), games=1)
    assert_fixed_size(lambda: snail_envs.make(SNAP_ENV, num_players=3, single_pile=True), games=1)


@pytest.mark.slow
def test_a_seat_view_shows_nothing_hidden_from_it() -> None:
    testing.check_seat_view_no_leak(
        lambda: snail_envs.make(SNAP_ENV, num_players=3, glimpse_error=(0.5, 0.2, 0.0)),
        games=1,
        share=0.3,
    )
    testing.check_seat_view_no_leak(
        lambda: snail_envs.make(SNAP_ENV, num_players=3, ruleset="snap_pot"),
        games=1,
        own_secrets=False,
    )
