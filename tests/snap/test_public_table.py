"""Asking the rules engine about a table: `Snap.at_table`, `right_calls`, `after_calls`, and the
table an observation shows (`observer.public_table`), which agents use to judge their calls."""

from __future__ import annotations

import random

import numpy as np
import pytest

from snail_envs.core.chance import SeededChance
from snail_envs.snap.observer import SnapObserver, public_table
from snail_envs.snap.rules import SLAP, SNAP, SNAP_POOL, WAIT, Snap, SnapOptions
from tests.snap.helpers import invariant, table, tops


def test_at_table_opens_the_window_of_the_last_flip() -> None:
    """A table set by hand plays like a dealt one: every seat acts, the window is full while
    something is claimable, and play goes on from it (the flipper's neighbour flips next)."""
    game = table([["2♣", "7♣"], ["7♥"]], flipped=[1])
    assert tops(game) == ["7♣", "7♥"] and game.turn == 1
    assert game.acting_seats() == (0, 1) and game.window_length == 3
    game.apply({0: WAIT, 1: WAIT})
    assert game.window_tick == 1
    game.apply({0: SNAP, 1: WAIT})
    assert game.held(0) == 2 + 1 + 25 and game.turn == 0 and game.flips == 1
    invariant(game)


def test_at_table_checks_the_number_of_stacks_and_piles() -> None:
    with pytest.raises(ValueError, match="a table of 2 seats has 2 stacks and 3 piles"):
        Snap.at_table(SnapOptions(single_pile=True), [[], []], [[], []])


def test_right_calls_follow_the_judgement_of_calls() -> None:
    """snap while a match shows; snap_pool (classic) only for the card just flipped; slap only
    with slapjack and a Jack on a pile."""
    pool_match = table([["7♣"], ["7♥"]], pools=[["2♠", "7♦"]], flipped=[1])
    assert pool_match.right_calls() == {SNAP, SNAP_POOL}
    old_top = table([["7♣"], ["8♥"]], pools=[["7♦"]], flipped=[1])
    assert old_top.right_calls() == set() and old_top.window_length == 1
    pot = table([["7♣"], ["8♥"]], pools=[["7♦"]], flipped=[1], ruleset="snap_pot")
    assert pot.right_calls() == {SNAP_POOL}
    jack = table([["J♣"], ["8♥"]], flipped=[1], slapjack=True)
    assert jack.right_calls() == {SLAP}
    assert table([["J♣"], ["8♥"]], flipped=[1]).right_calls() == set()


def test_after_calls_resolves_a_copy_and_leaves_the_game_alone() -> None:
    """A right call's copy shows what it won and what still shows; a wrong call's copy shows the
    caller's pile gone to the centre; the game itself is unchanged."""
    game = table([["2♣", "7♣"], ["7♥"], ["9♦", "K♠"]], pools=[["7♦"]], flipped=[1], num_players=3)
    before = ([list(pile) for pile in game.piles], [len(s) for s in game.stacks], game.pools)
    snapped = game.after_calls({2: SNAP})
    assert snapped.last_correct[2] and snapped.last_gain == [-2, -1, 3]
    assert not snapped.matched_keys() and not snapped.claimable_pools()
    pooled = game.after_calls({0: SNAP_POOL})
    assert pooled.last_gain[0] == 1 and pooled.matched_keys()  # the match still shows
    both = game.after_calls({0: WAIT, 1: SNAP, 2: SNAP_POOL})
    assert both.last_correct == [False, True, True] and both.last_gain == [-2, 2, 1]
    wrong = table([["7♣"], ["8♥"]], flipped=[1]).after_calls({0: SNAP})
    assert wrong.last_correct == [False, False] and wrong.last_gain == [-1, 0]
    assert ([list(pile) for pile in game.piles], [len(s) for s in game.stacks]) == before[:2]
    assert game.pools == before[2] and game.window_tick == 0 and game.last_gain == [0, 0, 0]


SETUPS = [
    {},
    {"num_players": 4, "ruleset": "snap_pot"},
    {"num_players": 3, "speed": True, "double": True},
    {"num_players": 3, "single_pile": True},
    {"num_players": 3, "slapjack": True, "ruleset": "snap_pot"},
    {"num_players": 3, "match_key": "picture", "pictures": 6, "copies": 3},
    {"num_players": 8, "reaction_ticks": 5, "reaction_delay": (0, 1, 2, 3, 4, 0, 0, 0)},
    {"num_players": 2, "decks": 2, "flipper_may_call": False},
]


@pytest.mark.parametrize(
    "options", SETUPS, ids=lambda o: ",".join(map(str, o.values())) or "default"
)
def test_the_table_an_observation_shows_judges_calls_like_the_game(options: dict) -> None:
    """Rebuilt from any seat's observation (seats relative to it), the table agrees with the game
    on the window, on which calls are right, and on what each call alone would win that seat."""
    rules = SnapOptions(**options)
    observer = SnapObserver(rules)
    rng = random.Random(0)
    checked = 0
    for seed in range(4):
        game = Snap(rules, SeededChance(seed))
        while game.outcome is None and not game.truncated and game.ticks < 400:
            acting = game.acting_seats()
            for seat in acting:
                seen = public_table(observer.observe(game, seat), rules)
                assert (seen.window_tick, seen.window_length) == (
                    game.window_tick,
                    game.window_length,
                )
                assert seen.right_calls() == game.right_calls()
                for call in game.legal_actions(seat):
                    assert (
                        seen.after_calls({0: call}).last_gain[0]
                        == game.after_calls({seat: call}).last_gain[seat]
                    )
                checked += 1
            game.apply({seat: rng.choice(game.legal_actions(seat)) for seat in acting})
    assert checked > 100


def test_public_table_rejects_an_observation_of_other_options() -> None:
    observation = np.zeros(SnapObserver(SnapOptions()).observation_layout.size, np.float32)
    with pytest.raises(ValueError, match="has 96 floats; got shape"):
        public_table(observation, SnapOptions(num_players=3))
