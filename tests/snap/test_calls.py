"""Snap's calls counted (`snail_envs.snap.calls`): right, wrong, and wrong ones by the pile."""

from __future__ import annotations

from snail_envs.snap.calls import CallTally, pending_call
from snail_envs.snap.rules import SNAP, WAIT
from tests.snap.helpers import table, tick


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
