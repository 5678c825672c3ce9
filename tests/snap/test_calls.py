"""Snap's calls counted (`snail_envs.snap.calls`): right, wrong, and wrong ones by the pile."""

from __future__ import annotations

from snail_envs.snap.calls import CallTally, pending_call
from snail_envs.snap.rules import SEEN, SNAP, WAIT
from tests.snap.helpers import glimpse_game, table, tick


def test_a_call_on_a_match_counts_right_and_one_with_none_counts_wrong_from_its_pile() -> None:
    tally = CallTally()
    matched = table(piles=[["7♥"], ["7♠"]], flipped=[1], num_players=2)
    call = pending_call(matched, 0, SNAP)
    assert call is not None and pending_call(matched, 0, WAIT) is None
    tick(matched, {0: SNAP})
    tally.add(matched, call)
    unmatched = table(piles=[[], ["7♠"]], flipped=[1], num_players=2)
    call = pending_call(unmatched, 0, SNAP)
    assert call is not None
    tick(unmatched, {0: SNAP})
    tally.add(unmatched, call)
    assert tally.counts == {"right": 1, "wrong": 1, "wrong, no pile": 1}


def test_a_wrong_call_memory_would_have_saved_is_counted_as_known_by_memory() -> None:
    """Under noisy sight a snap on a glimpse that no card the flipped one may be can match is
    counted `wrong, known by memory` as well as wrong."""
    game = glimpse_game(stack_top=2, script=[True, 0, False, False, False])
    game.glimpsed_group = SEEN  # memory names the flipped card: picture 1, no match
    call = pending_call(game, 0, SNAP)
    assert call is not None and call.known_wrong
    tick(game, {0: SNAP})
    tally = CallTally()
    tally.add(game, call)
    assert tally.counts["wrong"] == tally.counts["wrong, known by memory"] == 1
