"""The pictures' shared drawing: text that fits its width, and the headline at the end."""

from __future__ import annotations

from snail_envs.core.game import Outcome
from snail_envs.core.picture import font, seat_name, status_text, view_title, wrap


def test_long_text_is_wrapped_to_its_width_and_cut_with_an_ellipsis() -> None:
    text = " ".join(f"player_{seat} snap (wrong)" for seat in range(12))
    lines = wrap(text, 200, 2, 11)
    assert len(lines) == 2 and lines[-1].endswith("…")
    assert all(font(11).getlength(line) <= 200 for line in lines)
    assert wrap("short", 200, 2, 11) == ["short"]


def test_the_headline_names_the_winners_at_the_end_instead_of_the_turn() -> None:
    assert status_text(None, False, "player_1 to play") == "player_1 to play"
    won = status_text(Outcome(frozenset({2}), "done"), False, "player_1 to play")
    assert won == "game over: won by player_2"
    shared = status_text(Outcome(frozenset({0, 1}), "done"), False, "player_1 to play")
    assert shared == "game over: won by player_0, player_1 (shared)"
    assert "to play" not in status_text(None, True, "player_1 to play")
    assert seat_name(1, viewer=1) == "player_1 (you)" and seat_name(1, viewer=0) == "player_1"


def test_seats_are_named_by_the_names_given_else_by_agent_id() -> None:
    names = ["You", "heuristic"]
    assert seat_name(1, names) == "heuristic" and seat_name(0, names, viewer=0) == "You"
    won = status_text(Outcome(frozenset({0, 1}), "done"), False, "", names)
    assert won == "game over: won by You, heuristic (shared)"
    assert view_title("Snap", 0, names) == "Snap  seen by You"
    assert view_title("Snap", 0) == "Snap  player_0's view" and view_title("Snap", None) == "Snap"
