"""Snail Sprint! rules, one scenario per rule sentence, with scripted dice.

Board A, spaces 1–18: K G B Y O P Y P K O B G K B O G Y P; tin (fixed) 19–30: Y K G | B O P O B Y |
P K G (walls 19–21 and 28–30); spaces 31–36: K G P O B Y. Letters: Y star, P flower, K circle,
G cloverleaf, O triangle, B square.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from snail_envs.core.chance import ScriptedChance, SeededChance
from snail_envs.snail_sprint.rules import (
    LAST_SPACE,
    ON_PODIUM,
    START,
    Position,
    Snail,
    SnailSprint,
    SnailSprintOptions,
)

STAR, FLOWER, CIRCLE, CLOVERLEAF, TRIANGLE, SQUARE = Snail


def table(
    rolls: Sequence[tuple[Snail, Snail]],
    towers: dict[int, list[Snail]] | None = None,
    podium: Sequence[Snail] = (),
    race_cards: Sequence[str] = ("YOB", "PKB"),
    turn: int = 0,
    expose_forced_moves: bool = True,
    **options: object,
) -> SnailSprint:
    """A game at a given position, with the dice scripted: one (die, die) pair per roll."""
    chance = ScriptedChance([face for roll in rolls for face in roll])
    game = SnailSprint(
        SnailSprintOptions(
            num_players=len(race_cards), expose_forced_moves=expose_forced_moves, **options
        ),
        chance,
        Position(towers=towers or {}, podium=podium, turn=turn, race_cards=race_cards),
    )
    return game


def play(game: SnailSprint, snail: Snail, next_roll: tuple[Snail, Snail] | None = None) -> None:
    """The seat to play moves `snail`; `next_roll` is what the next seat then rolls."""
    if next_roll is not None:
        game.chance.extend(next_roll)  # type: ignore[attr-defined]
    game.apply({game.turn: snail})


# ------------------------------------------------------------------ what did you roll?


def test_hanna_doubles_move_that_snail_to_the_next_space_with_its_symbol() -> None:
    """'Hanna rolled two stars. She places the yellow star snail on the next space with a star.'"""
    game = table([(STAR, STAR)])
    assert game.moves == {STAR: 4}


def test_doubles_ignore_the_other_symbols_printed_on_a_space() -> None:
    """'It doesn't matter whether other symbols are depicted on this space' (board B: space 1
    prints star and triangle)."""
    game = table([(TRIANGLE, TRIANGLE)], board="B")
    assert game.moves == {TRIANGLE: 1}


def test_tom_moves_one_rolled_snail_to_the_next_space_of_the_other_symbol() -> None:
    """'Tom rolled a triangle and a flower. He decides on the purple flower snail and places it
    on the next space with a triangle.'"""
    game = table([(TRIANGLE, FLOWER)])
    assert game.moves == {TRIANGLE: 6, FLOWER: 5}
    play(game, FLOWER, next_roll=(STAR, CIRCLE))
    assert game.space[FLOWER] == 5
    assert game.stacks[5] == [FLOWER]


def test_the_next_space_is_strictly_ahead_of_the_moving_snail() -> None:
    """A snail standing on a space showing the target symbol still moves on to the next one."""
    game = table([(CIRCLE, CIRCLE)], towers={1: [CIRCLE]})
    assert game.moves == {CIRCLE: 9}


# ------------------------------------------------------------------ snail pile-up


def test_laura_climbs_onto_the_snail_whose_symbol_was_rolled() -> None:
    """'Laura rolled a circle and a cloverleaf. She places the pink circle snail on the green
    cloverleaf snail because there is no space with a cloverleaf between both snails.'"""
    game = table([(CIRCLE, CLOVERLEAF)], towers={3: [CIRCLE], 4: [CLOVERLEAF]})
    assert game.moves == {CIRCLE: 4, CLOVERLEAF: 9}
    play(game, CIRCLE, next_roll=(STAR, FLOWER))
    assert game.stacks[4] == [CLOVERLEAF, CIRCLE]
    assert not game.is_free(CLOVERLEAF) and game.is_free(CIRCLE)


def test_an_occupied_space_shows_only_its_top_snail() -> None:
    """'If a snail is already on a path space, the symbols on the path space are now blocked.'
    Space 4 prints a star, but the cloverleaf snail sits on it."""
    game = table([(STAR, STAR)], towers={4: [CLOVERLEAF]})
    assert game.moves == {STAR: 7}


def test_a_tower_of_three() -> None:
    """'Snail towers with more than two snails can result.'"""
    game = table([(CIRCLE, CLOVERLEAF)], towers={3: [CIRCLE], 4: [STAR, CLOVERLEAF]})
    play(game, CIRCLE, next_roll=(FLOWER, TRIANGLE))
    assert game.stacks[4] == [STAR, CLOVERLEAF, CIRCLE]
    assert [game.is_free(s) for s in (STAR, CLOVERLEAF, CIRCLE)] == [False, False, True]


def test_a_blocked_snail_shows_no_symbol() -> None:
    """Space 6 prints a flower, but the flower snail is blocked under the triangle snail there:
    the space shows only the triangle."""
    game = table([(STAR, FLOWER)], towers={6: [FLOWER, TRIANGLE], 5: [STAR]})
    assert game.moves == {STAR: 8}


def test_the_other_rolled_snail_moves_when_one_is_blocked() -> None:
    """'If a snail is under another snail, it is blocked and cannot be played. If a player rolls
    the symbol of this snail, the player must place the snail with the other rolled symbol on the
    next matching space.'"""
    game = table([(STAR, FLOWER)], towers={4: [STAR, CLOVERLEAF]})
    assert game.moves == {FLOWER: 7}


def test_a_blocked_snail_rolled_twice_moves_the_rearmost_free_snail() -> None:
    """Doubles of a blocked snail allow no move: 'the last (free) snail is placed one space
    forward'."""
    game = table(
        [(STAR, STAR)],
        towers={4: [STAR, CLOVERLEAF], 2: [FLOWER], 5: [CIRCLE], 8: [TRIANGLE], 10: [SQUARE]},
    )
    assert game.moves == {FLOWER: 3}


def test_the_rearmost_snail_on_the_start_is_the_lowest_index() -> None:
    """Ties for the rearmost free snail happen only on the start; the lowest index moves."""
    game = table([(STAR, STAR)], towers={4: [STAR, CLOVERLEAF]})
    assert game.moves == {FLOWER: 1}


def test_the_rearmost_snail_climbs_a_tower_one_space_ahead() -> None:
    """'The last (free) snail is placed one space forward': onto a tower if one stands there."""
    game = table(
        [(STAR, STAR)],
        towers={4: [STAR, CLOVERLEAF], 2: [FLOWER], 3: [CIRCLE, SQUARE], 8: [TRIANGLE]},
    )
    assert game.moves == {FLOWER: 3}
    play(game, FLOWER, next_roll=(TRIANGLE, TRIANGLE))
    assert game.stacks[3] == [CIRCLE, SQUARE, FLOWER]


def test_the_start_holds_every_snail_side_by_side_all_free() -> None:
    """Space 0 holds any number of snails side by side, all of them free."""
    game = table([(STAR, FLOWER)])
    assert game.stacks[START] == list(Snail)
    assert all(game.is_free(snail) for snail in Snail)


# ------------------------------------------------------------------ the tin


def test_kai_jumps_over_a_snail_on_the_tin_wall() -> None:
    """'Kai rolled a star and a flower. With the yellow star snail, he jumps over the purple snail
    and places the star snail on the next space with the flower symbol.' The wall space 28
    prints a flower and the flower snail sits on it: it is skipped all the same."""
    game = table([(STAR, FLOWER)], towers={27: [STAR], 28: [FLOWER]})
    assert game.moves == {STAR: 33, FLOWER: 36}


def test_a_wall_space_holds_one_snail_so_the_rearmost_skips_occupied_walls() -> None:
    """Wall skip chain: the walls 19, 20 and 21 are all occupied, so the rearmost snail on 18
    goes on to 22."""
    game = table(
        [(SQUARE, SQUARE)],
        towers={18: [FLOWER], 19: [CIRCLE], 20: [CLOVERLEAF], 21: [TRIANGLE], 25: [SQUARE, STAR]},
    )
    assert game.moves == {FLOWER: 22}


def test_occupied_wall_spaces_are_skipped_even_for_the_rolled_snails_symbol() -> None:
    """Wall 20 prints a circle and holds the circle snail: a move to the next circle skips it."""
    game = table([(STAR, CIRCLE)], towers={19: [STAR], 20: [CIRCLE]})
    assert game.moves[STAR] == 29


def test_the_tin_top_stacks_like_the_board() -> None:
    """The tin's top (22–27) stacks snails like the board (`tin_top_stacking=True`)."""
    game = table([(STAR, FLOWER)], towers={22: [STAR], 23: [FLOWER]})
    assert game.moves[STAR] == 23


def test_without_tin_top_stacking_the_top_behaves_like_the_walls() -> None:
    """`tin_top_stacking=False`: the tin's top holds one snail a space, like the walls."""
    game = table([(STAR, FLOWER)], towers={22: [STAR], 23: [FLOWER]}, tin_top_stacking=False)
    assert game.moves[STAR] == 24


def test_tin_order_fixed_reversed_and_shuffled() -> None:
    """The tin's twelve spaces are laid fixed, reversed, or in an order drawn at the start."""
    fixed = table([(STAR, FLOWER)]).track[19:31]
    reversed_ = table([(STAR, FLOWER)], tin_order="reversed").track[19:31]
    assert reversed_ == fixed[::-1]
    tins = set()
    for seed in range(5):
        options = SnailSprintOptions(tin_order="shuffled")
        tins.add(SnailSprint(options, SeededChance(seed)).track[19:31])
    assert len(tins) > 1 and all(sorted(map(sorted, t)) == sorted(map(sorted, fixed)) for t in tins)


# ------------------------------------------------------------------ podium and end


def test_no_matching_space_ahead_takes_the_next_podium_place() -> None:
    """'If there is no matching symbol between a snail and the finish, the snail is placed on the
    podium.'"""
    game = table([(STAR, FLOWER)], towers={36: [STAR]})
    assert game.moves == {STAR: ON_PODIUM, FLOWER: 4}
    play(game, STAR, next_roll=(CIRCLE, TRIANGLE))
    assert game.podium == [STAR] and game.space[STAR] == ON_PODIUM
    assert game.stacks[36] == []


def test_both_rolled_snails_on_the_podium_move_the_rearmost_free_snail() -> None:
    """'If both snails with the symbols rolled are already at the finish, the last (free) snail is
    moved one space forward.'"""
    game = table([(STAR, FLOWER)], podium=(STAR, FLOWER), towers={5: [CIRCLE], 9: [TRIANGLE]})
    assert game.moves == {CLOVERLEAF: 1}


def test_the_rearmost_snail_goes_from_space_36_to_the_podium_and_the_game_ends_at_once() -> None:
    """From space 36 the rearmost snail goes to the podium; 'The game ends when all three podium
    places are occupied' — at once, with no further roll."""
    game = table(
        [(STAR, TRIANGLE)],
        podium=(STAR, TRIANGLE),
        towers={LAST_SPACE: [FLOWER, CIRCLE, CLOVERLEAF, SQUARE]},
    )
    assert game.moves == {SQUARE: ON_PODIUM}
    play(game, SQUARE)
    assert game.podium == [STAR, TRIANGLE, SQUARE]
    assert game.outcome is not None and game.acting_seats() == ()
    assert game.chance.remaining == 0  # type: ignore[attr-defined]


def test_scoring_example_tom_wins_with_five_points_to_three() -> None:
    """'Hanna's race card shows the blue, yellow, and orange snails … Hanna gets 3 points for the
    blue snail (1st place)… Tom gets 2 points for the pink snail (2nd place) … and for the blue
    snail 3 points. Hanna has a total of 3 points and Tom has 5 points. Tom wins.'"""
    game = table(
        [(CLOVERLEAF, CLOVERLEAF)],
        podium=(SQUARE, CIRCLE),
        towers={LAST_SPACE: [CLOVERLEAF]},
        race_cards=("YOB", "PKB"),
        expose_forced_moves=False,
    )
    assert game.podium == [SQUARE, CIRCLE, CLOVERLEAF]
    assert game.points() == [3, 5]
    assert game.outcome is not None and game.outcome.winners == {1}


def test_ties_share_the_win() -> None:
    """'There can be multiple winners in the event of a tie.' Star 1st (Hanna 3), flower 2nd and
    circle 3rd (Tom 2 + 1)."""
    game = table(
        [(CIRCLE, CIRCLE)],
        podium=(STAR, FLOWER),
        towers={LAST_SPACE: [CIRCLE]},
        expose_forced_moves=False,
    )
    assert game.points() == [3, 3]
    assert game.outcome is not None and game.outcome.winners == {0, 1}


def test_points_are_awarded_only_when_the_game_ends() -> None:
    """'Now the awarding of points begins' — at the end; before it every seat has 0."""
    game = table([(STAR, FLOWER)], podium=(SQUARE, CIRCLE))
    assert game.points() == [0, 0]


# ------------------------------------------------------------------ turns


def test_the_turn_passes_clockwise_after_every_roll_forced_ones_included() -> None:
    """Play goes clockwise; every roll is a turn; a roll with one possible move is played
    without asking."""
    game = table(
        [(STAR, STAR), (FLOWER, FLOWER), (CIRCLE, TRIANGLE)],
        race_cards=("YOB", "PKB", "YPK"),
        expose_forced_moves=False,
    )
    assert game.space[STAR] == 4 and game.space[FLOWER] == 6
    assert game.turn == 2 and game.turns_played == 2
    assert game.acting_seats() == (2,)
    assert game.legal_actions(2) == [CIRCLE, TRIANGLE]
    assert game.legal_actions(0) == []
    assert len(game.recent_moves) == 2


def test_exposed_forced_moves_are_decisions_with_one_legal_action() -> None:
    """`expose_forced_moves=True`: a forced roll asks the seat, offering its one move."""
    game = table([(STAR, STAR)])
    assert game.acting_seats() == (0,) and game.legal_actions(0) == [STAR]


def test_max_turns_truncates_an_unfinished_game() -> None:
    """`max_turns`: the game stops (truncated) after that many rolls."""
    game = table([(STAR, FLOWER), (CIRCLE, TRIANGLE)], max_turns=1)
    play(game, STAR)
    assert game.truncated and game.outcome is None and game.acting_seats() == ()


def test_race_cards_are_dealt_one_per_seat_from_the_shuffled_cards() -> None:
    """'Shuffle the race cards and deal a card face-down to each player.'"""
    options = SnailSprintOptions(num_players=4)
    order = list(reversed(options.cards))
    game = SnailSprint(options, ScriptedChance([order, STAR, FLOWER]))
    assert game.race_cards == order[:4]


def test_redraw_hidden_keeps_the_seats_own_card_and_deals_others_from_the_rest() -> None:
    """Race cards are hidden from the other seats; a redraw deals them other unseen cards."""
    game = SnailSprint(SnailSprintOptions(num_players=4), SeededChance(3))
    mine = game.race_cards[2]
    seen = set()
    for seed in range(30):
        twin = SnailSprint(SnailSprintOptions(num_players=4), SeededChance(3))
        twin.redraw_hidden(2, SeededChance(seed))
        assert twin.race_cards[2] == mine
        assert len(set(twin.race_cards)) == 4
        seen.add(tuple(twin.race_cards))
    assert len(seen) > 10


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_players": 5}, "num_players must be an integer from 2 to 4; got 5"),
        ({"board": "C"}, "board must be one of 'A', 'B'; got 'C'"),
        ({"board": ("Y",) * 23}, "board must be 'A', 'B' or 24 strings"),
        ({"board": ("X",) * 24}, "letters YPKGOB"),
        ({"tin_order": "random"}, "tin_order must be one of 'fixed', 'reversed', 'shuffled'"),
        ({"tin_top_stacking": 1}, "tin_top_stacking must be True or False"),
        ({"max_turns": 0}, "max_turns must be None"),
        ({"race_cards": ("YOB",)}, "at least one card per seat"),
    ],
)
def test_bad_options_name_the_allowed_values(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SnailSprintOptions(**options)


def test_a_custom_board_is_laid_out_as_given() -> None:
    """`board` may be 24 spaces of letters: spaces 1–18, then 31–36."""
    board = ("Y",) * 18 + ("P",) * 6
    game = table([(STAR, STAR)], board=board)
    assert game.moves == {STAR: 1}
    assert game.track[31] == frozenset({FLOWER})


# ------------------------------------------------------------------ short races


def test_a_short_track_puts_the_podium_after_its_last_space() -> None:
    """Option `track_length`: 'the podium follows space `track_length`'. On a track of 3 spaces
    (K G B) no space shows a star: the flower snail goes straight to the podium."""
    game = table([(STAR, FLOWER)], track_length=3)
    assert game.moves == {STAR: ON_PODIUM, FLOWER: ON_PODIUM}
    circle = table([(CIRCLE, CIRCLE)], track_length=3)
    assert circle.moves == {CIRCLE: 1}


def test_on_a_short_track_one_space_forward_from_the_last_space_is_the_podium() -> None:
    """Option `track_length`: 'the spaces after it are not used'."""
    game = table([(STAR, FLOWER)], towers={3: [CIRCLE]}, track_length=3)
    assert game.next_space_holding(CIRCLE) == ON_PODIUM
    assert game.next_space_holding(STAR) == 1


def three_snails(
    rolls: Sequence[tuple[Snail, Snail]], towers: dict[int, list[Snail]]
) -> SnailSprint:
    """A two-seat game of the star, flower and circle snails, race cards Y and P, scripted dice."""
    options = SnailSprintOptions(snails=3, race_cards=("Y", "P", "K"), expose_forced_moves=True)
    chance = ScriptedChance([face for roll in rolls for face in roll])
    return SnailSprint(options, chance, Position(towers=towers, race_cards=("Y", "P")))


def test_with_three_snails_the_dice_show_only_their_symbols() -> None:
    """Option `snails`: 'the dice show only their symbols'."""
    assert three_snails([(STAR, CIRCLE)], {}).moves == {STAR: 1, CIRCLE: 4}
    with pytest.raises(ValueError, match=r"options: \[0, 1, 2\]"):
        three_snails([(STAR, SQUARE)], {})


def test_snails_out_of_the_race_stay_off_the_track() -> None:
    """Option `snails`: 'the other snails stay off the track': they are not on the start and
    never the rearmost free snail."""
    game = three_snails([(STAR, STAR)], {1: [STAR, CIRCLE], 2: [FLOWER]})
    assert game.stacks[START] == []
    assert not game.is_free(SQUARE)
    assert game.moves == {CIRCLE: 2}, "the blocked star's doubles move the rearmost racing snail"
