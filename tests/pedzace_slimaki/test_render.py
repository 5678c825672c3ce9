"""Pędzące Ślimaki's pictures draw what players use: dice, turn, last move, points, cards,
winner."""

from __future__ import annotations

import numpy as np

from snail_envs import pedzace_slimaki_v0
from snail_envs.core import testing
from snail_envs.core.game import Outcome
from snail_envs.pedzace_slimaki import render
from snail_envs.pedzace_slimaki.rules import ALL_DICE, NOT_ROLLED, SNAIL_FACE
from tests.pictures import (
    assert_changes_within,
    assert_fixed_size,
    colours_in,
    picture,
)


def table(**options: object) -> object:
    env = pedzace_slimaki_v0.env(num_players=3, **options)
    env.reset(seed=2)
    return env.unwrapped


def regions(host: object) -> dict[str, tuple[int, int, int, int]]:
    height, width, _ = picture(host).shape
    board = render.MARGIN + render.CELL * render._leaf_rows(host.game)
    return {
        "dice": (0, board, render.PANEL_X - render.MARGIN, board + 8 + render.DIE + 32),
        "panel": (render.PANEL_X - 4, 0, width, height),
        "status": (render.PANEL_X - 4, render.MARGIN + 38, width, render.MARGIN + 75),
        "legend": (0, height - render.LEGEND_H, render.PANEL_X, height),
    }


def test_each_die_shows_its_face() -> None:
    host = table()
    for face in range(1, SNAIL_FACE + 1):
        before = picture(host)
        die = next(die for die in ALL_DICE if host.game.faces[die] != face)
        host.game.faces[die] = face
        assert_changes_within(before, picture(host), regions(host)["dice"])


def test_set_aside_dice_are_drawn_apart_from_rolled_ones() -> None:
    host = table()
    before = picture(host)
    host.game.faces[0] = NOT_ROLLED
    host.game.set_aside[0] = True
    assert_changes_within(before, picture(host), regions(host)["dice"])


def test_whose_turn_it_is_is_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.turn = (host.game.turn + 1) % host.game.num_players
    after = picture(host)
    x0, y0, x1, y1 = regions(host)["status"]
    assert not np.array_equal(before[y0:y1, x0:x1], after[y0:y1, x0:x1])
    board = regions(host)["dice"][1]
    assert np.array_equal(before[:board, : render.PANEL_X - 4], after[:board, : render.PANEL_X - 4])


def test_the_last_move_and_the_points_are_drawn() -> None:
    host = table()
    before = picture(host)
    host.game.last_move = (0, 1, 3, 0, 3, (), 0)
    moved = picture(host)
    assert_changes_within(before, moved, regions(host)["panel"])
    host.game.scores[1] += 4
    assert_changes_within(moved, picture(host), regions(host)["panel"])


def test_the_end_shows_the_winner_and_not_whose_turn_it_was() -> None:
    host = table()
    playing = picture(host)
    host.game.outcome = Outcome(frozenset({1}), "a snail reached the last leaf")
    won_by_1 = picture(host)
    x0, y0, x1, y1 = regions(host)["status"]
    assert not np.array_equal(playing[y0:y1, x0:x1], won_by_1[y0:y1, x0:x1])
    host.game.turn = (host.game.turn + 1) % host.game.num_players
    assert np.array_equal(picture(host), won_by_1)
    assert "to play" not in host.render_text() and "rolled" not in host.render_text()
    host.game.outcome = Outcome(frozenset({2}), "a snail reached the last leaf")
    assert_changes_within(won_by_1, picture(host), regions(host)["panel"])


def test_a_seat_sees_its_own_card_only() -> None:
    host = table()
    assert_changes_within(picture(host), picture(host, 0), regions(host)["panel"])
    assert not np.array_equal(picture(host, 0), picture(host, 1))
    assert host.private_text("player_0") in host.render_seat("player_0")
    assert host.private_text("player_1") not in host.render_seat("player_0")


def test_the_legend_is_drawn() -> None:
    host = table()
    assert colours_in(picture(host), regions(host)["legend"]) > 10


def test_pictures_keep_one_size() -> None:
    assert_fixed_size(lambda: pedzace_slimaki_v0.env(num_players=5, rounds=3), games=1)


def test_a_seat_view_shows_nothing_hidden_from_it() -> None:
    testing.check_seat_view_no_leak(
        lambda: pedzace_slimaki_v0.env(num_players=3, rounds=3), games=1, share=0.3
    )
