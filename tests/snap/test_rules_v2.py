"""The rules changed in `snap_v2`, one scenario a changed sentence of RULES.md §1, each played on
the reference rules and on the compiled twin (`both_engines`). Under `snap_v1`'s rules each of
them fails: a wrong call from an empty pile or in `single_pile` was free, a shared result paid
+1 to every sharer, and a limit could only truncate.

Stacks are written top card first; seat 0's first card is already flipped when a game starts.
"""

from __future__ import annotations

import pytest

import snail_envs
from snail_envs.core import host
from snail_envs.core.chance import ScriptedChance
from snail_envs.core.game import Termination
from snail_envs.snap.rules import SEEN, SNAP, SNAP_POOL, WAIT, SnapOptions
from tests.names import SNAP as SNAP_ENV
from tests.snap.helpers import (
    deck_order,
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


# --------------------------------------------------------------------------- wrong calls


def test_a_wrong_call_from_an_empty_pile_costs_the_top_card_of_the_stack() -> None:
    """RULES.md: "A wrong call costs the caller cards, always: its pile goes to the centre; if
    its pile is empty, the top card of its stack goes to the centre instead, face up, as its
    pool/pot (`wrong_call_cost="pile_or_stack"` [default since `snap_v2`]; the card is seen by
    all as it goes)"."""
    game = scripted_game([["7♣"], ["2♥", "9♠"]])
    assert not game.piles[1] and game.held(1) == 26
    tick(game, {1: SNAP})
    assert [names(game, pool) for pool in game.pools] == [["2♥"]]
    assert game.last_gain == [0, -1] and game.held(1) == 25
    assert game.hidden_group[game.pools[0][0]] == SEEN
    assert game.flips == 2 and tops(game) == ["7♣", "9♠"]  # the call ended the window
    invariant(game)


def test_a_stack_card_paid_in_snap_pot_goes_on_the_pot_showing_its_key() -> None:
    """snap_pot: the card goes to the centre "as its pot": on the pot whose top shares its key,
    as every set sent to the centre does."""
    game = scripted_game([["2♦"], ["9♣"], ["2♥"]], num_players=3, ruleset="snap_pot")
    tick(game, {0: SNAP})  # wrong, from a pile: the pot [2♦]; seat 1 flips 9♣
    assert not game.piles[2] and stack_top_first(game, 2)[0] == "2♥"
    tick(game, {2: SNAP})
    assert [names(game, pot) for pot in game.pools] == [["2♦", "2♥"]]
    assert game.last_gain == [0, 0, -1]
    invariant(game)


def test_a_wrong_snap_pool_costs_the_same() -> None:
    """ "The same cost applies to a wrong `snap_pool` and a wrong `slap`"."""
    game = scripted_game([["7♣", "3♦"], ["4♥"], ["K♠"]], num_players=3, slapjack=True)
    tick(game, {0: SNAP})  # wrong, from a pile: the pool [7♣]; seat 1 flips 4♥
    assert not game.piles[2] and game.legal_actions(2) == (WAIT, SNAP, SNAP_POOL, 3)
    tick(game, {2: SNAP_POOL})
    assert names(game, game.pools[0]) == ["7♣", "K♠"] and game.last_gain == [0, 0, -1]
    tick(game, {0: 3})  # a wrong slap from seat 0's empty pile; seat 0 flipped nothing since
    assert names(game, game.pools[0]) == ["7♣", "K♠", "3♦"] and game.held(0) == 16


def test_only_a_seat_with_no_card_pays_nothing() -> None:
    """ "Only a seat with no card at all (a `snap_pot` seat in grace) pays nothing. The call
    still ends the window": the P1 match still shows, and the next flip follows."""
    game = grace_game()
    pots = [list(pot) for pot in game.pools]
    flips = game.flips
    tick(game, {2: SNAP_POOL})  # wrong: no pile shows the pot's key
    assert not game.last_correct[2] and game.last_gain[2] == 0 and game.held(2) == 0
    assert game.pools == pots and game.flips == flips + 1
    invariant(game)


def test_single_pile_a_wrong_call_burns_the_top_card_of_the_stack_under_the_pile() -> None:
    """RULES.md: "`single_pile` [...] A wrong call puts the top card of the caller's stack face
    up **under** the central pile (the usual "burn" of one-pile slapping games) [default since
    `snap_v2`]"."""
    game = scripted_game([["7♣", "K♦"], ["2♥", "3♠"]], single_pile=True)
    wait_out_window(game)  # seat 1 flips 2♥: the centre is 7♣, 2♥
    tick(game, {0: SNAP})
    assert game.last_gain == [-1, 0]
    assert names(game, game.piles[-1])[:3] == ["K♦", "7♣", "2♥"]
    assert game.hidden_group[game.piles[-1][0]] == SEEN
    assert game.held(0) == 26 - 3 and len(game.piles[-1]) == 4  # seat 0 flipped next
    invariant(game)


def test_single_pile_a_card_burnt_under_a_single_card_can_make_a_match() -> None:
    """Under a central pile of one card the burnt card is the card just below its top: when
    they share a key, the resolution moved a card and a match shows, so a window reopens."""
    game = scripted_game([["7♣"], ["7♥"]], single_pile=True)
    assert names(game, game.piles[-1]) == ["7♣"]
    tick(game, {1: SNAP})
    assert names(game, game.piles[-1]) == ["7♥", "7♣"] and game.reopened and game.flips == 1
    tick(game, {0: SNAP})
    assert game.held(0) == 26 + 1 and game.last_gain == [2, 0]
    invariant(game)


def test_wrong_call_cost_pile_is_v1s_rule() -> None:
    """`wrong_call_cost="pile"` keeps `snap_v1`'s rule: from an empty pile, and in
    `single_pile`, a wrong call moves nothing."""
    game = scripted_game([["7♣"], ["2♥"]], wrong_call_cost="pile")
    tick(game, {1: SNAP})
    assert not game.pools and game.held(1) == 26
    game = scripted_game([["7♣"], ["2♥"]], single_pile=True, wrong_call_cost="pile")
    tick(game, {1: SNAP})
    assert names(game, game.piles[-1]) == ["7♣", "2♥"] and game.held(1) == 25


# --------------------------------------------------------------------------- limits


def test_at_limit_most_cards_ends_the_game_won_by_the_most_cards() -> None:
    """RULES.md: "`most_cards` — the game ends there (termination, not truncation), won by the
    seat(s) in the game holding the most cards (stack + pile; pools count for nobody)"."""
    game = scripted_game([["2♣"], ["4♥"]], max_flips=2, at_limit="most_cards")
    tick(game, {1: SNAP})  # wrong: 4♥ goes to the pool, seat 1 holds 25; seat 1 flips
    wait_out_window(game)
    assert game.outcome is not None and not game.truncated
    assert game.outcome.winners == {0} and game.outcome.termination is Termination.LIMIT
    assert game.flips == 2 and [game.held(seat) for seat in (0, 1)] == [26, 25]


def test_at_limit_most_cards_shares_a_tie_and_truncate_stops() -> None:
    """A tie for the most cards is a result shared by the tied seats; with `at_limit` left at
    "truncate" the same game is truncated, won by nobody."""
    game = scripted_game([["2♣"], ["4♥"]], max_flips=2, at_limit="most_cards")
    wait_out_window(game)
    wait_out_window(game)
    assert game.outcome is not None and game.outcome.winners == {0, 1} and game.outcome.shared
    game = scripted_game([["2♣"], ["4♥"]], max_flips=2)
    wait_out_window(game)
    wait_out_window(game)
    assert game.outcome is None and game.truncated


def test_at_limit_applies_to_max_ticks_too() -> None:
    game = scripted_game([["2♣"], ["4♥"]], max_ticks=1, at_limit="most_cards")
    tick(game, {0: SNAP})
    assert game.outcome is not None and game.outcome.winners == {1}
    assert game.outcome.termination is Termination.LIMIT


# --------------------------------------------------------------------------- shared results


def _returns(env: object, policy: dict[str, int]) -> dict[str, float]:
    """Each seat's return over one episode of a parallel env in which every seat always plays
    its action of `policy` when legal (else waits)."""
    observations, _ = env.reset(seed=0)  # type: ignore[attr-defined]
    totals = dict.fromkeys(env.possible_agents, 0.0)  # type: ignore[attr-defined]
    while env.agents:  # type: ignore[attr-defined]
        actions = {
            agent: policy[agent] if observations[agent]["action_mask"][policy[agent]] else WAIT
            for agent in env.agents  # type: ignore[attr-defined]
        }
        observations, rewards, *_ = env.step(actions)  # type: ignore[attr-defined]
        for agent, reward in rewards.items():
            totals[agent] += reward
    return totals


def test_a_shared_session_pays_as_a_draw() -> None:
    """RULES.md: "A shared session pays as a draw [default since `snap_v2`]: with
    `reward="winlose"` [...] when two or more seats share it, each sharer gets 0" — two seats
    that always wait: every game truncates, the sudden deaths too, and the session is shared."""
    env = snail_envs.make_parallel(SNAP_ENV, session="best_of_3", max_flips=20)
    assert _returns(env, {"player_0": WAIT, "player_1": WAIT}) == {
        "player_0": 0.0,
        "player_1": 0.0,
    }
    game = env.unwrapped.game
    assert game.outcome.winners == {0, 1} and game.outcome.termination is Termination.SESSION
    assert game.games_played == 3 + 3


def test_a_shared_result_pays_minus_one_to_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "each sharer gets 0 and every other seat −1": three seats, two of them tied for the most
    cards at the limit, the third, whose wrong calls cost it cards, holding fewer."""
    options = {"num_players": 3, "match_key": "picture", "pictures": 6, "copies": 2}
    order = deck_order(SnapOptions(**options), [["P1"], ["P3"], ["P5", "P6"]])
    monkeypatch.setattr(host, "SeededChance", lambda seed=None: ScriptedChance([order]))
    env = snail_envs.make_parallel(SNAP_ENV, max_flips=2, at_limit="most_cards", **options)
    returns = _returns(env, {"player_0": WAIT, "player_1": WAIT, "player_2": SNAP})
    assert [env.unwrapped.game.held(seat) for seat in range(3)] == [4, 4, 2]
    assert returns == {"player_0": 0.0, "player_1": 0.0, "player_2": -1.0}


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"wrong_call_cost": "stack"}, "wrong_call_cost must be one of 'pile_or_stack', 'pile'"),
        ({"at_limit": "most"}, "at_limit must be one of 'truncate', 'most_cards'"),
        ({"at_limit": 1}, "at_limit must be one of 'truncate', 'most_cards'; got 1"),
        ({"at_limit": True}, "at_limit must be one of 'truncate', 'most_cards'; got True"),
    ],
)
def test_unknown_option_values_name_the_allowed_ones(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SnapOptions(**options)
    with pytest.raises(ValueError, match=message):
        snail_envs.make(SNAP_ENV, **options)
