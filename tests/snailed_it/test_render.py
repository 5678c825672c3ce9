"""Snailed It!'s pictures draw what players use: the toss window, the last play, the turn,
totals, the winner, a legend for the grey starters, and a seat's own hand."""

from __future__ import annotations

from typing import Any

import numpy as np

from snail_envs import snailed_it_v0
from snail_envs.core import testing
from snail_envs.core.game import Outcome
from snail_envs.snailed_it import render
from snail_envs.snailed_it.rules import NUM_COLOURS, NUM_VALUES, PLAY, TOSS_WINDOW
from tests.pictures import (
    assert_changes_within,
    assert_fixed_size,
    colours_in,
    picture,
    region,
)

ROWS = (0, 0, render.PANEL_X, render.MARGIN + NUM_COLOURS * render.ROW_H)
PANEL = (render.PANEL_X - 4, 0, render.WIDTH, render.LEGEND_Y)
STATUS = (render.PANEL_X - 4, render.MARGIN + 38, render.WIDTH, render.MARGIN + 75)
LEGEND = (0, render.LEGEND_Y, render.WIDTH, render.HEIGHT)


def table() -> object:
    env = snailed_it_v0.env(num_players=4)
    env.reset(seed=3)
    return env.unwrapped


def test_the_toss_window_frames_its_row_and_names_the_cards_that_fit() -> None:
    host = table()
    before = picture(host)
    host.game.phase = TOSS_WINDOW
    colour = 2
    host.game.fit_low, host.game.fit_high = colour * NUM_VALUES + 4, colour * NUM_VALUES + 8
    during = picture(host)
    assert not np.array_equal(region(before, ROWS), region(during, ROWS))
    assert not np.array_equal(region(before, STATUS), region(during, STATUS))
    host.game.phase = PLAY
    assert np.array_equal(picture(host), before)


def test_the_last_play_is_framed_and_told() -> None:
    host = table()
    before = picture(host)
    colour, side = 1, 0
    card = host.game.rows[colour][side][-1]
    host.game.last_play = (2, card, side)
    after = picture(host)
    assert not np.array_equal(region(before, ROWS), region(after, ROWS))
    assert not np.array_equal(region(before, PANEL), region(after, PANEL))


def test_whose_turn_it_is_and_the_totals_are_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.turn = (host.game.turn + 1) % host.game.num_players
    turned = picture(host)
    assert_changes_within(before, turned, PANEL)
    assert not np.array_equal(region(before, STATUS), region(turned, STATUS))
    host.game.totals[3] = 11
    assert_changes_within(turned, picture(host), PANEL)


def test_the_end_shows_the_winner_and_not_whose_turn_it_was() -> None:
    host = table()
    playing = picture(host)
    host.game.outcome = Outcome(frozenset({0}), "a total reached 18")
    won_by_0 = picture(host)
    assert not np.array_equal(region(playing, STATUS), region(won_by_0, STATUS))
    host.game.turn = (host.game.turn + 1) % host.game.num_players
    assert np.array_equal(picture(host), won_by_0)
    assert "to play" not in host.render_text()
    host.game.outcome = Outcome(frozenset({1, 2}), "a total reached 18")
    assert_changes_within(won_by_0, picture(host), PANEL)


def test_a_seat_sees_its_own_hand_only() -> None:
    host = table()
    assert_changes_within(picture(host), picture(host, 1), PANEL)
    assert not np.array_equal(picture(host, 1), picture(host, 2))
    text = host.render_seat("player_1")
    assert host.private_text("player_1") in text
    assert host.private_text("player_2") not in text


def test_the_legend_explains_the_grey_starters() -> None:
    assert colours_in(picture(table()), LEGEND) > 10


def test_pictures_keep_one_size() -> None:
    assert_fixed_size(lambda: snailed_it_v0.env(num_players=6, max_rounds=1), games=1)


def test_a_seat_view_shows_nothing_hidden_from_it() -> None:
    testing.check_seat_view_no_leak(
        lambda: snailed_it_v0.env(num_players=3, max_rounds=1), games=1, share=0.15
    )


def one_row() -> Any:
    """A two-seat game of one orange row and the orange 1 to 5."""
    return snailed_it_v0.env(
        num_players=2, colours=1, values=5, starters=[1, 3], hand_size=2, render_mode="ansi"
    )


def test_a_smaller_box_draws_and_tells_only_its_rows() -> None:
    """Option `colours`: only the rows in play are laid, so only they are drawn and listed;
    every picture keeps the size of the full table's."""
    env = one_row()
    env.reset(seed=0)
    rows = [line.split()[0] for line in env.render().splitlines()[2:]]
    assert rows[0] == "orange" and "yellow" not in rows and "pink" not in rows
    assert picture(env.unwrapped).shape == picture(table()).shape
    assert_fixed_size(one_row, games=3)
