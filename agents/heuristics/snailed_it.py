"""A rule-of-thumb player for Snailed It!.

The strategy is `choose`, written once in the part of Python that numba compiles: the agent
calls it, and the batched engine compiles it for its in-kernel heuristic. It reads only the
seat's observation, through the observer's named pieces. Gains are compared exactly, as whole
numbers (every gain is a fraction over 1/(unseen cards)² and over the lookahead's denominator).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from snail_envs.snailed_it.observer import CARD_SCALE, MAX_PLAYERS, OBSERVATION
from snail_envs.snailed_it.rules import (
    COLOUR,
    DEFAULT_CARD_POINTS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_VALUES,
    PASS,
    PLAY_ACTIONS,
    TOSS,
    VALUE,
    gap_cards,
    same_colour_draws,
)

OWN_HAND = OBSERVATION.offset("own_hand")
ROW_TOPS = OBSERVATION.offset("row_tops")
PLAYED_CARDS = OBSERVATION.offset("played_cards")
TOSSED_PILE = OBSERVATION.offset("tossed_pile")
PREVIOUS_COLOUR = OBSERVATION.offset("previous_colour")
TOSS_WINDOW = OBSERVATION.offset("toss_window")
HAND_SIZES = OBSERVATION.offset("hand_sizes")
NO_COLOUR = -1
"""`previous_colour` on a round's first turn."""
DEFAULT_CARD_WEIGHT = 100
DEFAULT_LOOKAHEAD = Fraction(1, 10)
LOOKAHEAD_DENOMINATORS = 1000
"""A lookahead is held as the nearest fraction with a denominator up to this."""


class SnailedItHeuristic:
    """Toss whenever you can; on your turn shed a card for the fewest expected draws.

    - Toss window: toss whenever you hold a fitting card (the one worth most points first): it
      leaves your hand for nothing and makes the player draw. Pass only when nothing fits.
    - Your turn: each (card, side) is scored by what it should leave in your hand. The card
      leaves; you draw one card if it repeats the previous turn's colour, and one for each card
      the others toss into the gap the play leaves between the card and the row's other top.
      Tosses are expected from the unseen cards of that gap (not in your hand, not on the rows,
      not in the tossed pile): each lies in an opponent's hand rather than in the penalty pile
      with probability (opponents' cards) / (unseen cards). So the bot plays next to the other
      top (no gap), or opens a gap that only cards out of play fit, and avoids repeating a
      colour. A gap is cheap with two players (most unseen cards lie in the pile) and dear
      with six.
    - Cards first, points second: a card in hand counts `card_weight` (100) points, so the
      expected number of cards decides and the points shed (high-point cards first) break
      near-ties. A drawn card is worth the mean points of the unseen cards. A round is a race
      to empty your hand: the winner scores nothing, whatever the others hold.
    - Look one play ahead for the rest of the hand: covering a top changes the expected tosses
      of the other cards of that colour you hold (each played later on its better side);
      `lookahead` (0.1) of that change counts too. This keeps a top that your other cards
      could cover without a gap.
    - Ties go to the card worth more points, then to the lower action number. No randomness.

    `card_points` must match the game's option of that name (the observation does not show it).
    Tuned in self-play, one seat against this bot in all the others: a variant counting a card
    as 1 point scores 17% with 2 players and with 4 (chance: 50% and 25%); one without the
    lookahead 45% with 2 players and 31% with 3. Tried without gain: keeping cards likely to
    fit later gaps, playing the colour the next seat may hold alone, fearing gaps that an
    almost empty hand could toss into, weighting tosses above penalty draws, and trusting that
    a row's current gap holds no opponent's card.
    """

    def __init__(
        self,
        card_points: Sequence[int] = DEFAULT_CARD_POINTS,
        card_weight: int = DEFAULT_CARD_WEIGHT,
        lookahead: float | Fraction = DEFAULT_LOOKAHEAD,
    ) -> None:
        if len(card_points) != NUM_VALUES or not all(
            isinstance(points, (int, np.integer)) for points in card_points
        ):
            raise ValueError(
                f"card_points must be {NUM_VALUES} whole numbers, one a value; got {card_points!r}"
            )
        if isinstance(card_weight, bool) or not isinstance(card_weight, int) or card_weight < 1:
            raise ValueError(f"card_weight must be a whole number from 1; got {card_weight!r}")
        if not lookahead >= 0:
            raise ValueError(f"lookahead must be 0 or more; got {lookahead!r}")
        self.card_points = np.array(
            [card_points[VALUE[card] - 1] for card in range(NUM_CARDS)], np.int64
        )
        """The points of each number card in hand."""
        self.card_weight = card_weight
        self.lookahead = Fraction(lookahead).limit_denominator(LOOKAHEAD_DENOMINATORS)

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> SnailedItHeuristic:
        """The heuristic, with its defaults, counting the points of these rule options."""
        return cls(card_points=rule_options.get("card_points", DEFAULT_CARD_POINTS))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(
            choose(
                observation,
                action_mask,
                self.card_points,
                self.card_weight,
                self.lookahead.numerator,
                self.lookahead.denominator,
            )
        )

    __call__ = act


def toss(action_mask: np.ndarray, card_points: np.ndarray) -> int:
    """Toss the fitting card worth most points (the lowest card of equals); pass if none fits."""
    best = -1
    for card in range(NUM_CARDS):
        if action_mask[TOSS + card] and (best < 0 or card_points[card] > card_points[best]):
            best = card
    if best >= 0:
        return TOSS + best
    if not action_mask[PASS]:
        raise ValueError("no legal action: the mask is all zero")
    return PASS


def choose(
    observation: np.ndarray,
    action_mask: np.ndarray,
    card_points: np.ndarray,
    card_weight: int,
    lookahead_numerator: int,
    lookahead_denominator: int,
) -> int:
    """The heuristic's action for a seat's observation and mask: `toss` in a toss window; on its
    turn the play of greatest gain: the card and its points shed, less the expected draws (the
    same colour again, the expected tosses into the gap it leaves) at a drawn card's cost, less
    the lookahead's share of what it does to the other cards of its colour; more points, then
    the lower action, among equal gains. `card_points[c]`: the points of number card c in hand;
    `card_weight`: what a card in hand weighs in points; the lookahead as a fraction. Every
    quantity is kept over `scale` (the unseen cards, at least 1), so that gain · scale² ·
    lookahead denominator is a whole number."""
    if observation[TOSS_WINDOW] > 0:
        return toss(action_mask, card_points)
    legal = np.flatnonzero(action_mask[:PLAY_ACTIONS])
    if legal.size == 0:
        raise ValueError("no legal action: the mask is all zero")
    # row r's left top is tops[2r], its right top tops[2r + 1]
    tops = np.flatnonzero(observation[ROW_TOPS : ROW_TOPS + 2 * NUM_COLOURS * NUM_VALUES])
    tops = tops % NUM_VALUES + 1
    previous = np.flatnonzero(observation[PREVIOUS_COLOUR : PREVIOUS_COLOUR + NUM_COLOURS])
    previous_colour = previous[0] if previous.size else NO_COLOUR
    hand = observation[OWN_HAND : OWN_HAND + NUM_CARDS]
    seen = (
        hand
        + observation[PLAYED_CARDS : PLAYED_CARDS + NUM_CARDS]
        + observation[TOSSED_PILE : TOSSED_PILE + NUM_CARDS]
    )
    unseen = seen == 0
    # unseen_before[c]: the unseen cards numbered below c
    unseen_before = np.zeros(NUM_CARDS + 1, np.int64)
    for number in range(NUM_CARDS):
        unseen_before[number + 1] = unseen_before[number] + unseen[number]
    unseen_count = unseen_before[NUM_CARDS]
    opponents_cards = 0
    for seat in range(1, MAX_PLAYERS):
        opponents_cards += int(np.rint(observation[HAND_SIZES + seat] * CARD_SCALE))
    scale = max(unseen_count, 1)
    # each unseen card lies in an opponent's hand with chance held / scale
    held = min(opponents_cards, unseen_count)
    # a drawn card costs its weight and the mean points of the unseen cards (times scale)
    draw_cost = card_weight * scale + np.sum(card_points * unseen)

    # For each card in hand, the unseen cards fitting the gap it would leave on the left and
    # on the right pile of its row: its expected tosses, times `held` / `scale`.
    cards = np.flatnonzero(hand)
    fits = np.zeros((NUM_CARDS, 2), np.int64)
    for card in cards:
        colour, value = COLOUR[card], VALUE[card]
        fits[card, 0] = fitting_unseen(unseen_before, colour, value, tops[2 * colour + 1])
        fits[card, 1] = fitting_unseen(unseen_before, colour, value, tops[2 * colour])

    best = -1
    best_gain = 0
    for action in legal:
        card, side = action >> 1, action & 1
        draws = same_colour_draws(card, previous_colour) * scale + fits[card, side] * held
        gain = lookahead_denominator * (
            (card_weight + card_points[card]) * scale * scale - draws * draw_cost
        )
        if lookahead_numerator and held:
            change = covering_change(cards, fits, unseen_before, card, side)
            gain -= lookahead_numerator * draw_cost * held * change
        if (
            best < 0
            or gain > best_gain
            or (gain == best_gain and card_points[card] > card_points[best >> 1])
        ):
            best, best_gain = int(action), gain
    return best


def fitting_unseen(unseen_before: np.ndarray, colour: int, a: int, b: int) -> int:
    """The unseen cards fitting the gap of a row of `colour` whose tops show a and b."""
    cards = gap_cards(colour, a, b)
    return unseen_before[cards.stop] - unseen_before[cards.start]


def covering_change(
    cards: np.ndarray, fits: np.ndarray, unseen_before: np.ndarray, card: int, side: int
) -> int:
    """The change in the other cards of `card`'s colour in hand (`cards`), each counted by its
    fewest fitting unseen cards (its better side), when `card` covers the top of `side`: only
    their gap on the other side can change."""
    colour, value = COLOUR[card], VALUE[card]
    change = 0
    for other in cards:
        if other == card or COLOUR[other] != colour:
            continue
        on_left, on_right = fits[other, 0], fits[other, 1]
        covered = fitting_unseen(unseen_before, colour, VALUE[other], value)
        if side == 0:  # the left top changes: so does the gap on the right
            change += min(on_left, covered) - min(on_left, on_right)
        else:
            change += min(covered, on_right) - min(on_left, on_right)
    return change


HELPERS = (toss, fitting_unseen, covering_change, gap_cards, same_colour_draws)
"""The functions `choose` calls, for a compiler to compile with it."""
