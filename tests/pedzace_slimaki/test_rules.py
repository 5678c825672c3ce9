"""Pędzące Ślimaki rules, one scenario per rule, with scripted dice and deals.

Dice are rolled in colour order (blue, green, yellow, purple, red), so a roll is written as a dict
from colour to face; `Table` checks that every scripted roll names exactly the dice the seat to play
holds. Mushrooms are on leaves 4, 8, 12 and 16 and the last leaf is 20 unless a test says otherwise.
"""

from __future__ import annotations

import pytest

from snail_envs.core.chance import ScriptedChance
from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    SNAIL_FACE,
    Colour,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
    Position,
)

BLUE, GREEN, YELLOW, PURPLE, RED = Colour
S = SNAIL_FACE
CARDS_IN_ORDER = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
"""The default cards in option order: dealt like this, seat i gets card i."""


class Table:
    """A game driven by scripted dice: each roll names the faces of the dice the seat holds."""

    def __init__(
        self,
        roll: dict[int, int],
        *,
        position: Position | None = None,
        deal: list[tuple[int, int]] | None = CARDS_IN_ORDER,
        num_players: int = 3,
        **options: object,
    ) -> None:
        dealt = position is not None and position.cards is not None
        self.chance = ScriptedChance([] if dealt else [deal])
        self.chance.extend(faces(roll))
        options = {"num_players": num_players, **options}
        self.game = PedzaceSlimaki(PedzaceSlimakiOptions(**options), self.chance, position)
        self._check_roll(roll)

    def choose(
        self, die: int, then: dict[int, int] | None = None, deal: list | None = None
    ) -> None:
        """The seat to play uses `die`; the next seat's roll (and a new race's deal) follow."""
        assert die in self.game.legal_actions(self.game.turn)
        if deal is not None:
            self.chance.extend([deal])
        self.chance.extend(faces(then or {}))
        self.game.apply({self.game.turn: die})
        if then is not None:
            self._check_roll(then)
        assert self.chance.remaining == 0, "the scripted dice were not all rolled"

    def _check_roll(self, roll: dict[int, int]) -> None:
        assert self.game.held == sorted(roll), "the roll names other dice than the seat holds"
        assert [self.game.faces[die] for die in sorted(roll)] == faces(roll)


def faces(roll: dict[int, int]) -> list[int]:
    return [roll[die] for die in sorted(roll)]


def at(leaves: dict[int, int]) -> list[int]:
    """Snail leaves: the snails named in `leaves`, every other snail on the start."""
    return [leaves.get(snail, 0) for snail in ALL_DICE]


def five(face: int = 1) -> dict[int, int]:
    return dict.fromkeys(ALL_DICE, face)


# --------------------------------------------------------------------------- setup


def test_all_five_snails_start_on_the_start_leaf_and_each_seat_gets_one_card() -> None:
    """'Place the snails on the board on the start leaf. Regardless of the number of players, all
    five snails are in the game.' 'Shuffle the cards and give one to each player.'"""
    deal = [(2, 3), (0, 1), (4, 0), (1, 2), (3, 4)]
    table = Table({BLUE: 4, GREEN: 1, YELLOW: S, PURPLE: 2, RED: 5}, deal=deal, num_players=2)
    game = table.game
    assert game.leaf == [0, 0, 0, 0, 0]
    assert game.cards == [(2, 3), (0, 1)]
    assert game.scores == [0, 0]


def test_the_first_seat_rolls_all_five_dice() -> None:
    """'The player who ... starts ... Roll five dice.' Seat 0 starts [default]."""
    table = Table({BLUE: 4, GREEN: 1, YELLOW: S, PURPLE: 2, RED: 5})
    game = table.game
    assert game.turn == 0 and game.acting_seats() == (0,)
    assert game.faces == [4, 1, S, 2, 5]
    assert game.set_aside == [False] * 5


def test_any_rolled_die_may_be_chosen_whatever_the_seats_card() -> None:
    """'Players can move any snails, not just their own.'"""
    table = Table({BLUE: 4, GREEN: 1, YELLOW: S, PURPLE: 2, RED: 5})
    assert table.game.cards[0] == (BLUE, GREEN)
    assert table.game.legal_actions(0) == [BLUE, GREEN, YELLOW, PURPLE, RED]
    assert table.game.legal_actions(1) == []


# ------------------------------------------------------------------------- the rulebook's examples


def test_maciek_chooses_the_blue_four_and_hands_four_dice_to_franek() -> None:
    """'Maciek rolled five dice. He chooses the blue one that shows 4, puts it in front of him and
    moves the blue snail four leaves. Then he hands over the remaining four dice to Frank.'"""
    table = Table({BLUE: 4, GREEN: 2, YELLOW: 3, PURPLE: S, RED: 1}, mushrooms=[])
    table.choose(BLUE, then={GREEN: S, YELLOW: 1, PURPLE: 5, RED: 2})
    game = table.game
    assert game.leaf == [4, 0, 0, 0, 0]
    assert game.set_aside == [True, False, False, False, False]
    assert game.turn == 1 and game.held == [GREEN, YELLOW, PURPLE, RED]


def test_franek_chooses_the_green_snail_face_and_passes_four_dice_to_asia() -> None:
    """'Franek rolled four dice. He chooses green with a snail symbol and moves the green snail two
    leaves. Then he gives four dice to Asia, including the die with a snail.'"""
    table = Table({BLUE: 4, GREEN: 2, YELLOW: 3, PURPLE: S, RED: 1}, mushrooms=[])
    table.choose(BLUE, then={GREEN: S, YELLOW: 1, PURPLE: 5, RED: 2})
    table.choose(GREEN, then={GREEN: 3, YELLOW: 3, PURPLE: 2, RED: 4})
    game = table.game
    assert game.leaf == [4, 2, 0, 0, 0]
    assert not game.set_aside[GREEN]
    assert game.turn == 2 and game.held == [GREEN, YELLOW, PURPLE, RED]


def test_asia_pushes_two_snails_back_and_scores_two_points() -> None:
    """'Asia has moved the purple snail 2 leaves. The snail ends its movement on a leaf with two
    other snails. These snails are both pushed back one leaf, so Asia scores two points.'"""
    position = Position(
        leaves=at({BLUE: 4, GREEN: 2, YELLOW: 7, PURPLE: 5, RED: 7}),
        turn=2,
        held=(GREEN, YELLOW, PURPLE, RED),
    )
    table = Table({GREEN: 3, YELLOW: 3, PURPLE: 2, RED: 4}, position=position)
    table.choose(PURPLE, then={GREEN: 1, YELLOW: 1, RED: 1})
    assert table.game.leaf == [4, 2, 6, 7, 6]
    assert table.game.scores == [0, 0, 2]


def test_franek_lands_on_a_mushroom_scores_one_and_the_green_snail_stays() -> None:
    """'Franek moved a yellow snail to a mushroom. He earns one victory point. The green snail stays
    in place because there is no pushing on mushrooms.'"""
    position = Position(leaves=at({GREEN: 4, YELLOW: 1}), turn=1)
    table = Table({BLUE: 1, GREEN: 1, YELLOW: 3, PURPLE: 1, RED: 1}, position=position)
    table.choose(YELLOW, then={BLUE: 1, GREEN: 1, PURPLE: 1, RED: 1})
    assert table.game.leaf == at({GREEN: 4, YELLOW: 4})
    assert table.game.scores == [0, 1, 0]


# --------------------------------------------------------------------------- the dice cycle


def test_a_pip_die_is_set_aside_and_the_others_pass_to_the_left() -> None:
    """'Choose any die and place it in front of them ... Pass the remaining four dice to the
    neighbor on their left.' With three seats, seat 2 passes to seat 0."""
    position = Position(turn=2, held=(BLUE, GREEN, YELLOW))
    table = Table({BLUE: 2, GREEN: 1, YELLOW: 5}, position=position)
    table.choose(YELLOW, then={BLUE: 3, GREEN: 3})
    game = table.game
    assert game.turn == 0
    assert game.set_aside == [False, False, True, True, True]


def test_the_dice_go_round_five_four_three_two_then_all_five_again() -> None:
    """'The next player ... only roll four dice and pass three dice. The next player rolls three
    dice and passes two and so on. When only one die is passed to a player, they collect all
    previously placed dice and roll five again.'"""
    table = Table(five(1), num_players=2, mushrooms=[])
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.turn == 1
    table.choose(GREEN, then={YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.turn == 0
    table.choose(YELLOW, then={PURPLE: 1, RED: 1})
    assert table.game.turn == 1
    table.choose(PURPLE, then=five(2))
    game = table.game
    assert game.turn == 0
    assert game.held == list(ALL_DICE) and game.set_aside == [False] * 5


def test_a_seat_that_would_receive_one_die_collects_all_five() -> None:
    """'When only one die is passed to a player, they collect all previously placed dice and roll
    five again' — including the die that was about to be passed."""
    position = Position(leaves=at({GREEN: 3}), turn=1, held=(GREEN, YELLOW))
    table = Table({GREEN: 2, YELLOW: S}, position=position)
    table.choose(GREEN, then={BLUE: 5, GREEN: 4, YELLOW: 3, PURPLE: 2, RED: 1})
    game = table.game
    assert game.turn == 2
    assert game.held == list(ALL_DICE) and game.set_aside == [False] * 5
    assert game.faces == [5, 4, 3, 2, 1]


def test_a_snail_face_moves_two_leaves_and_its_die_stays_in_the_pool() -> None:
    """'If the player chooses a die with a snail symbol, they move the snail of that color two
    leaves. The die with the snail is not removed, but passed on with the rest of the dice.'"""
    position = Position(leaves=at({RED: 5}), turn=0, held=(GREEN, RED))
    table = Table({GREEN: 1, RED: S}, position=position)
    table.choose(RED, then={GREEN: 2, RED: 2})
    game = table.game
    assert game.leaf[RED] == 7
    assert game.turn == 1 and game.held == [GREEN, RED], "two dice passed on: no collection"


def test_a_snail_face_die_can_be_passed_on_twice() -> None:
    """The snail-face die stays in the pool each time it is chosen: it goes round with the pool."""
    position = Position(turn=0, held=(BLUE, GREEN, YELLOW))
    table = Table({BLUE: S, GREEN: 3, YELLOW: 1}, position=position)
    table.choose(BLUE, then={BLUE: S, GREEN: 1, YELLOW: 1})
    assert table.game.turn == 1 and table.game.leaf[BLUE] == 2
    table.choose(BLUE, then={BLUE: 2, GREEN: 5, YELLOW: 5})
    game = table.game
    assert game.turn == 2 and game.leaf[BLUE] == 4
    assert game.held == [BLUE, GREEN, YELLOW]
    assert game.set_aside == [False, False, False, True, True]


def test_the_turn_wraps_from_the_last_seat_to_seat_0() -> None:
    """'Pass the remaining ... dice to the neighbor on their left': player_4 -> player_0."""
    position = Position(turn=4)
    table = Table(five(1), position=position, num_players=5)
    table.choose(RED, then={BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 1})
    assert table.game.turn == 0


# --------------------------------------------------------------------------- moving and scoring


def test_a_push_moves_every_snail_on_the_leaf_back_one_and_pushes_nothing_further() -> None:
    """'When snails are pushed onto a leaf with other snails, nothing happens; they do not push them
    further.' The blue snail already on leaf 6 stays; only the two pushed snails count."""
    position = Position(leaves=at({BLUE: 6, YELLOW: 7, PURPLE: 5, RED: 7}))
    table = Table({BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 2, RED: 1}, position=position)
    table.choose(PURPLE, then={BLUE: 1, GREEN: 1, YELLOW: 1, RED: 1})
    assert table.game.leaf == at({BLUE: 6, YELLOW: 6, PURPLE: 7, RED: 6})
    assert table.game.scores == [2, 0, 0]


def test_a_snail_landing_alone_scores_nothing() -> None:
    """Points come only from pushing, mushrooms and the finish: an empty leaf scores nothing."""
    table = Table({BLUE: 3, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.scores == [0, 0, 0]


def test_landing_on_a_mushroom_with_snails_pushes_nothing_and_scores_one() -> None:
    """'Attention! On mushrooms, snails do not push.' 'When a player finishes the snail movement
    on a mushroom, they receive one point.' Three snails wait on mushroom 8."""
    position = Position(leaves=at({BLUE: 8, GREEN: 8, YELLOW: 8, RED: 3}), turn=1)
    table = Table({BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 5}, position=position)
    table.choose(RED, then={BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 1})
    assert table.game.leaf == at({BLUE: 8, GREEN: 8, YELLOW: 8, RED: 8})
    assert table.game.scores == [0, 1, 0]


def test_a_snail_pushed_back_onto_a_mushroom_scores_nothing_more() -> None:
    """'No points are earned for snails that are pushed back to a mushroom.' The push scores 1."""
    position = Position(leaves=at({BLUE: 2, YELLOW: 5}))
    table = Table({BLUE: 3, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1}, position=position)
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.leaf == at({BLUE: 5, YELLOW: 4})
    assert table.game.scores == [1, 0, 0]


def test_snails_may_be_pushed_onto_the_start_leaf() -> None:
    """[default] A snail on leaf 1 is pushed back onto the start leaf."""
    position = Position(leaves=at({GREEN: 1}))
    table = Table({BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1}, position=position)
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.leaf == at({BLUE: 1, GREEN: 0})
    assert table.game.scores == [1, 0, 0]


def test_points_are_scored_by_the_seat_that_moved_not_by_the_snails_owner() -> None:
    """'For each snail pushed in this way, the player receives one point': the mover's seat."""
    position = Position(leaves=at({GREEN: 3, RED: 6}), turn=1, cards=CARDS_IN_ORDER[:3])
    table = Table({BLUE: 1, GREEN: 3, YELLOW: 1, PURPLE: 1, RED: 1}, position=position)
    table.choose(GREEN, then={BLUE: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    assert table.game.scores == [0, 1, 0]


# --------------------------------------------------------------------------- the end of a race


def finish(
    leaves: dict[int, int],
    *,
    cards: list[tuple[int, int]] | None = None,
    die: int = RED,
    face: int = 2,
    **options: object,
) -> PedzaceSlimaki:
    """Seat 0 moves `die`'s snail by `face` from `leaves` (to the last leaf, normally)."""
    cards = cards or CARDS_IN_ORDER[:3]
    position = Position(leaves=at(leaves), cards=cards)
    roll = five(1)
    roll[die] = face
    table = Table(roll, position=position, **options)
    table.choose(die)
    return table.game


def test_the_race_ends_when_a_snail_reaches_the_last_leaf_and_the_mover_scores_one() -> None:
    """'The game ends when one of the snails reaches the last leaf ... The player who moved the
    snail to the last leaf gains an additional point.' Cards: seat 0 blue+green, seat 1
    green+yellow, seat 2 yellow+purple; red wins, yellow is last, blue 2nd."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18})
    assert game.leaf[RED] == 20
    assert game.snail_places() == [2, 0, 3, 0, 5]
    assert game.scores == [1 + 2 + 0, 0 + 3, 3 + 0]
    assert game.outcome is not None and game.outcome.winners == {0, 1, 2}
    assert game.acting_seats() == () and game.legal_actions(game.turn) == []


def test_a_move_past_the_last_leaf_stops_on_it() -> None:
    """'You do not have to roll the exact number of pips.' Red on 18 rolls 5: it stops on 20."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}, face=5)
    assert game.leaf[RED] == 20
    assert game.outcome is not None


def test_a_snail_face_can_finish_the_race() -> None:
    """A snail face moves two leaves forward: from leaf 19 it stops on the last leaf."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 19}, face=S)
    assert game.leaf[RED] == 20 and game.outcome is not None
    assert game.scores[0] == 1 + 2


def test_the_winning_seat_scores_its_places_first_second_and_last() -> None:
    """'1st place: 5 points, 2nd place: 2 points, Last place: 3 points'; other snails 0. Seat 0's
    card holds the winner and the 2nd snail: 1 + 5 + 2."""
    cards = [(RED, BLUE), (GREEN, PURPLE), (YELLOW, GREEN)]
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}, cards=cards)
    assert game.snail_places() == [2, 0, 3, 0, 5]
    assert game.scores == [8, 0, 3]
    assert game.outcome is not None and game.outcome.winners == {0}
    (result,) = game.race_results
    assert result.winner == RED and result.card_points == (7, 0, 3)


def test_every_snail_on_the_rearmost_leaf_is_last() -> None:
    """'When several snails are last, they all score.'"""
    game = finish({BLUE: 12, GREEN: 3, YELLOW: 3, PURPLE: 7, RED: 18})
    assert game.snail_places() == [2, 3, 3, 0, 5]


def test_several_snails_on_the_second_leaf_all_score_second_place() -> None:
    """[default] Blue and purple share the foremost leaf behind the winner: both score 2."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 12, RED: 18})
    assert game.snail_places() == [2, 0, 3, 2, 5]


def test_when_all_but_the_winner_share_one_leaf_they_are_last_not_second() -> None:
    """'When all but the winning snails are on one leaf, they are treated as if they are in last
    place and not 2nd.'"""
    game = finish({BLUE: 10, GREEN: 10, YELLOW: 10, PURPLE: 10, RED: 18})
    assert game.snail_places() == [3, 3, 3, 3, 5]


def test_snails_still_on_the_start_leaf_are_last() -> None:
    """The start leaf is a leaf like the others for placing: snails there are last."""
    game = finish({BLUE: 12, RED: 18})
    assert game.snail_places() == [2, 3, 3, 3, 5]


def test_the_finish_pushes_nothing_and_scores_only_its_one_point() -> None:
    """The last leaf is always empty when a snail reaches it: the race ends there."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}, cards=[(0, 1)] * 3)
    assert game.scores == [1 + 2, 2, 2]


def test_the_highest_total_wins_and_ties_share_the_win() -> None:
    """'The player with the most points wins.' Seats 1 and 2 tie on 5 points; seat 0 has 3."""
    cards = [(BLUE, PURPLE), (YELLOW, PURPLE), (GREEN, YELLOW)]
    position = Position(
        leaves=at({BLUE: 12, GREEN: 5, YELLOW: 2, PURPLE: 7, RED: 18}),
        cards=cards,
        scores=(0, 2, 2),
    )
    table = Table({BLUE: 1, GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 2}, position=position)
    table.choose(RED)
    game = table.game
    assert game.scores == [1 + 2, 2 + 3, 2 + 3]
    assert game.outcome is not None and game.outcome.winners == {1, 2}


def test_place_points_can_be_changed() -> None:
    """Option `place_points`: the points of 1st, 2nd and last place."""
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}, place_points=(3, 2, 1))
    assert game.snail_places() == [2, 0, 1, 0, 3]


def test_a_shorter_board_and_other_mushrooms() -> None:
    """Options `board_length` and `mushrooms`: the last leaf is 8; a mushroom grows on 3."""
    position = Position(leaves=at({GREEN: 1, RED: 6}), cards=CARDS_IN_ORDER[:3])
    table = Table(
        {BLUE: 3, GREEN: 2, YELLOW: 1, PURPLE: 1, RED: 2},
        position=position,
        board_length=8,
        mushrooms=[3],
    )
    table.choose(GREEN, then={BLUE: 1, YELLOW: 1, PURPLE: 1, RED: 2})
    assert table.game.scores == [1, 0, 0], "leaf 3 is a mushroom"
    table.choose(RED)
    assert table.game.leaf[RED] == 8 and table.game.outcome is not None


THREE_CARDS = [(0, 1), (1, 2), (2, 0)]
"""Cards that name only the first three snails (as dealt)."""
THREE_CARD_OPTION = [("blue", "green"), ("green", "yellow"), ("yellow", "blue")]
"""The same cards as the option `cards` names them."""


def test_with_three_snails_only_the_first_three_snails_and_dice_race() -> None:
    """Option `snails`: 'only the snails (and dice) of the first this many colours race'."""
    table = Table(
        {BLUE: 1, GREEN: S, YELLOW: 1}, deal=THREE_CARDS, snails=3, cards=THREE_CARD_OPTION
    )
    assert table.game.legal_actions(0) == [BLUE, GREEN, YELLOW]
    assert table.game.faces[PURPLE] == table.game.faces[RED] == 0


def test_with_three_snails_a_seat_that_would_receive_one_die_collects_all_three() -> None:
    """Option `snails`: 'the dice cycle is the same with that many dice (a seat that would
    receive one die collects them all)'."""
    table = Table(
        {BLUE: 1, GREEN: 1, YELLOW: 1}, deal=THREE_CARDS, snails=3, cards=THREE_CARD_OPTION
    )
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1})
    table.choose(GREEN, then={BLUE: 1, GREEN: 1, YELLOW: 1})
    assert table.game.turn == 2 and table.game.set_aside == [False] * 5


def test_snails_not_in_the_race_stay_off_the_board_and_score_no_place() -> None:
    """Option `snails`: 'the other snails stay off the board and score no place'; the rearmost
    leaf is the rearmost of the racing snails."""
    position = Position(
        leaves=at({BLUE: 2, GREEN: 1, YELLOW: 5}), held=(0, 1, 2), cards=THREE_CARDS
    )
    options = {"snails": 3, "cards": THREE_CARD_OPTION, "board_length": 6, "mushrooms": []}
    table = Table({BLUE: 1, GREEN: 1, YELLOW: S}, position=position, **options)
    table.choose(YELLOW)
    assert table.game.outcome is not None
    assert table.game.snail_places() == [2, 3, 5, 0, 0]


def test_with_two_pips_a_die_shows_one_two_or_the_snail_face() -> None:
    """Option `die_pips`: 'each die shows the pips 1 to this number and the snail face'."""
    table = Table({BLUE: 2, GREEN: S, YELLOW: 1, PURPLE: 2, RED: 1}, die_pips=2)
    assert table.game.faces == [2, S, 1, 2, 1]
    with pytest.raises(ValueError, match=r"options: \[1, 2, 6\]"):
        Table({BLUE: 3, GREEN: S, YELLOW: 1, PURPLE: 2, RED: 1}, die_pips=2)


def test_the_shortest_board_ends_with_a_snail_face_from_the_start() -> None:
    """Option `board_length`: 'the number of the last leaf, 2–100'; a snail face moves two
    leaves."""
    table = Table(five(S), board_length=2, mushrooms=[])
    table.choose(RED)
    assert table.game.leaf[RED] == 2 and table.game.outcome is not None


# --------------------------------------------------------------------------- three races


def test_three_races_start_afresh_with_new_cards_and_the_next_first_seat() -> None:
    """Variant: 'Play three rounds and add the scores after three rounds.' After race 1 the
    snails go back to the start, new cards are dealt, the seat after race 1's first seat begins
    with all five dice, and points carry over."""
    position = Position(
        leaves=at({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}),
        turn=2,
        first_seat=0,
        cards=CARDS_IN_ORDER[:3],
        scores=(4, 1, 0),
    )
    roll = five(1)
    roll[RED] = 3
    table = Table(roll, position=position, rounds=3)
    new_deal = [(3, 4), (4, 0), (0, 1), (1, 2), (2, 3)]
    table.choose(RED, deal=new_deal, then={BLUE: 2, GREEN: S, YELLOW: 4, PURPLE: 5, RED: 1})
    game = table.game
    assert game.outcome is None and game.race == 1
    assert game.leaf == [0, 0, 0, 0, 0]
    assert game.cards == [(3, 4), (4, 0), (0, 1)]
    assert game.turn == 1 and game.first_seat == 1
    assert game.held == list(ALL_DICE) and game.set_aside == [False] * 5
    assert game.scores == [4 + 2, 1 + 3, 0 + 1 + 3]
    assert game.race_results[0].card_points == (2, 3, 3)


def test_three_race_totals_decide_the_winner() -> None:
    """The third race's points are added to the first two: seat 0 led, but seat 1 wins."""
    position = Position(
        leaves=at({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18}),
        turn=1,
        first_seat=2,
        race=2,
        cards=((GREEN, PURPLE), (RED, YELLOW), (BLUE, YELLOW)),
        scores=(20, 14, 15),
    )
    roll = five(1)
    roll[RED] = 4
    table = Table(roll, position=position, rounds=3)
    table.choose(RED)
    game = table.game
    assert game.scores == [20, 14 + 1 + 5 + 3, 15 + 2 + 3]
    assert game.outcome is not None and game.outcome.winners == {1}


def test_a_three_race_game_adds_up_every_race() -> None:
    """A whole seeded three-race game: the final points are the in-race points plus the
    card points of each race, and three races were run."""
    from snail_envs.core.chance import SeededChance

    game = PedzaceSlimaki(PedzaceSlimakiOptions(num_players=4, rounds=3), SeededChance(5))
    tokens = [0] * 4
    while game.outcome is None:
        before = list(game.scores)
        races = len(game.race_results)
        game.apply({game.turn: game.legal_actions(game.turn)[0]})
        card_points = (
            game.race_results[-1].card_points if len(game.race_results) > races else (0,) * 4
        )
        for seat in range(4):
            tokens[seat] += game.scores[seat] - before[seat] - card_points[seat]
    assert [result.race for result in game.race_results] == [0, 1, 2]
    assert game.scores == [
        tokens[seat] + sum(r.card_points[seat] for r in game.race_results) for seat in range(4)
    ]
    assert sum(tokens) >= 3


# --------------------------------------------------------------------------- backwards variant


def backwards(roll: dict[int, int], leaves: dict[int, int], **kw: object) -> Table:
    position = Position(leaves=at(leaves), held=tuple(sorted(roll)), **kw)  # type: ignore[arg-type]
    return Table(roll, position=position, snail_face_backwards=True)


def test_backwards_a_snail_face_moves_two_leaves_back_and_is_set_aside() -> None:
    """Variant: 'After choosing a die with a snail, the player places it in front of them ...
    the player moves the snail of that color two leaves backwards.'"""
    table = backwards({BLUE: S, GREEN: 1, YELLOW: 1}, {BLUE: 7})
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1})
    assert table.game.leaf[BLUE] == 5
    assert table.game.set_aside[BLUE]


def test_backwards_a_snail_pushes_without_scoring() -> None:
    """'If the withdrawn snail finds itself on a leaf with other snails, it pushes them back one
    leaf, but does not score points for it.'"""
    table = backwards({BLUE: S, GREEN: 1, YELLOW: 1}, {BLUE: 9, GREEN: 7, PURPLE: 7})
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1})
    assert table.game.leaf == at({BLUE: 7, GREEN: 6, PURPLE: 6})
    assert table.game.scores == [0, 0, 0]


def test_backwards_onto_a_mushroom_pushes_nothing_and_scores_nothing() -> None:
    """'No point is scored for moving the snail back to a mushroom'; on mushrooms nothing is
    pushed."""
    table = backwards({BLUE: S, GREEN: 1, YELLOW: 1}, {BLUE: 10, GREEN: 8})
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1})
    assert table.game.leaf == at({BLUE: 8, GREEN: 8})
    assert table.game.scores == [0, 0, 0]


def test_backwards_onto_the_start_leaf_pushes_nothing() -> None:
    """[default] The start leaf holds any number of snails: nothing is pushed there."""
    table = backwards({BLUE: S, GREEN: 1, YELLOW: 1}, {BLUE: 2})
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1})
    assert table.game.leaf == [0, 0, 0, 0, 0]
    assert table.game.scores == [0, 0, 0]


def test_backwards_no_snail_face_for_a_snail_on_the_start_or_the_second_leaf() -> None:
    """'If the snail stands on the start leaf or the second leaf, you cannot choose the die with
    the snail symbol in its color.' Blue (leaf 0) and green (leaf 1) are masked; yellow (leaf 2)
    may go back."""
    table = backwards({BLUE: S, GREEN: S, YELLOW: S, PURPLE: 4}, {GREEN: 1, YELLOW: 2})
    assert table.game.legal_actions(0) == [YELLOW, PURPLE]


def test_backwards_a_roll_with_one_allowed_die_is_still_a_decision() -> None:
    """[default] A roll in which only one die may be chosen asks the seat anyway (one legal
    action)."""
    table = backwards({BLUE: S, GREEN: 3}, {})
    assert table.game.acting_seats() == (0,)
    assert table.game.legal_actions(0) == [GREEN]


def test_backwards_a_seat_with_no_allowed_die_passes_its_dice_on_unchanged() -> None:
    """[default] Seat 0 rolls two snail faces for snails on leaves 0 and 1: it cannot choose
    either, so the same two dice go to seat 1, which rolls them. The pass is a turn."""
    position = Position(leaves=at({GREEN: 1}), held=(BLUE, GREEN), cards=CARDS_IN_ORDER[:3])
    options = PedzaceSlimakiOptions(num_players=3, snail_face_backwards=True)
    game = PedzaceSlimaki(options, ScriptedChance([S, S, S, 1]), position)
    assert game.turn == 1 and game.held == [BLUE, GREEN]
    assert game.faces == [S, 1, 0, 0, 0]
    assert game.last_move == (0,)
    assert game.turns_played == 1
    assert game.legal_actions(1) == [GREEN]


def test_forward_snail_faces_are_allowed_on_the_start_leaf() -> None:
    """Without the variant a snail face moves forward, so it is allowed everywhere."""
    position = Position(held=(BLUE, GREEN))
    table = Table({BLUE: S, GREEN: S}, position=position)
    assert table.game.legal_actions(0) == [BLUE, GREEN]


# ------------------------------------------------------------------------- limits and hidden cards


def test_max_turns_truncates_an_unfinished_game() -> None:
    """Option `max_turns`: after that many turns the game stops without an outcome."""
    table = Table(five(1), max_turns=2)
    table.choose(BLUE, then={GREEN: 1, YELLOW: 1, PURPLE: 1, RED: 1})
    table.choose(GREEN)
    game = table.game
    assert game.truncated and game.outcome is None
    assert game.acting_seats() == () and game.legal_actions(game.turn) == []


def test_redraw_deals_the_other_seats_from_the_cards_the_seat_cannot_see() -> None:
    """Resampling keeps the seat's own card and deals the others from the remaining cards."""
    table = Table(five(1))
    game = table.game
    assert game.cards == [(0, 1), (1, 2), (2, 3)]
    game.redraw_hidden(1, ScriptedChance([[(0, 1), (4, 0), (2, 3), (3, 4)]]))
    assert game.cards == [(3, 4), (1, 2), (2, 3)]


def test_redraw_with_five_seats_only_swaps_who_holds_which_other_card() -> None:
    """With five seats every card is dealt: the other four seats get the other four cards."""
    table = Table(five(1), num_players=5)
    game = table.game
    game.redraw_hidden(0, ScriptedChance([[(1, 2), (2, 3), (3, 4), (4, 0)]]))
    assert game.cards[0] == (0, 1)
    assert sorted(game.cards) == sorted(CARDS_IN_ORDER)
    assert game.cards[1:] == [(4, 0), (3, 4), (2, 3), (1, 2)]


@pytest.mark.parametrize(
    ("position", "message"),
    [
        (Position(leaves=(0, 0, 0, 0)), "5 leaves"),
        (Position(leaves=(0, 0, 0, 0, 20)), "5 leaves"),
        (Position(held=(BLUE,)), "2 to 5 dice"),
        (Position(turn=3), "turn"),
        (Position(cards=((0, 1),)), "one card per seat"),
        (Position(race=1), "race"),
    ],
)
def test_a_position_is_checked(position: Position, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PedzaceSlimaki(PedzaceSlimakiOptions(num_players=3), ScriptedChance([]), position)


# --------------------------------------------------------------------------- previews


def test_a_preview_shows_a_move_without_making_it() -> None:
    """Purple from 5 with a 2 lands on leaf 7 and pushes yellow and red back: 2 points. The game
    itself is untouched: same snails, same points, same turn."""
    position = Position(leaves=at({BLUE: 6, YELLOW: 7, PURPLE: 5, RED: 7}))
    table = Table(five(1), position=position)
    game = table.game
    leaves = list(game.leaf)
    assert game.preview(leaves, PURPLE, 2) == (at({BLUE: 6, YELLOW: 6, PURPLE: 7, RED: 6}), 2)
    assert game.preview(leaves, PURPLE, 3) == (at({BLUE: 6, YELLOW: 7, PURPLE: 8, RED: 7}), 1)
    assert game.leaf == leaves and game.scores == [0, 0, 0] and game.turn == 0
    assert game.preview(at({RED: 18}), RED, 5) == (at({RED: 20}), 1), "the finish scores 1"


def test_a_preview_of_a_snail_face_follows_the_variant() -> None:
    forward = Table(five(1)).game
    assert forward.preview(at({GREEN: 5, BLUE: 7}), GREEN, S) == (at({GREEN: 7, BLUE: 6}), 1)
    backwards = Table(five(1), snail_face_backwards=True).game
    assert backwards.preview(at({GREEN: 5, BLUE: 3}), GREEN, S) == (at({GREEN: 3, BLUE: 2}), 0)


def test_snail_places_of_other_leaves_than_the_games() -> None:
    game = finish({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 18})
    assert game.snail_places() == [2, 0, 3, 0, 5]
    assert game.snail_places(at({BLUE: 20, GREEN: 9, YELLOW: 9, PURPLE: 7})) == [5, 2, 2, 0, 3]
    assert game.leaf == at({BLUE: 12, GREEN: 9, YELLOW: 2, PURPLE: 7, RED: 20})


# --------------------------------------------------------------------------- choice counts


def test_each_seat_counts_the_dice_it_used_and_passed_over() -> None:
    """Maciek and Franek's turns of the rulebook's example: Maciek uses blue from five dice
    (passing over green, yellow, purple and red), Franek uses the green snail face from four
    (passing over yellow, purple and red). Public history: what a player reads a card from."""
    table = Table({BLUE: 4, GREEN: 2, YELLOW: 3, PURPLE: S, RED: 1}, mushrooms=[])
    assert table.game.dice_used == [[0] * 5] * 3 and table.game.dice_passed == [[0] * 5] * 3
    table.choose(BLUE, then={GREEN: S, YELLOW: 1, PURPLE: 5, RED: 2})
    table.choose(GREEN, then={GREEN: 3, YELLOW: 3, PURPLE: 2, RED: 4})
    game = table.game
    assert game.dice_used == [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0]]
    assert game.dice_passed == [[0, 1, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 0, 0, 0]]


def test_the_choice_counts_start_again_with_each_race() -> None:
    """New cards each race ('Play three rounds'): the dice used in race 1 tell nothing of them."""
    position = Position(leaves=at({RED: 18}), turn=2, first_seat=0, cards=CARDS_IN_ORDER[:3])
    roll = five(1)
    roll[RED] = 3
    table = Table(roll, position=position, rounds=3)
    new_deal = [(3, 4), (4, 0), (0, 1), (1, 2), (2, 3)]
    table.choose(RED, deal=new_deal, then={BLUE: 2, GREEN: S, YELLOW: 4, PURPLE: 5, RED: 1})
    assert table.game.race == 1
    assert table.game.dice_used == [[0] * 5] * 3 and table.game.dice_passed == [[0] * 5] * 3
