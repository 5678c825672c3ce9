"""Snap's calls counted: right and wrong, where a wrong call came from, and the pools won.

A call is noted before its window is settled (`pending_call`: the calls right now, the caller's
pile and the cards it holds, the cards in the pools) and judged after (`CallTally.add`). A call
that was right when made but lost to another seat's in the same tick is `lapsed`. A wrong call
is counted by the caller's pile when it called (`no pile`, `one card`, `a pile`: from an empty
pile it costs, since `snap_v2`, the top card of the stack), as from an `empty hand` when the
caller held no card at all, and as `free` when it held cards and kept them all. A wrong call
that a seat remembering every card it had seen would have known to be wrong, whatever it
glimpsed (`Snap.known_wrong_by_memory`), is also counted as `known by memory`: under noisy
sight, the calls memory would save.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from snail_envs.snap.rules import SNAP_POOL, WAIT

KINDS = (
    "right",
    "lapsed",
    "wrong",
    "wrong, no pile",
    "wrong, one card",
    "wrong, a pile",
    "wrong, empty hand",
    "wrong, free",
    "wrong, known by memory",
)
"""What a call is counted as (a wrong call counts as `wrong` and as its circumstances)."""


@dataclass(frozen=True)
class PendingCall:
    """A call made in a window not settled yet, with the table as it was."""

    seat: int
    action: int
    right_now: frozenset[int]
    pile: int
    held: int
    pooled: int
    known_wrong: bool
    """Whether memory of every card seen would show the call wrong (`known_wrong_by_memory`)."""


def pending_call(table: Any, seat: int, action: int) -> PendingCall | None:
    """`seat`'s call `action` on `table` (a Snap game) before its window settles; None for a
    wait."""
    if action == WAIT:
        return None
    return PendingCall(
        seat=seat,
        action=action,
        right_now=frozenset(table.right_calls()),
        pile=len(table.piles[seat]),
        held=table.held(seat),
        pooled=sum(len(pool) for pool in table.pools),
        known_wrong=table.known_wrong_by_memory(action),
    )


def pile_kind(cards: int) -> str:
    return "no pile" if cards == 0 else "one card" if cards == 1 else "a pile"


@dataclass
class CallTally:
    """Calls counted by kind (`KINDS`), and the pools won with right `snap_pool` calls."""

    counts: Counter[str] = field(default_factory=Counter)
    pools_won: int = 0
    pool_cards: int = 0

    def add(self, table: Any, call: PendingCall) -> None:
        """Count `call` on `table`, its window settled."""
        if call.action in call.right_now:
            right = table.last_correct[call.seat]
            self.counts["right" if right else "lapsed"] += 1
            if right and call.action == SNAP_POOL:
                self.pools_won += 1
                self.pool_cards += call.pooled
            return
        self.counts["wrong"] += 1
        self.counts[f"wrong, {pile_kind(call.pile)}"] += 1
        if call.known_wrong:
            self.counts["wrong, known by memory"] += 1
        if not call.held:
            self.counts["wrong, empty hand"] += 1
        elif table.last_gain[call.seat] == 0:
            self.counts["wrong, free"] += 1
