"""Snailed It! rules, one scenario per rule sentence (RULES.md §2), on scripted deals.

Unless a test says otherwise the starters lie orange 1 | 3, yellow 5 | 7, blue 12 | 14,
pink 16 | 18 (left | right).
"""

from __future__ import annotations

import copy

import pytest

from snail_envs.core.chance import ScriptedChance, SeededChance
from snail_envs.core.game import Termination
from snail_envs.snailed_it.rules import (
    COLOUR,
    PASS,
    PLAY,
    TOSS_WINDOW,
    SnailedIt,
    SnailedItOptions,
    gap_cards,
    play_action,
    same_colour_draws,
    toss_action,
)
from tests.snailed_it.invariants import check_position
from tests.snailed_it.scripted import (
    card,
    cards,
    deal,
    deal_outcomes,
    named,
    play,
    starter_card,
    tick,
)


def tosses(*names: str) -> list[int]:
    return [toss_action(card(name)) for name in names] + [PASS]


# --------------------------------------------------------------------------- setup


def test_starters_lie_face_up_one_left_and_one_right_of_each_row() -> None:
    """Setup: "lay one face up left and one right of each row" — in the shuffled order."""
    game = deal(["o2", "o4"], starters="14 3 18 1 7 12 5 16")
    assert [game.row_tops(colour) for colour in range(4)] == [(14, 3), (18, 1), (7, 12), (5, 16)]
    assert game.rows[0] == ([starter_card(14)], [starter_card(3)])


def test_each_seat_is_dealt_hand_size_cards_and_the_rest_is_the_penalty_pile() -> None:
    """Setup: "Deal 8 cards to each seat; the rest is the face-down penalty pile"."""
    game = SnailedIt(SnailedItOptions(num_players=5), SeededChance(3))
    assert [len(hand) for hand in game.hands] == [8] * 5
    assert len(game.penalty_pile) == 72 - 40
    assert game.tossed_pile == []
    check_position(game)


def test_hands_are_dealt_one_card_at_a_time_clockwise() -> None:
    """Setup: the deal goes round the table one card at a time from the seat that starts."""
    game = deal(["o2 o4", "b2 b4", "y2 y4"], penalty="p9 p10")
    assert [named(hand) for hand in game.hands] == ["o2 o4", "b2 b4", "y2 y4"]
    assert named(game.penalty_pile[-2:]) == "p9 p10" and game.penalty_pile[-1] == card("p9")


# --------------------------------------------------------------------------- the turn


def test_seat_0_plays_first_and_play_goes_clockwise() -> None:
    """Conventions: seat 0 starts; play goes clockwise."""
    game = deal(["o2 b13", "y6 p17", "b15 o9"])
    assert game.turn == 0 and game.acting_seats() == (0,)
    play(game, "o2")
    assert game.turn == 1 and game.acting_seats() == (1,)
    play(game, "y6")
    play(game, "b15")  # blue 15 | 14: no gap
    assert game.turn == 0


def test_a_card_is_played_on_either_pile_of_its_own_colour_row_covering_its_top() -> None:
    """Turn: "play one card from hand onto the left or right pile of its own colour's row; it
    covers that pile's top"."""
    game = deal(["o2 y9", "b1 p4"])
    assert game.legal_actions(0) == [
        play_action(card("o2"), 0),
        play_action(card("o2"), 1),
        play_action(card("y9"), 0),
        play_action(card("y9"), 1),
    ]
    play(game, "o2", "right")
    assert game.rows[0] == ([starter_card(1)], [starter_card(3), card("o2")])
    assert game.row_tops(0) == (1, 2)
    assert named(game.hands[0]) == "y9"


def test_only_the_seat_to_play_acts_in_the_play_phase() -> None:
    """Turn: the play is the decision of the active seat; the others have no action."""
    game = deal(["o2 y9", "b1 p4", "o5 o6"])
    assert game.legal_actions(1) == [] and game.legal_actions(2) == []


def test_playing_the_colour_played_on_the_previous_turn_draws_one_card() -> None:
    """Same-colour penalty: "if the card's colour equals the colour played on the previous
    turn, draw 1"."""
    game = deal(["o2 y9", "o3 b1"], penalty="p4 p5")
    play(game, "o2")  # orange 2 | 3
    assert len(game.hands[0]) == 1
    play(game, "o3")  # orange 3 | 3, orange again
    assert named(game.hands[1]) == "b1 p4"
    assert game.previous_colour == 0
    play(game, "y9", "left")  # a different colour: no draw
    assert named(game.hands[0]) == ""


def test_no_same_colour_draw_on_a_rounds_first_turn() -> None:
    """Same-colour penalty: "no penalty on the first turn of a round", even if the colour
    repeats the last play of the round before."""
    round_two = deal_outcomes(["o9", "o3", "b2"], first_seat=1)
    game = deal(["o2", "y9", "p1"], more=round_two, max_rounds=2)
    play(game, "o2")  # orange 2 | 3, seat 0's hand empties: the round ends
    assert game.rounds_played == 1 and game.turn == 1 and game.previous_colour is None
    play(game, "o3", "left")  # orange 3 | 3: the colour of the last play, but a new round
    assert game.hands[1] == [] and game.rounds_played == 2


def test_tosses_are_not_turns() -> None:
    """Same-colour penalty: "tosses are not turns" — a toss neither moves the turn to the
    tosser's left nor counts as the previous turn's colour."""
    game = deal(["o10 b13", "y6 b2", "o5 p2", "p3 p4"], penalty="y1 y2 y3")
    play(game, "o10", "right")  # orange 1 | 10: a window
    tick(game, seat_2="o5")
    tick(game)
    assert game.turn == 1 and game.previous_colour == 0
    play(game, "y6")  # yellow 6 | 7: not the colour of the last play, no draw
    assert named(game.hands[1]) == "b2"


# --------------------------------------------------------------------------- gaps


def test_a_gap_of_exactly_one_number_fits_one_card_of_the_rows_colour() -> None:
    """Gap: "if |a − b| ≥ 2, every card of that row's colour with min(a,b) < v < max(a,b)
    fits" — with tops 5 and 3 only the orange 4 fits."""
    game = deal(["o5 b2 b3 b4", "o4 y4 o3 o6"])
    play(game, "o5", "left")  # orange 5 | 3
    assert game.phase == TOSS_WINDOW
    assert game.legal_actions(1) == tosses("o4")
    assert game.fits_gap(card("o4")) and not game.fits_gap(card("y4"))


def test_adjacent_or_equal_tops_leave_no_gap_and_open_no_window() -> None:
    """Gap: no window when |a − b| < 2."""
    game = deal(["b13 y7", "b14 o6"])
    play(game, "b13", "left")  # blue 13 | 14
    assert game.phase == PLAY and game.turn == 1
    play(game, "b14", "left")  # blue 14 | 14
    assert game.phase == PLAY and game.turn == 0


def test_a_wide_gap_fits_every_value_strictly_between_the_tops() -> None:
    """Gap: with tops 1 and 18 the pink 2 … 17 fit; the tops' own values do not."""
    game = deal(["p1 o9", "p2 p17 p18 o10", "p16 b5 b6 b7"], hand_size=4)
    play(game, "p1", "left")  # pink 1 | 18
    assert game.legal_actions(1) == tosses("p2", "p17")
    assert game.legal_actions(2) == tosses("p16")


def test_gap_cards_names_the_fitting_cards_of_a_rows_tops_in_either_order() -> None:
    """Gap, as a public function: the cards of the row's colour strictly between the tops."""
    assert named(gap_cards(0, 3, 7)) == "o4 o5 o6"
    assert named(gap_cards(2, 18, 1)) == " ".join(f"b{value}" for value in range(2, 18))
    assert list(gap_cards(1, 5, 6)) == [] and list(gap_cards(1, 6, 5)) == []
    assert list(gap_cards(3, 9, 9)) == []
    assert named(gap_cards(3, 9, 11)) == "p10"


def test_same_colour_draws_counts_the_penalty_of_a_play() -> None:
    """Same-colour penalty, as a public function: 1 after a turn of the card's colour."""
    assert same_colour_draws(card("y4"), 1) == 1
    assert same_colour_draws(card("y4"), 0) == 0
    assert same_colour_draws(card("y4"), None) == 0


# --------------------------------------------------------------------------- the toss window


def test_every_other_seat_acts_in_each_tick_of_the_window_clockwise() -> None:
    """Toss window: "a simultaneous window for the other seats"."""
    game = deal(["o2 o10", "o5 y6", "o6 b2", "b3 b4"])
    play(game, "o10", "right")  # orange 1 | 10
    assert game.acting_seats() == (1, 2, 3)
    assert game.legal_actions(0) == []


def test_tosses_go_to_the_tossed_pile_and_the_player_draws_one_per_toss_after_each_tick() -> None:
    """Toss window: "each tick, each may toss one fitting card from its hand or pass …
    the active seat draws 1 per card tossed" — right after each tick."""
    game = deal(["o10 b2 b3", "o5 o6 y9", "o8 y10 y11", "o11 b5 b6"], penalty="p2 p3 p4")
    play(game, "o10", "right")  # orange 1 | 10: 2 … 9 fit
    assert game.legal_actions(1) == tosses("o5", "o6")
    assert game.legal_actions(3) == [PASS]  # the orange 11 does not fit
    tick(game, seat_1="o5", seat_2="o8")
    assert game.phase == TOSS_WINDOW
    assert game.tossed_pile == cards("o5 o8")
    assert named(game.hands[0]) == "b2 b3 p2 p3"
    tick(game, seat_1="o6")
    assert named(game.hands[0]) == "b2 b3 p2 p3 p4"
    assert game.phase == TOSS_WINDOW
    assert game.legal_actions(1) == [PASS] and game.legal_actions(2) == [PASS]
    tick(game)
    assert game.phase == PLAY and game.turn == 1
    check_position(game)


def test_the_window_closes_after_a_tick_in_which_all_pass() -> None:
    """Toss window: "the window closes after a tick in which all pass" — even when seats
    still hold fitting cards."""
    game = deal(["o10 b2", "o5 o6", "o7 y2"])
    play(game, "o10", "right")
    tick(game)
    assert game.phase == PLAY and game.turn == 1
    assert named(game.hands[1]) == "o5 o6"


def test_the_window_opens_even_if_nobody_holds_a_fitting_card() -> None:
    """Order within a turn: "it opens whenever the played row has |a − b| ≥ 2, even if nobody
    holds a fitting card: then it is one all-pass tick"."""
    game = deal(["o10 b2", "y5 y6", "p7 b3"])
    play(game, "o10", "right")
    assert game.phase == TOSS_WINDOW
    assert game.legal_actions(1) == [PASS] and game.legal_actions(2) == [PASS]
    tick(game)
    assert game.phase == PLAY and game.turn == 1


def test_tosses_do_not_change_the_row_tops() -> None:
    """Toss window: "Tosses do not change the row tops"."""
    game = deal(["o10 b2", "o5 y6", "o6 b3"])
    play(game, "o10", "right")
    tick(game, seat_1="o5", seat_2="o6")
    assert game.row_tops(0) == (1, 10)
    assert game.rows[0] == ([starter_card(1)], [starter_card(3), card("o10")])


def test_a_tossed_card_must_fit_and_only_one_per_seat_per_tick() -> None:
    """Toss window: each seat tosses "one fitting card" a tick: the legal actions are single
    tosses of fitting cards, or pass."""
    game = deal(["o10 b2", "o5 o6 o11", "y5 y6 y7"], hand_size=3)
    play(game, "o10", "right")
    assert game.legal_actions(1) == tosses("o5", "o6")
    assert toss_action(card("o11")) not in game.legal_actions(1)


# --------------------------------------------------------------------------- penalty pile


def test_an_empty_penalty_pile_is_refilled_by_shuffling_the_tossed_pile() -> None:
    """Penalty pile: "when a draw is needed and it is empty, shuffle the tossed pile into a new
    penalty pile"."""
    refill = cards("o6 o5")  # the new penalty pile, top last: the orange 5 is drawn first
    game = deal(
        ["o10", "o5", "o6", "o7"], hand_size=18, more=[refill]
    )  # 4 × 18 = 72: nothing is left for the penalty pile
    assert game.penalty_pile == []
    play(game, "o10", "right")  # orange 1 | 10
    tick(game, seat_1="o5", seat_2="o6")
    assert game.tossed_pile == []
    assert game.penalty_pile == []
    assert card("o5") in game.hands[0] and card("o6") in game.hands[0]
    assert game.card_lot[card("o5")] == game.card_lot[card("o6")] == 1
    check_position(game)


def test_tossed_cards_stay_aside_while_the_penalty_pile_lasts() -> None:
    """Penalty pile (seed): "Otherwise, keep them aside until the next round"."""
    game = deal(["o10 b2", "o5 y6", "o6 b3"], penalty="p5 p6")
    play(game, "o10", "right")
    tick(game, seat_1="o5")
    tick(game)
    assert game.tossed_pile == cards("o5")
    assert named(game.hands[0]) == "b2 p5"


def test_a_draw_with_both_piles_empty_is_skipped() -> None:
    """Penalty pile: "if both are empty, the draw is skipped"."""
    game = deal(["o2", "o3", "b12", "b16"], hand_size=18)
    play(game, "o2")  # orange 2 | 3
    play(game, "o3", "left")  # orange 3 | 3, orange again: a draw from nothing
    assert len(game.hands[1]) == 17
    assert game.phase == PLAY and game.turn == 2


# --------------------------------------------------------------------------- round end


def test_playing_the_last_card_without_a_toss_ends_the_round() -> None:
    """Round end: "if any seat has no cards the round ends"; each seat adds the points of the
    cards left in its hand."""
    game = deal(["o2", "y9", "p1"], max_rounds=1)
    play(game, "o2")  # orange 2 | 3: no gap
    assert game.totals == [0, 3, 1]
    assert game.outcome is not None and game.outcome.winners == {0}


def test_last_card_played_then_tossed_at_the_player_draws_and_the_round_goes_on() -> None:
    """Seed: "If you play your last card but create a gap that causes others to toss cards at
    you, you must take cards from the penalty pile. The round continues"."""
    game = deal(["o2 o10", "o3 o5", "b13 o6"], penalty="y1 y2 y3")
    play(game, "o2")  # orange 2 | 3
    play(game, "o3", "right")  # orange again: seat 1 draws the yellow 1
    play(game, "b13")  # blue 13 | 14
    play(game, "o10", "right")  # orange 2 | 10: seat 0's hand is empty
    assert game.hands[0] == [] and game.phase == TOSS_WINDOW
    tick(game, seat_1="o5")
    assert named(game.hands[0]) == "y2"  # a draw into an empty hand
    tick(game)
    assert game.rounds_played == 0 and game.turn == 1
    assert named(game.hands[1]) == "y1" and named(game.hands[2]) == "o6"


def test_tossing_ones_last_card_ends_the_round_once_the_player_has_drawn() -> None:
    """Seed: "If you tossed your last card at someone else, they draw from the penalty pile,
    and the round ends once they've drawn"."""
    game = deal(["o2 o10", "o3 o5", "b13 o6"], penalty="y1 y2 y3", max_rounds=1)
    play(game, "o2")
    play(game, "o3", "right")  # seat 1 draws the yellow 1
    play(game, "b13")  # seat 2 keeps the orange 6
    play(game, "o10", "right")
    tick(game, seat_2="o6")  # seat 2's last card
    assert named(game.hands[0]) == "y2" and game.outcome is None
    tick(game)
    assert game.outcome is not None
    assert game.last_round_points == [1, 3, 0]  # yellow 2; orange 5 + yellow 1; nothing


def test_the_end_check_waits_until_the_window_closes() -> None:
    """Order within a turn: the end check is "made once, after the window closes" — a seat
    that tossed its last card still sits through the window, passing."""
    game = deal(["o2 o10", "b13 o5", "y6 o6"], penalty="y1 y2 y3", max_rounds=1)
    play(game, "o2")
    play(game, "b13")
    play(game, "y6")
    play(game, "o10", "right")  # orange 2 | 10
    tick(game, seat_1="o5")
    assert game.hands[1] == [] and game.phase == TOSS_WINDOW and game.rounds_played == 0
    assert game.legal_actions(1) == [PASS]
    tick(game, seat_2="o6")
    assert game.rounds_played == 0
    tick(game)
    assert game.rounds_played == 1 and game.outcome is not None


def test_several_seats_may_finish_at_once_and_a_tie_for_the_lowest_total_shares_the_win() -> None:
    """Round end: "several may finish at once"; game end: "lowest total wins, ties share"."""
    game = deal(["o2 o10", "b13 o5", "y6 o6"], penalty="y1 y9 y3", target=1)
    play(game, "o2")
    play(game, "b13")
    play(game, "y6")
    play(game, "o10", "right")
    tick(game, seat_1="o5", seat_2="o6")  # both toss their last card in the same tick
    assert named(game.hands[0]) == "y1 y9"
    tick(game)
    assert game.last_round_points == [4, 0, 0]
    assert game.outcome is not None and game.outcome.winners == {1, 2}


def test_the_same_colour_draw_after_playing_the_last_card_keeps_the_round_going() -> None:
    """Turn order: "play → same-colour draw → … → end check": a player who empties its hand with
    a repeated colour draws first, so the round goes on."""
    game = deal(["b13 y7", "y6 o9"], penalty="p5")
    play(game, "b13")  # blue 13 | 14
    play(game, "y6")  # yellow 6 | 7
    play(game, "y7")  # yellow 7 | 7: yellow again, seat 0 draws its only card
    assert named(game.hands[0]) == "p5" and game.rounds_played == 0 and game.turn == 1


@pytest.mark.parametrize(
    ("value", "points"),
    [(1, 1), (3, 1), (4, 2), (6, 2), (7, 3), (12, 3), (13, 2), (15, 2), (16, 1), (18, 1)],
)
def test_default_card_points(value: int, points: int) -> None:
    """Card points: values 1–3 and 16–18 → 1, 4–6 and 13–15 → 2, 7–12 → 3."""
    game = deal(["o2", f"b{value}"], max_rounds=1)
    play(game, "o2")
    assert game.totals[1] == points


def test_card_points_is_an_option() -> None:
    """Card points: "[default, the published mapping is unknown]" — `card_points` sets it."""
    custom = tuple(range(1, 19))
    game = deal(["o2", "y9", "p17"], max_rounds=1, card_points=custom)
    play(game, "o2")
    assert game.totals == [0, 9, 17]


# --------------------------------------------------------------------------- game end


def test_the_game_ends_after_a_round_in_which_a_total_reaches_target() -> None:
    """Game end: "after a round in which any seat's total reaches target"; lowest total wins."""
    game = deal(["o2", "y9", "p1"], target=3)
    play(game, "o2")
    assert game.totals == [0, 3, 1]
    assert game.outcome is not None and game.outcome.winners == {0}
    assert game.acting_seats() == () and game.legal_actions(1) == []
    assert game.points() == [0, -3, -1]


def test_a_round_below_target_deals_a_new_round_started_by_the_next_seat() -> None:
    """New round: "reshuffle everything, new starters, the previous round's starting seat + 1
    starts"."""
    round_two = deal_outcomes(["b2", "o9", "p3"], starters="18 16 14 12 7 5 3 1", first_seat=1)
    game = deal(["o2", "y9", "p1"], penalty="y1", more=round_two, target=10)
    play(game, "o2")
    assert game.totals == [0, 3, 1] and game.rounds_played == 1 and game.outcome is None
    assert game.turn == 1 and game.starter == 1 and game.phase == PLAY
    assert [named(hand) for hand in game.hands] == ["b2", "o9", "p3"]
    assert [game.row_tops(colour) for colour in range(4)] == [(18, 16), (14, 12), (7, 5), (3, 1)]
    assert game.tossed_pile == [] and game.previous_colour is None
    assert len(game.penalty_pile) == 72 - 3
    check_position(game)


def test_the_game_ends_after_max_rounds() -> None:
    """Game end: `max_rounds` (default 20) ends the game; the lowest total wins."""
    round_two = deal_outcomes(["b2", "o9", "p3"], first_seat=1)
    game = deal(["o2", "y9", "p1"], more=round_two, max_rounds=2)
    play(game, "o2")
    assert game.outcome is None
    play(game, "o9", "right")  # orange 1 | 9 in round two: a window nobody can use
    tick(game)
    assert game.totals == [1, 3, 2]
    assert game.outcome is not None and game.outcome.winners == {0}
    assert game.outcome.termination is Termination.LIMIT


def test_max_turns_truncates_an_unfinished_game_between_turns() -> None:
    """Option `max_turns`: an unfinished game stops after that many turns (a window ends
    first)."""
    game = deal(["o10 b2", "o5 y6", "b13 b3"], max_turns=1)
    play(game, "o10", "right")
    assert not game.truncated and game.phase == TOSS_WINDOW
    tick(game)
    assert game.truncated and game.acting_seats() == () and game.legal_actions(1) == []


# --------------------------------------------------------------------------- a smaller box


def orange_one_to_five(hands: list[str], laid: str, box: tuple[int, ...]) -> SnailedIt:
    """A game of one orange row and the orange 1 to 5, dealt from a box holding only the
    starters `box`, shuffled into the order `laid` (scripted)."""
    rules = SnailedItOptions(
        num_players=len(hands), hand_size=len(hands[0].split()), colours=1, values=5, starters=box
    )
    return SnailedIt(rules, ScriptedChance(deal_outcomes(hands, laid, deck=rules.deck)))


def test_with_fewer_colours_only_their_rows_are_laid_and_their_cards_dealt() -> None:
    """Option `colours`: "only the first this many rows are laid (orange, yellow, blue, pink) and
    only their number cards are shuffled and dealt"; the starters left over "stay in the box"."""
    game = deal(["o2 y9", "y4 o17"], starters="14 3 18 1 7 12 5 16", colours=2)
    assert len(game.rows) == 2
    assert [game.row_tops(colour) for colour in range(2)] == [(14, 3), (18, 1)]
    assert {COLOUR[c] for c in game.penalty_pile} == {0, 1}
    assert len(game.penalty_pile) == 36 - 4
    check_position(game)


def test_with_fewer_values_each_colour_shows_only_values_up_to_values() -> None:
    """Option `values`: "the number cards of each colour show only the values 1 to `values`":
    one orange row of 1 to 5, a gap of 1 | 5 fits the 2, 3 and 4 in play."""
    game = orange_one_to_five(["o2 o5", "o1 o3"], laid="1 3", box=(1, 3))
    assert named(game.penalty_pile) == "o4"
    play(game, "o5", "right")
    assert game.row_tops(0) == (1, 5) and game.phase == TOSS_WINDOW
    assert game.legal_actions(1) == [toss_action(card("o3")), PASS]
    check_position(game)


def test_the_box_starters_are_shuffled_and_laid_two_a_row_the_rest_stay_in_the_box() -> None:
    """Option `starters`: "they are shuffled and the first two go to the first row (left,
    right) ...; the others stay in the box"."""
    game = orange_one_to_five(["o2", "o4"], laid="7 1 3", box=(1, 3, 7))
    assert game.rows == [([starter_card(7)], [starter_card(1)])]
    assert game.row_tops(0) == (7, 1)
    check_position(game)


def test_the_default_box_is_every_starter_and_number_card() -> None:
    """Options `colours`, `values`, `starters`: by default the whole box is in play, so the
    default game shuffles the same eight starters and 72 number cards as before them."""
    options = SnailedItOptions()
    assert options.deck == tuple(range(72))
    assert options.starters == (1, 3, 5, 7, 12, 14, 16, 18)


# --------------------------------------------------------------------------- hidden information


def test_redraw_hidden_keeps_what_the_seat_sees_and_every_hand_size() -> None:
    """Hidden information: hands and the penalty pile are redrawn from the unseen cards."""
    game = SnailedIt(SnailedItOptions(num_players=4), SeededChance(5))
    for _ in range(3):
        game.apply({game.turn: game.legal_actions(game.turn)[0]})
        while game.phase == TOSS_WINDOW:
            game.apply({seat: game.legal_actions(seat)[0] for seat in game.acting_seats()})
    mine, sizes, rows = sorted(game.hands[2]), [len(h) for h in game.hands], repr(game.rows)
    tossed, penalty = sorted(game.tossed_pile), len(game.penalty_pile)
    others = set()
    for seed in range(10):
        twin = copy.deepcopy(game)
        twin.redraw_hidden(2, SeededChance(seed))
        assert sorted(twin.hands[2]) == mine and repr(twin.rows) == rows
        assert [len(h) for h in twin.hands] == sizes
        assert sorted(twin.tossed_pile) == tossed and len(twin.penalty_pile) == penalty
        check_position(twin)
        others.add(tuple(sorted(twin.hands[0])))
    assert len(others) > 1


def test_redraw_keeps_cards_drawn_from_a_refilled_pile_with_the_seat_that_drew_them() -> None:
    """Hidden information: a penalty pile made of tossed cards has public contents, so the seat
    that drew from it is known to hold them; a redraw keeps that."""
    game = deal(["o10", "o5", "o6", "o7"], hand_size=18, more=[cards("o6 o5")])
    play(game, "o10", "right")
    tick(game, seat_1="o5", seat_2="o6")  # seat 0 draws both back from the refilled pile
    tick(game)
    assert game.turn == 1
    for seed in range(5):
        twin = copy.deepcopy(game)
        twin.redraw_hidden(3, SeededChance(seed))
        assert {card("o5"), card("o6")} <= set(twin.hands[0])
        check_position(twin)


def test_scripted_chance_names_every_outcome() -> None:
    """All chance goes through `Chance`: a deal with too few scripted outcomes fails loudly."""
    with pytest.raises(ValueError, match="ran out"):
        SnailedIt(SnailedItOptions(num_players=3), ScriptedChance([]))
