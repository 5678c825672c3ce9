"""Shared mechanics: chance sources, dice, dealing, options and layouts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from snail_envs.core.cards import deal_round_robin
from snail_envs.core.chance import ScriptedChance, SeededChance, Shown, ShownImpossible
from snail_envs.core.dice import Die, roll_all
from snail_envs.core.layout import Layout, Piece
from snail_envs.core.options import check_choice, check_int, check_seat, parse_options


def test_seeded_chance_repeats_for_a_seed_and_differs_between_seeds() -> None:
    draws = [[SeededChance(seed).pick(range(1000)) for _ in range(3)] for seed in (1, 1, 2)]
    assert draws[0] == draws[1] != draws[2]
    assert sorted(SeededChance(3).arrange(range(10))) == list(range(10))


def test_seeded_picks_are_those_of_randrange() -> None:
    """Picks must stay the outcomes of `random.Random(seed).randrange`, so that seeded games of
    earlier versions replay identically."""
    import random

    chance, reference = SeededChance(7), random.Random(7)
    for size in (1, 2, 6, 52, 1000, 2**40):
        assert [chance.pick(range(size)) for _ in range(50)] == [
            reference.randrange(size) for _ in range(50)
        ]


def test_scripted_chance_plays_its_script_and_refuses_impossible_outcomes() -> None:
    chance = ScriptedChance([5, [3, 1, 2], 7])
    assert chance.pick(range(1, 7)) == 5
    assert chance.arrange([1, 2, 3]) == [3, 1, 2]
    with pytest.raises(ValueError, match=r"scripted outcome 7 is not possible here"):
        chance.pick(range(1, 7))
    with pytest.raises(ValueError, match="ran out after 3 outcomes"):
        chance.pick(range(1, 7))
    with pytest.raises(ValueError, match="not a reordering"):
        ScriptedChance([[1, 1, 2]]).arrange([1, 2, 3])


def test_an_outcome_every_seat_sees_is_a_pick_of_the_same_stream_and_is_logged() -> None:
    faces = (1, 2, 3, 4, 5, 6)
    shown, picked = SeededChance(7), SeededChance(7)
    rolls = [shown.show(faces) for _ in range(20)]
    assert rolls == [picked.pick(faces) for _ in range(20)]
    assert shown.shown == rolls and picked.shown == []


def test_a_copy_is_shown_the_real_outcomes_in_order_then_draws_its_own() -> None:
    faces = (1, 2, 3, 4, 5, 6, 6)
    source = Shown(ScriptedChance([2, "a"]), [6, 1])
    assert [source.show(faces), source.show(faces)] == [6, 1]
    assert source.likelihood == pytest.approx(2 / 7 * 1 / 7)
    assert source.show(faces) == 2  # the real ones used up: from the copy's own chance
    assert source.pick(["a", "b"]) == "a"  # what nobody sees drawn is never replayed
    with pytest.raises(ShownImpossible, match="5 is not among"):
        Shown(SeededChance(0), [5]).show((1, 2, 3))


def test_dice_roll_their_faces() -> None:
    die = Die((1, 2, 3, 4, 5, "snail"))
    assert roll_all([die, die], ScriptedChance(["snail", 4])) == ["snail", 4]
    faces = {die.roll(SeededChance(seed)) for seed in range(200)}
    assert faces == set(die.faces)


@given(
    cards=st.lists(st.integers(), min_size=0, max_size=60),
    seats=st.integers(min_value=1, max_value=12),
    first=st.integers(min_value=0, max_value=11),
)
def test_dealing_the_whole_pack_one_at_a_time_conserves_every_card(
    cards: list[int], seats: int, first: int
) -> None:
    hands, rest = deal_round_robin(cards, seats, first_seat=first % seats)
    assert rest == []
    assert sorted(card for hand in hands for card in hand) == sorted(cards)
    sizes = [len(hand) for hand in hands]
    assert max(sizes) - min(sizes) <= 1
    assert hands[first % seats][:1] == cards[-1:]  # the top card goes to the first seat


def test_dealing_a_fixed_number_leaves_the_rest_in_order() -> None:
    hands, rest = deal_round_robin(list(range(10)), 3, per_seat=2)
    assert hands == [[9, 6], [8, 5], [7, 4]]
    assert rest == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="cannot deal 4 cards to each of 3 seats from 10"):
        deal_round_robin(list(range(10)), 3, per_seat=4)


def test_option_checks_name_the_allowed_values() -> None:
    @dataclass(frozen=True)
    class Options:
        size: int = 3
        colour: str = "red"

        def __post_init__(self) -> None:
            check_int("size", self.size, 1, 5)
            check_choice("colour", self.colour, ("red", "blue"))

    assert parse_options(Options, {"size": 2}, "demo_v0") == Options(size=2)
    with pytest.raises(
        ValueError, match="demo_v0: unknown options 'a', 'b'; allowed options: size"
    ):
        parse_options(Options, {"a": 1, "b": 2}, "demo_v0")
    with pytest.raises(ValueError, match="size must be an integer from 1 to 5; got True"):
        Options(size=True)
    with pytest.raises(ValueError, match="colour must be one of 'red', 'blue'; got 'green'"):
        Options(colour="green")


def test_an_integer_is_an_int_or_a_numpy_integer_never_a_bool() -> None:
    check_int("size", np.int64(3), 1, 5)
    check_int("size", np.uint8(3), 1, 5)
    for bad in (True, np.bool_(True), 3.0, np.float64(3), "3", np.array([3])):
        with pytest.raises(ValueError, match="size must be an integer from 1 to 5"):
            check_int("size", bad, 1, 5)
    assert check_seat(np.int64(1), 3) == 1 and type(check_seat(np.int64(1), 3)) is int
    assert check_seat(None, 3) is None
    for bad in (True, 1.0, 3, -1):
        with pytest.raises(ValueError, match=r"seat must be None \(drawn each episode\) or an"):
            check_seat(bad, 3)


def test_a_choice_is_one_of_the_allowed_values_itself() -> None:
    check_choice("rounds", np.int64(3), (1, 3))
    for bad in (np.array(["red"]), ["red"], True, np.bool_(True)):
        with pytest.raises(ValueError, match="colour must be one of 'red', 1"):
            check_choice("colour", bad, ("red", 1))


def test_a_layout_gives_each_piece_its_range_and_a_box() -> None:
    layout = Layout((Piece("hand", 3, "cards"), Piece("score", 1, "points", low=-1, high=2)))
    assert layout["score"] == slice(3, 4) and layout.size == 4
    box = layout.box()
    assert box.shape == (4,) and box.high[3] == 2 and box.low[3] == -1
    pieces = layout.as_dict(np.arange(4, dtype=np.float32))
    assert pieces["hand"].tolist() == [0, 1, 2] and pieces["score"].tolist() == [3]
    assert "| `score` | 3–3 | [-1, 2] | points |" in layout.table()
    with pytest.raises(ValueError, match="repeat"):
        Layout((Piece("a", 1, ""), Piece("a", 1, "")))


def test_wilson_interval_matches_known_values() -> None:
    from snail_envs.core.stats import mean_interval, wilson_interval

    low, high = wilson_interval(30, 100)
    assert round(low, 4) == 0.2189 and round(high, 4) == 0.3958
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] > 1 - 1e-12
    assert wilson_interval(0, 0) == (0.0, 1.0)
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and abs(high - mean - 1.959964 * (5 / 3 / 4) ** 0.5) < 1e-12
