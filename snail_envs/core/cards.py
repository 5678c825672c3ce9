"""Cards: shuffling and dealing, shared by the card games.

A pile of cards is a Python list whose last element is the top card.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Card = TypeVar("Card")


def deal_round_robin(
    cards: Sequence[Card], num_seats: int, per_seat: int | None = None, first_seat: int = 0
) -> tuple[list[list[Card]], list[Card]]:
    """Deal one card at a time clockwise, starting with `first_seat`, taking from the top.

    With `per_seat=None` the whole pack is dealt (some seats may get one card more). Returns the
    hands, each in the order its cards were received, and the cards left over (top last).
    """
    remaining = list(cards)
    hands: list[list[Card]] = [[] for _ in range(num_seats)]
    total = len(remaining) if per_seat is None else per_seat * num_seats
    if total > len(remaining):
        raise ValueError(
            f"cannot deal {per_seat} cards to each of {num_seats} seats from {len(remaining)} cards"
        )
    for dealt in range(total):
        hands[(first_seat + dealt) % num_seats].append(remaining.pop())
    return hands, remaining
