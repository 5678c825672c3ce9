"""Scripted Snailed It! deals for scenario tests: cards by short names, hands as dealt.

    game = deal(hands=["o7 o9", "b4 p12", "y1 y2"], starters="1 3 5 7 12 14 16 18")

Cards are written colour letter + value: `o` orange, `y` yellow, `b` blue, `p` pink (`o7` is the
orange 7). Starters are listed row by row, left pile then right pile (orange, yellow, blue, pink).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from snail_envs.core.chance import ScriptedChance
from snail_envs.snailed_it.rules import (
    COLOUR,
    COLOURS,
    NUMBER_CARDS,
    PASS,
    SIDES,
    STARTER_VALUES,
    STARTERS,
    VALUE,
    SnailedIt,
    SnailedItOptions,
    number_card,
    play_action,
    toss_action,
)

LETTERS = {colour[0]: colour for colour in COLOURS}
DEFAULT_STARTERS = "1 3 5 7 12 14 16 18"


def card(name: str) -> int:
    """'o7' -> the orange 7."""
    return number_card(LETTERS[name[0]], int(name[1:]))


def cards(names: str) -> list[int]:
    """'o7 o9 b4' -> those cards, in order."""
    return [card(name) for name in names.split()]


def named(ids: Iterable[int]) -> str:
    """The inverse of `cards`, sorted: for readable assertions."""
    return " ".join(f"{COLOURS[COLOUR[c]][0]}{VALUE[c]}" for c in sorted(ids))


def deal_outcomes(
    hands: Sequence[str],
    starters: str = DEFAULT_STARTERS,
    penalty: str = "",
    first_seat: int = 0,
    hand_size: int | None = None,
    deck: Sequence[int] = NUMBER_CARDS,
) -> list[object]:
    """The chance outcomes of one round's setup: the starters' order, then the order of `deck`
    (the number cards in play) such that seat i is dealt `hands[i]` and the penalty pile's top
    cards are `penalty` (top first); every card not named lies below them. With `hand_size`,
    each hand is filled up to that size with unnamed cards, lowest first."""
    values = [int(value) for value in starters.split()]
    dealt_hands = [cards(hand) for hand in hands]
    top = cards(penalty)
    named_cards = {c for hand in dealt_hands for c in hand} | set(top)
    assert len(named_cards) == sum(map(len, dealt_hands)) + len(top), "a card is named twice"
    unnamed = [c for c in deck if c not in named_cards]
    size = hand_size or len(dealt_hands[0])
    for hand in dealt_hands:
        while len(hand) < size:
            hand.append(unnamed.pop(0))
    assert all(len(hand) == size for hand in dealt_hands), "every hand must have the same size"
    n = len(hands)
    dealing = [dealt_hands[(first_seat + i) % n][i // n] for i in range(n * size)]
    deck = unnamed + top[::-1] + dealing[::-1]
    return [values, deck]


def deal(
    hands: Sequence[str],
    starters: str = DEFAULT_STARTERS,
    penalty: str = "",
    more: Iterable[object] = (),
    hand_size: int | None = None,
    **options: Any,
) -> SnailedIt:
    """A new game whose first round is dealt as scripted; `more` are the outcomes that follow
    (refills of the penalty pile, later rounds)."""
    size = hand_size or len(hands[0].split())
    rules = SnailedItOptions(num_players=len(hands), hand_size=size, **options)
    setup = deal_outcomes(hands, starters, penalty, 0, hand_size, rules.deck)
    return SnailedIt(rules, ScriptedChance([*setup, *more]))


def starter_card(value: int) -> int:
    return STARTERS[STARTER_VALUES.index(value)]


def play(game: SnailedIt, name: str, side: str = "left") -> None:
    """The seat to play plays card `name` on `side` of its row."""
    game.apply({game.turn: play_action(card(name), SIDES.index(side))})


def tick(game: SnailedIt, **tosses: str) -> None:
    """One tick of the toss window: `seat_1="o5"` tosses the orange 5; every other seat passes."""
    chosen = {
        int(key.removeprefix("seat_")): toss_action(card(name)) for key, name in tosses.items()
    }
    game.apply({seat: chosen.get(seat, PASS) for seat in game.acting_seats()})
