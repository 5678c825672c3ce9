"""Snail Sprint!'s pictures draw what players use: symbols, dice, turn, moves, cards, winner."""

from __future__ import annotations

import numpy as np

from snail_envs import snail_sprint_v0
from snail_envs.core import testing
from snail_envs.core.game import Outcome
from snail_envs.snail_sprint import render
from snail_envs.snail_sprint.rules import NUM_SNAILS
from tests.pictures import (
    assert_changes_within,
    assert_distinct_shapes,
    assert_fixed_size,
    colours_in,
    picture,
)

PANEL = (render.PANEL_X - 4, 0, render.WIDTH, render.LEGEND_Y)
TRACK = (0, 0, render.PANEL_X, render.LEGEND_Y)
STATUS = (render.PANEL_X - 4, render.MARGIN + 38, render.WIDTH, render.MARGIN + 75)
LEGEND = (0, render.LEGEND_Y, render.WIDTH, render.HEIGHT)


def table(seed: int = 1) -> object:
    env = snail_sprint_v0.env(num_players=3)
    env.reset(seed=seed)
    return env.unwrapped


def test_the_six_symbols_are_six_different_shapes() -> None:
    assert_distinct_shapes(render.draw_symbol, NUM_SNAILS)


def test_the_dice_are_drawn_in_the_panel() -> None:
    host = table()
    before = picture(host)
    first, second = host.game.dice
    host.game.dice = ((first + 1) % NUM_SNAILS, (second + 2) % NUM_SNAILS)
    assert_changes_within(before, picture(host), PANEL)


def test_whose_turn_it_is_is_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.turn = (host.game.turn + 1) % host.game.num_players
    assert_changes_within(before, picture(host), PANEL)


def test_the_last_moves_are_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.recent_moves = [(0, 3, 7)]
    assert_changes_within(before, picture(host), PANEL)


def test_the_podium_is_drawn_on_the_track() -> None:
    host = table()
    before = picture(host)
    host.game.podium = [4]
    assert_changes_within(before, picture(host), TRACK)


def test_the_end_shows_the_winner_and_every_card_with_its_points() -> None:
    host = table()
    host.game.podium = [0, 1, 2]
    playing = picture(host)
    host.game.outcome = Outcome(frozenset({0}), "the third podium place is filled")
    won_by_0 = picture(host)
    assert_changes_within(playing, won_by_0, PANEL)
    assert not np.array_equal(won_by_0[_rows(*STATUS)], playing[_rows(*STATUS)])
    host.game.outcome = Outcome(frozenset({1}), "the third podium place is filled")
    assert_changes_within(won_by_0, picture(host), PANEL)


def test_a_seat_sees_its_own_race_card_only() -> None:
    host = table()
    spectator = picture(host)
    assert_changes_within(spectator, picture(host, 0), PANEL)
    assert not np.array_equal(picture(host, 0), picture(host, 1))
    text = host.render_seat("player_0")
    assert host.private_text("player_0") in text
    assert host.private_text("player_1") not in text


def test_the_legend_is_drawn() -> None:
    assert colours_in(picture(table()), LEGEND) > 10


def test_pictures_keep_one_size() -> None:
    assert_fixed_size(lambda: snail_sprint_v0.env(num_players=4, board="B"), games=2)


def test_a_seat_view_shows_nothing_hidden_from_it() -> None:
    assert testing.check_seat_view_no_leak(lambda: snail_sprint_v0.env(num_players=3), games=2)


def _rows(x0: int, y0: int, x1: int, y1: int) -> tuple[slice, slice]:
    return slice(y0, y1), slice(x0, x1)
