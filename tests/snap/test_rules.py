"""Snap's rules, one scenario a rule sentence of RULES.md §1, with scripted deals.

Stacks are written top card first. Seat 0's first card is already flipped when a game starts
(flips are not decisions); `tick` plays one tick in which the named seats call and every other
acting seat waits.
"""

from __future__ import annotations

import pytest

from snail_envs.core.chance import SeededChance
from snail_envs.core.game import Termination
from snail_envs.snap.rules import SLAP, SNAP, SNAP_POOL, WAIT, SnapOptions
from tests.snap.helpers import (
    grace_game,
    invariant,
    names,
    scripted_game,
    stack_top_first,
    tick,
    tops,
    wait_out_window,
)

pytestmark = pytest.mark.usefixtures("both_engines")

# --------------------------------------------------------------------------- components, setup


def test_one_pack_for_up_to_six_players_two_packs_above() -> None:
    """One 52-card pack; a second pack when more than six players (decks="auto"); 2–6 players
    with one pack, up to 12 with two."""
    assert SnapOptions(num_players=6).deck_size == 52
    assert SnapOptions(num_players=7).deck_size == 104
    assert SnapOptions(num_players=12).deck_size == 104
    assert SnapOptions(num_players=2, decks=2).deck_size == 104
    with pytest.raises(ValueError, match="from 2 to 6 with one pack"):
        SnapOptions(num_players=7, decks=1)
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 12; got 13"):
        SnapOptions(num_players=13)


def test_the_whole_pack_is_dealt_one_card_at_a_time_from_seat_0() -> None:
    """Deal the whole pack one card at a time from seat 0 (uneven deals allowed); a seat's first
    dealt card is the top of its stack."""
    game = scripted_game([["7♥"], ["K♠", "2♦"], [], [], ["9♠"]], num_players=5)
    assert [game.held(seat) for seat in range(5)] == [11, 11, 10, 10, 10]
    assert tops(game)[0] == "7♥"  # flipped by seat 0 already
    assert stack_top_first(game, 1)[:2] == ["K♠", "2♦"]
    assert stack_top_first(game, 4)[0] == "9♠"
    invariant(game)


def test_flips_are_not_decisions_seat_0_first_then_clockwise() -> None:
    """In clockwise order the active seat turns its stack's top card onto its pile; seat 0
    starts; the environment flips."""
    game = scripted_game([["2♣"], ["3♣"], ["4♣"]], num_players=3)
    assert (game.flips, game.turn, tops(game)) == (1, 0, ["2♣", None, None])
    assert game.acting_seats() == (0, 1, 2)
    wait_out_window(game)
    assert (game.turn, tops(game)) == (1, ["2♣", "3♣", None])
    wait_out_window(game)
    wait_out_window(game)
    assert game.turn == 0 and game.flips == 4


def test_an_empty_stack_is_refreshed_from_the_pile_without_shuffling() -> None:
    """A seat whose stack is empty first turns its pile over (no shuffle) to become its stack:
    the pile's bottom card becomes the stack's top."""
    game = scripted_game(
        [["P1", "P2", "P3"], ["P3", "P1", "P2"]], match_key="picture", pictures=3, copies=2
    )
    for _ in range(5):
        wait_out_window(game)
    assert game.flips == 6 and not game.stacks[0]
    assert names(game, game.piles[0]) == ["P1", "P2", "P3"]
    wait_out_window(game)
    assert game.flips == 7 and tops(game) == ["P1", "P2"]
    assert stack_top_first(game, 0) == ["P2", "P3"]
    invariant(game)


# --------------------------------------------------------------------------- matches, windows


def test_a_match_is_two_pile_tops_of_the_same_rank_suits_ignored() -> None:
    """Match: two or more piles whose top cards share a rank (suits ignored)."""
    game = scripted_game([["7♣"], ["7♥"]])
    assert game.matched_keys() == 0
    wait_out_window(game)
    assert tops(game) == ["7♣", "7♥"] and game.matched_keys() == 1 << 6


def test_every_seat_in_the_game_acts_each_tick_the_flipper_included() -> None:
    """All seats still in the game may call, the flipper included (flipper_may_call=True)."""
    game = scripted_game([["7♣"], ["7♥"]], num_players=3)
    wait_out_window(game)
    assert game.turn == 1 and game.acting_seats() == (0, 1, 2)
    tick(game, {1: SNAP})  # the flipper snaps its own match
    assert game.last_correct[1] and game.held(1) == 17 + 1


def test_flipper_may_call_false_leaves_the_last_flipper_wait_alone() -> None:
    """RULES.md: "for the last flipper with `flipper_may_call=False`, whose mask is `wait` alone
    (it acts, as every seat in the game does each tick; since `snap_v1`)"."""
    game = scripted_game([["7♣"], ["7♥"]], num_players=3, flipper_may_call=False)
    assert game.acting_seats() == (0, 1, 2) and game.legal_actions(0) == (WAIT,)
    assert not game.may_call(0) and game.may_call(1)
    wait_out_window(game)
    assert game.acting_seats() == (0, 1, 2) and game.legal_actions(1) == (WAIT,)
    assert game.legal_actions(0) == (WAIT, SNAP) and not game.may_call(1)


def test_a_window_lasts_reaction_ticks_when_something_is_claimable() -> None:
    """The window lasts up to reaction_ticks ticks; if nobody calls, the next flip follows."""
    game = scripted_game([["7♣"], ["7♥"]], reaction_ticks=5)
    wait_out_window(game)
    assert game.window_length == 5
    for expected_tick in range(1, 5):
        tick(game)
        assert (game.flips, game.window_tick) == (2, expected_tick)
    tick(game)
    assert game.flips == 3 and game.ticks == 1 + 5


def test_a_window_is_one_tick_when_nothing_is_claimable() -> None:
    """When no match and no pool match is visible, the window is one tick."""
    game = scripted_game([["7♣"], ["8♥"]])
    assert game.window_length == 1
    tick(game)
    assert game.flips == 2 and game.window_length == 1


def test_the_first_tick_with_a_call_resolves_the_window() -> None:
    """The first tick in which any seat calls resolves it; later ticks are not played."""
    game = scripted_game([["7♣"], ["7♥"]])
    wait_out_window(game)
    tick(game)
    tick(game, {0: SNAP})
    assert game.ticks == 3 and game.flips == 3  # tick 2 of the window was never played
    assert game.held(0) == 26 + 1


def test_reaction_delay_lets_a_seat_call_only_from_its_delay_on() -> None:
    """reaction_delay adds ticks to a seat's calls: with delay 1 it may only wait at tick 0."""
    game = scripted_game([["7♣"], ["7♥"]], reaction_delay=(0, 1))
    wait_out_window(game)
    assert game.legal_actions(0) == (WAIT, SNAP) and game.legal_actions(1) == (WAIT,)
    assert game.may_call(0) and not game.may_call(1)
    tick(game)
    assert game.legal_actions(1) == (WAIT, SNAP) and game.may_call(1)


@pytest.mark.parametrize(("delays", "tie"), [((0, 0), True), ((0, 1), False)])
def test_reaction_delay_turns_a_same_tick_call_into_a_loss(delays: tuple, tie: bool) -> None:
    """Both seats call as fast as they can: equal reflexes tie (classic: the piles go to the
    pool); with a delay of one tick, seat 1's call comes a tick late and seat 0 wins alone."""
    game = scripted_game([["7♣"], ["7♥"]], reaction_delay=delays)
    wait_out_window(game)
    tick(game, {0: SNAP, 1: SNAP} if tie else {0: SNAP})
    if tie:
        assert names(game, game.pools[0]) == ["7♣", "7♥"]
    else:
        assert not game.pools and game.held(0) == 28 - 1 and game.held(1) == 25


def test_a_new_window_opens_without_a_flip_while_a_match_remains() -> None:
    """After a resolution, if another pile-to-pile match is still visible, a new window opens
    without a flip; with several matched ranks a snap is for the rank of the last flipped card
    if it still shows, otherwise for the lowest matched rank."""
    game = scripted_game([["9♣"], ["9♥"], ["4♣"], ["4♥"]], num_players=4)
    for _ in range(3):
        wait_out_window(game)
    assert tops(game) == ["9♣", "9♥", "4♣", "4♥"]
    tick(game, {0: SNAP})
    assert tops(game) == ["9♣", "9♥", None, None]  # the 4s, just flipped, were taken
    assert game.reopened and game.flips == 4 and game.window_tick == 0
    tick(game, {1: SNAP})
    assert game.flips == 5 and tops(game)[1:] == [None, None, None]
    assert game.held(1) == 13 + 1 and not game.reopened


def test_a_snap_with_the_last_flip_unmatched_is_for_the_lowest_matched_rank() -> None:
    game = scripted_game([["9♣"], ["9♥"], ["4♣"], ["4♥"], ["K♣"]], num_players=5)
    for _ in range(4):
        wait_out_window(game)
    assert tops(game) == ["9♣", "9♥", "4♣", "4♥", "K♣"]
    tick(game, {0: SNAP})
    assert tops(game) == ["9♣", "9♥", None, None, "K♣"]


def test_a_pool_match_alone_does_not_reopen_a_window() -> None:
    """A pool match alone does not reopen a window."""
    game = scripted_game([["K♣", "2♣"], ["K♥"], ["5♦"]], num_players=3)
    tick(game, {0: SNAP})  # wrong: K♣ goes to the pool
    assert names(game, game.pools[0]) == ["K♣"]
    assert tops(game) == [None, "K♥", None] and game.claimable_pools() == [0]
    tick(game, {2: SNAP})  # wrong again; the pool match still shows but opens no window
    assert game.flips == 3 and not game.reopened


# --------------------------------------------------------------------------- resolution


def test_one_correct_snap_takes_both_piles_under_the_stack_in_seat_order() -> None:
    """One correct snap: the caller takes the matching piles and puts them face down under its
    stack, piles in ascending seat order. The next flipper is the seat left of the last
    flipper, not the caller."""
    game = scripted_game([["7♣", "2♠"], ["7♥"]])
    wait_out_window(game)
    tick(game, {1: SNAP})
    assert stack_top_first(game, 1)[-2:] == ["7♣", "7♥"]
    assert game.held(1) == 27 and game.turn == 0 and tops(game) == ["2♠", None]
    invariant(game)


def test_the_caller_does_not_flip_next() -> None:
    """Next flipper after a snap: the seat left of the last flipper; the caller does not flip."""
    game = scripted_game([["5♣"], ["5♥"], ["9♣"]], num_players=3)
    wait_out_window(game)
    tick(game, {0: SNAP})
    assert game.turn == 2 and tops(game) == [None, None, "9♣"]


def test_a_three_way_match_is_taken_whole() -> None:
    """The caller takes every pile whose top shows the matched rank (all of them on a
    three-way match)."""
    game = scripted_game([["7♣"], ["7♥"], ["7♠"]], num_players=3)
    wait_out_window(game)
    wait_out_window(game)  # nobody calls the 7♣/7♥ match
    assert tops(game) == ["7♣", "7♥", "7♠"]
    tick(game, {0: SNAP})
    assert stack_top_first(game, 0)[-3:] == ["7♣", "7♥", "7♠"]
    assert game.held(0) == 18 + 2


def test_classic_tie_sends_the_matched_piles_to_the_pool() -> None:
    """classic: two or more correct snaps in one tick tie, and the matched piles go to the
    centre as a pool, in ascending seat order (the highest seat's pile on top)."""
    game = scripted_game([["2♦"], ["7♥"], ["7♣"]], num_players=3)
    wait_out_window(game)
    wait_out_window(game)
    tick(game, {0: SNAP, 2: SNAP})
    assert names(game, game.pools[0]) == ["7♥", "7♣"]
    assert tops(game)[1:] == [None, None] and game.turn == 0 and len(game.piles[0]) == 2
    invariant(game)


def test_snap_pot_tie_sends_the_tied_callers_piles_and_leaves_the_match() -> None:
    """snap_pot: the tied callers' piles form a new pot; matched piles owned by others stay, so
    the match still shows and a new window opens."""
    game = scripted_game(
        [["4♣", "7♣"], ["5♣", "7♥"], ["K♠"], ["2♦"]], num_players=4, ruleset="snap_pot"
    )
    for _ in range(5):
        wait_out_window(game)
    assert tops(game) == ["7♣", "7♥", "K♠", "2♦"]
    tick(game, {2: SNAP, 3: SNAP})
    assert [names(game, pot) for pot in game.pools] == [["K♠", "2♦"]]
    assert tops(game) == ["7♣", "7♥", None, None]
    assert game.reopened and game.flips == 6
    invariant(game)


def test_classic_wrong_snap_sends_the_callers_pile_onto_the_pool() -> None:
    """A wrong snap (no match visible): the caller's own pile goes to the centre; a new pool
    set goes on top of the existing pool (classic)."""
    game = scripted_game([["7♣"], ["K♥"]])
    tick(game, {0: SNAP})
    assert names(game, game.pools[0]) == ["7♣"] and not game.last_correct[0]
    tick(game, {1: SNAP})
    assert names(game, game.pools[0]) == ["7♣", "K♥"]
    assert game.in_game == [True, True]


def test_snap_pot_wrong_snaps_make_pots_merged_by_top_rank() -> None:
    """snap_pot keeps several pots and merges a new pot into an existing one whose top rank
    equals the new top; no two pots show the same rank."""
    game = scripted_game([["K♣", "5♣", "9♣"], ["3♣", "K♦"]], ruleset="snap_pot")
    tick(game, {0: SNAP})
    tick(game)
    tick(game)
    assert tops(game) == ["5♣", "K♦"]
    assert game.window_length == 3  # K♦ matches the pot's K♣
    tick(game, {1: SNAP})  # wrong: no pile-to-pile match
    assert [names(game, pot) for pot in game.pools] == [["K♣", "3♣", "K♦"]]
    assert tops(game) == ["9♣", None]
    tick(game, {0: SNAP})
    assert [names(game, pot) for pot in game.pools] == [["K♣", "3♣", "K♦"], ["5♣", "9♣"]]
    invariant(game)


def test_several_wrong_calls_move_piles_in_seat_order() -> None:
    """Wrong calls apply in seat order, each moving the caller's pile as it is then."""
    game = scripted_game([["7♣"], ["K♥"], ["2♦"]], num_players=3)
    wait_out_window(game)
    wait_out_window(game)
    tick(game, {2: SNAP, 0: SNAP})
    assert names(game, game.pools[0]) == ["7♣", "2♦"]


def test_under_v1s_wrong_call_cost_an_empty_pile_moves_nothing_but_ends_the_window() -> None:
    """RULES.md: "`snap_v1` and `wrong_call_cost="pile"`: a wrong call from an empty pile moved
    nothing", and "A resolution that moves no card ends the window; the next flip follows"
    (since `snap_v1`): the 7-7 match still shows, but no window reopens on the same table."""
    game = scripted_game(
        [["7♣"], ["7♥"], ["2♦"]], num_players=3, slapjack=True, wrong_call_cost="pile"
    )
    wait_out_window(game)
    tick(game, {2: SLAP})
    assert not game.pools and game.last_calls[2] == SLAP and not game.last_correct[2]
    assert not game.reopened and game.flips == 3 and tops(game) == ["7♣", "7♥", "2♦"]


def test_classic_snap_pool_needs_the_card_just_flipped() -> None:
    """classic: snap_pool is correct when the card just flipped matches the pool's top card;
    the caller wins the pool (not the pile). An older pile top is no claim: a wrong
    snap_pool is a wrong call."""
    game = scripted_game([["K♣"], ["K♥"], ["2♣"]], num_players=3)
    tick(game, {0: SNAP})  # wrong: the pool is [K♣]; seat 1 flips K♥
    assert tops(game) == [None, "K♥", None] and game.claimable_pools() == [0]
    assert game.window_length == 3 and game.legal_actions(1) == (WAIT, SNAP, SNAP_POOL)
    wait_out_window(game)  # nobody claims; seat 2 flips 2♣
    assert tops(game) == [None, "K♥", "2♣"] and game.claimable_pools() == []
    assert game.window_length == 1
    tick(game, {1: SNAP_POOL})
    assert names(game, game.pools[0]) == ["K♣", "K♥"] and not game.last_correct[1]


def test_classic_snap_pool_wins_the_pool_only() -> None:
    game = scripted_game([["K♣"], ["K♥"]], num_players=3)
    tick(game, {0: SNAP})
    tick(game, {2: SNAP_POOL})
    assert game.last_correct[2] and not game.pools
    assert stack_top_first(game, 2)[-1] == "K♣" and tops(game)[1] == "K♥"


def test_snap_pot_snap_pool_counts_any_pile_top_and_takes_the_pile() -> None:
    """snap_pot: a pile top matching a pot's top is a claim, whenever it was flipped; the
    caller takes the pot and the matching pile (pools first, then piles)."""
    game = scripted_game([["K♣"], ["K♥"], ["2♣"]], num_players=3, ruleset="snap_pot")
    tick(game, {0: SNAP})
    wait_out_window(game)
    assert tops(game) == [None, "K♥", "2♣"] and game.claimable_pools() == [0]
    tick(game, {0: SNAP_POOL})
    assert not game.pools and stack_top_first(game, 0)[-2:] == ["K♣", "K♥"]


def test_snap_pot_snap_pool_wins_every_claimable_pot() -> None:
    """snap_pot: one correct snap_pool wins every claimable pot, each with the piles matching
    it; captured cards go under the stack pools first, then piles in ascending seat order."""
    game = scripted_game([["K♣", "9♥"], ["9♣"], ["K♥"], ["5♦"]], num_players=4, ruleset="snap_pot")
    tick(game, {0: SNAP})
    tick(game, {1: SNAP})
    assert [names(game, pot) for pot in game.pools] == [["K♣"], ["9♣"]]
    wait_out_window(game)  # K♥ on seat 2 matches the K pot; nobody claims
    wait_out_window(game)  # seat 3 flips 5♦, then seat 0 flips 9♥
    assert tops(game) == ["9♥", None, "K♥", "5♦"]
    assert game.claimable_pools() == [0, 1]
    tick(game, {3: SNAP_POOL})
    assert not game.pools
    assert stack_top_first(game, 3)[-4:] == ["K♣", "9♣", "9♥", "K♥"]
    invariant(game)


def test_two_correct_snap_pools_in_one_tick_win_nothing() -> None:
    """Two or more correct snap_pool calls in one tick: nobody wins, nothing moves."""
    game = scripted_game([["K♣"], ["K♥"]], num_players=3)
    tick(game, {0: SNAP})
    tick(game, {0: SNAP_POOL, 2: SNAP_POOL})
    assert names(game, game.pools[0]) == ["K♣"] and tops(game)[1] == "K♥"
    assert game.last_correct[0] and game.last_correct[2]


def test_snap_pool_is_masked_out_only_while_no_pool_exists() -> None:
    """snap_pool is masked out while no pool exists; snap and wait are always legal."""
    game = scripted_game([["K♣"], ["2♥"]])
    assert game.legal_actions(0) == game.legal_actions(1) == (WAIT, SNAP)
    tick(game, {0: SNAP})
    assert game.legal_actions(0) == game.legal_actions(1) == (WAIT, SNAP, SNAP_POOL)


def test_calls_are_judged_at_the_start_of_the_tick_and_applied_in_order() -> None:
    """Every call of a tick is judged against the table at its start; effects apply in order:
    a correct snap_pool, then correct snaps, then wrong calls (each moving the caller's pile as
    it is at that moment: seat 1's pile is taken by the snap first, so its wrong slap costs the
    top card of its stack)."""
    game = scripted_game([["K♣", "2♣"], ["5♣", "K♥"], ["K♠"]], num_players=3, slapjack=True)
    tick(game, {0: SNAP})  # pool [K♣]
    tick(game)  # seat 1 flips 5♣
    wait_out_window(game)  # seat 2 flips K♠: a claim nobody makes
    tick(game)  # seat 0 flips 2♣
    assert tops(game) == ["2♣", "K♥", "K♠"] and game.claimable_pools() == [0]
    stack_top = stack_top_first(game, 1)[0]
    tick(game, {0: SNAP_POOL, 1: SLAP, 2: SNAP})
    assert game.last_correct == [True, False, True]
    assert game.last_gain == [1, -3, 2]
    assert stack_top_first(game, 2)[-3:] == ["5♣", "K♥", "K♠"]
    assert [names(game, pool) for pool in game.pools] == [[stack_top]]
    invariant(game)


def test_a_snap_is_for_the_rank_judged_at_the_start_of_the_tick() -> None:
    """snap_pot: the snap_pool winner takes the K piles first; the snap, judged for the Ks at
    the start of the tick (the last flip), then takes nothing, and the 9s stay matched."""
    game = scripted_game([["K♣", "K♦"], ["9♣"], ["K♥"], ["9♥"]], num_players=4, ruleset="snap_pot")
    tick(game, {0: SNAP})  # wrong: the pot [K♣]
    for _ in range(3):
        wait_out_window(game)
    assert tops(game) == ["K♦", "9♣", "K♥", "9♥"] and game.snap_key(game.matched_keys()) == 12
    tick(game, {1: SNAP_POOL, 3: SNAP})
    assert game.last_correct == [False, True, False, True]
    assert tops(game) == [None, "9♣", None, "9♥"] and game.reopened
    assert game.last_gain == [-1, 3, -1, 0]


# --------------------------------------------------------------------------- going out, the end


def test_classic_a_seat_is_out_when_stack_and_pile_are_empty_and_the_last_seat_wins() -> None:
    """classic: out as soon as stack and pile are both empty; the game ends when one seat is
    left, and that seat wins."""
    game = scripted_game(
        [["P1", "P2", "P3"], ["P3", "P1", "P2"]], match_key="picture", pictures=3, copies=2
    )
    for _ in range(4):
        wait_out_window(game)
    assert game.turn == 0 and not game.stacks[0]
    tick(game, {0: SNAP})
    assert game.in_game == [False, True]
    assert game.outcome is not None and game.outcome.winners == {1}
    assert game.acting_seats() == () and game.legal_actions(1) == ()


@pytest.mark.parametrize("ruleset", ["classic", "snap_pot"])
def test_a_tie_that_empties_the_last_seats_is_a_draw(ruleset: str) -> None:
    """If the last seats go out together (classic), or no seat in the game holds a card
    (snap_pot), it is a draw shared by those seats."""
    deal = [["P1", "P2", "P3"], ["P1", "P2", "P3"]]
    game = scripted_game(deal, match_key="picture", pictures=3, copies=2, ruleset=ruleset)
    for _ in range(5):
        wait_out_window(game)
    assert tops(game) == ["P3", "P3"] and not any(game.stacks)
    tick(game, {0: SNAP, 1: SNAP})
    assert game.outcome is not None and game.outcome.winners == {0, 1}
    expected_in = [False, False] if ruleset == "classic" else [True, True]
    assert game.in_game == expected_in
    assert game.outcome.termination is Termination.DRAW


def test_snap_pot_grace_a_seat_without_cards_may_win_cards_before_its_turn() -> None:
    """snap_pot: a seat with no cards may still win cards until its next turn."""
    game = grace_game()
    tick(game, {2: SNAP})
    assert game.held(2) == 4 and game.in_game[2]
    assert not game.in_game[1]  # seat 1's turn came with no cards: out at once
    assert game.turn == 2 and game.outcome is None
    invariant(game)


def test_snap_pot_grace_ends_at_the_seats_turn_with_nothing_to_flip() -> None:
    """snap_pot: if it then has nothing to flip, it is out."""
    game = grace_game()
    wait_out_window(game)
    assert game.turn == 1 and game.in_game[2]
    wait_out_window(game)
    assert not game.in_game[2] and game.turn == 0 and game.outcome is None
    invariant(game)


# --------------------------------------------------------------------------- variants


def test_speed_every_seat_flips_at_once() -> None:
    """speed: every seat flips at once each round of flips."""
    game = scripted_game([["7♣", "2♣"], ["7♥", "3♣"], ["9♦", "4♣"]], num_players=3, speed=True)
    assert game.flips == 3 and tops(game) == ["7♣", "7♥", "9♦"]
    assert game.flippers == (0, 1, 2) and game.acting_seats() == (0, 1, 2)
    tick(game, {2: SNAP})
    assert game.flips == 6 and tops(game) == ["2♣", "3♣", "4♣"]
    assert game.held(2) == 17 + 2


@pytest.mark.parametrize(("caller", "gifts"), [(2, ["2♣", "3♣"]), (1, ["2♣"])])
def test_double_every_other_owner_of_a_taken_pile_gives_its_stack_top(
    caller: int, gifts: list[str]
) -> None:
    """double: on a correct snap, every other owner of a captured pile also gives the caller
    the top card of its stack."""
    game = scripted_game([["7♣", "2♣"], ["7♥", "3♣"]], num_players=3, double=True)
    wait_out_window(game)
    tick(game, {caller: SNAP})
    assert stack_top_first(game, caller)[-2 - len(gifts) :] == ["7♣", "7♥", *gifts]
    invariant(game)


def test_single_pile_flips_onto_one_central_pile() -> None:
    """single_pile: one central pile; a match is the top card equal in rank to the card just
    below; the winner takes the pile."""
    game = scripted_game([["7♣", "7♦"], ["K♥", "2♠"]], single_pile=True)
    assert names(game, game.piles[-1]) == ["7♣"] and game.window_length == 1
    wait_out_window(game)
    wait_out_window(game)
    assert names(game, game.piles[-1]) == ["7♣", "K♥", "7♦"] and game.window_length == 1
    wait_out_window(game)
    wait_out_window(game)
    game = scripted_game([["7♣"], ["7♥"]], single_pile=True)
    wait_out_window(game)
    assert game.window_length == 3
    tick(game, {0: SNAP})
    assert stack_top_first(game, 0)[-2:] == ["7♣", "7♥"]
    assert game.held(0) == 27 - 1 and len(game.piles[-1]) == 1  # seat 0 flipped next


def test_single_pile_an_empty_stack_is_out() -> None:
    """single_pile: with no pile of its own, a seat with no card to flip at the close of a
    window is out (here under `wrong_call_cost="pile"`, `snap_v1`'s rule, where a seat's wrong
    call in single_pile moves nothing)."""
    game = scripted_game(
        [["P1", "P2", "P3"], ["P3", "P1", "P2"]],
        match_key="picture",
        pictures=3,
        copies=2,
        single_pile=True,
        wrong_call_cost="pile",
    )
    tick(game, {1: SNAP})
    assert not game.pools and game.flips == 2
    for _ in range(3):
        wait_out_window(game)
    assert game.flips == 5 and not game.stacks[0] and game.in_game[0]
    tick(game)
    assert game.in_game == [False, True] and game.outcome.winners == {1}


def test_slapjack_a_jack_may_be_slapped() -> None:
    """slapjack: a Jack on any pile top may be slapped; the first slapper takes that pile; a
    wrong slap is a wrong call; two slaps in one tick win nothing."""
    game = scripted_game([["J♣", "2♣"], ["4♥"]], slapjack=True)
    assert game.window_length == 3 and game.legal_actions(1) == (WAIT, SNAP, SLAP)
    tick(game, {1: SLAP})
    assert game.held(1) == 27 and stack_top_first(game, 1)[-1] == "J♣"
    game = scripted_game([["J♣"], ["4♥"]], slapjack=True)
    tick(game, {0: SLAP, 1: SLAP})
    assert tops(game) == ["J♣", "4♥"] and not game.pools
    tick(game, {1: SLAP})  # the Jack is still showing on seat 0's pile
    game = scripted_game([["7♣"], ["4♥"]], slapjack=True)
    tick(game, {0: SLAP})
    assert names(game, game.pools[0]) == ["7♣"]


def test_slapjack_a_snap_of_two_jacks_comes_before_the_slap() -> None:
    game = scripted_game([["J♣"], ["J♥"]], slapjack=True)
    wait_out_window(game)
    tick(game, {0: SLAP, 1: SNAP})
    assert game.held(1) == 27 and game.held(0) == 25 and game.last_correct == [True, True]
    assert game.last_gain == [-1, 1]


def test_picture_decks_match_identical_pictures() -> None:
    """match_key="picture": a deck of P pictures × k copies; match = same picture."""
    options = SnapOptions(match_key="picture", pictures=10, copies=3)
    assert options.deck_size == 30 and options.num_keys == 10
    game = scripted_game([["P4"], ["P4"]], match_key="picture", pictures=10, copies=3)
    wait_out_window(game)
    assert game.window_length == 3
    tick(game, {1: SNAP})
    assert game.held(1) == 15 + 1


# --------------------------------------------------------------------------- limits, hidden cards


def test_max_flips_stops_the_game_before_the_next_flip() -> None:
    game = scripted_game([["7♣"], ["7♥"]], max_flips=2)
    wait_out_window(game)
    assert not game.truncated
    tick(game)
    tick(game)
    assert not game.truncated
    tick(game)
    assert game.truncated and game.flips == 2 and game.acting_seats() == ()
    assert game.outcome is None


def test_max_ticks_stops_the_game_after_that_many_ticks() -> None:
    game = scripted_game([["7♣"], ["7♥"]], max_ticks=2)
    tick(game)
    assert not game.truncated
    tick(game)
    assert game.truncated and game.acting_seats() == () and game.legal_actions(0) == ()


def test_redraw_hidden_shuffles_only_never_seen_stack_cards() -> None:
    """Nobody sees any stack's order: a redraw shuffles the never-seen cards among the stack
    places that hold them, keeping every size and every seen card in place."""
    game = scripted_game([["7♣", "2♠"], ["7♥"]])
    wait_out_window(game)
    tick(game, {1: SNAP})  # 7♣ and 7♥ are now, seen, at the bottom of seat 1's stack
    before = [list(stack) for stack in game.stacks]
    seen_places = {
        (seat, i): card
        for seat, stack in enumerate(before)
        for i, card in enumerate(stack)
        if not game.hidden_group[card]
    }
    assert len(seen_places) == 2
    variants = set()
    for seed in range(5):
        twin = scripted_game([["7♣", "2♠"], ["7♥"]])
        wait_out_window(twin)
        tick(twin, {1: SNAP})
        twin.redraw_hidden(0, SeededChance(seed))
        after = [list(stack) for stack in twin.stacks]
        assert [len(s) for s in after] == [len(s) for s in before]
        assert sorted(c for s in after for c in s) == sorted(c for s in before for c in s)
        assert all(after[seat][i] == card for (seat, i), card in seen_places.items())
        assert twin.piles == game.piles and twin.pools == game.pools
        variants.add(tuple(map(tuple, after)))
    assert len(variants) == 5


def test_action_descriptions() -> None:
    game = scripted_game([["7♣"], ["7♥"]])
    assert [game.describe_action(0, a) for a in range(4)] == [
        "wait",
        "call snap",
        "call snap pool",
        "slap a Jack",
    ]
    pot = scripted_game([["7♣"], ["7♥"]], ruleset="snap_pot")
    assert pot.describe_action(0, SNAP_POOL) == "call snap pot"
