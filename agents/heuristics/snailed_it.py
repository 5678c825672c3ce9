"""A rule-of-thumb player for Snailed It!."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from snail_envs.snailed_it.observer import CARD_SCALE, OBSERVATION
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

_HAND = OBSERVATION["own_hand"]
_TOPS = OBSERVATION["row_tops"]
_PLAYED = OBSERVATION["played_cards"]
_TOSSED = OBSERVATION["tossed_pile"]
_PREVIOUS = OBSERVATION["previous_colour"]
_WINDOW = OBSERVATION.offset("toss_window")
_OPPONENT_SIZES = slice(OBSERVATION.offset("hand_sizes") + 1, OBSERVATION["hand_sizes"].stop)

_GAPS = [
    [
        [(cards.start, cards.stop) if cards else (0, 0) for cards in row]
        for row in (
            [gap_cards(colour, a, b) for b in range(NUM_VALUES + 1)] for a in range(NUM_VALUES + 1)
        )
    ]
    for colour in range(NUM_COLOURS)
]
"""`_GAPS[colour][a][b]`: the (start, stop) card numbers fitting the gap of a row of that colour
whose tops show a and b (the engine's `gap_cards`, tabulated for speed)."""


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
        card_weight: float = 100.0,
        lookahead: float = 0.1,
    ) -> None:
        self.card_weight = card_weight
        self.lookahead = lookahead
        self._points = [card_points[VALUE[card] - 1] for card in range(NUM_CARDS)]
        self._points_array = np.array(self._points, dtype=np.float64)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if observation[_WINDOW] > 0:
            return self._toss(action_mask)
        return self._play(observation, action_mask)

    __call__ = act

    def _toss(self, action_mask: np.ndarray) -> int:
        tossable = np.flatnonzero(action_mask[TOSS:PASS]).tolist()
        if tossable:
            points = self._points
            return TOSS + max(tossable, key=lambda card: (points[card], -card))
        if not action_mask[PASS]:
            raise ValueError("no legal action: the mask is all zero")
        return PASS

    def _play(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask[:PLAY_ACTIONS]).tolist()
        if not legal:
            raise ValueError("no legal action: the mask is all zero")
        # row r's left top is tops[2r], its right top tops[2r + 1]
        tops = (np.flatnonzero(observation[_TOPS]) % NUM_VALUES + 1).tolist()
        previous = np.flatnonzero(observation[_PREVIOUS]).tolist()
        previous_colour = previous[0] if previous else None
        hand = observation[_HAND]
        unseen = (hand + observation[_PLAYED] + observation[_TOSSED]) == 0
        # unseen_before[c]: the unseen cards numbered below c
        unseen_before = [0, *unseen.cumsum().tolist()]
        unseen_count = unseen_before[-1]
        if unseen_count:
            opponents_cards = round(float(observation[_OPPONENT_SIZES].sum()) * CARD_SCALE)
            held = min(1.0, opponents_cards / unseen_count)
            draw_points = float(self._points_array.dot(unseen)) / unseen_count
        else:
            held = draw_points = 0.0
        draw_cost = self.card_weight + draw_points
        lookahead = self.lookahead * draw_cost * held

        # For each card in hand, the unseen cards fitting the gap it would leave on the left
        # and on the right pile of its row: these are its expected tosses, times `held`.
        fits: dict[int, tuple[int, int]] = {}
        by_colour: list[list[int]] = [[] for _ in range(NUM_COLOURS)]
        for card in np.flatnonzero(hand).tolist():
            colour, value = COLOUR[card], VALUE[card]
            gaps = _GAPS[colour][value]
            start, stop = gaps[tops[2 * colour + 1]]  # played on the left: the right top stays
            on_left = unseen_before[stop] - unseen_before[start]
            start, stop = gaps[tops[2 * colour]]
            fits[card] = (on_left, unseen_before[stop] - unseen_before[start])
            by_colour[colour].append(card)

        points = self._points
        best, best_key = legal[0], None
        for action in legal:
            card, side = action >> 1, action & 1
            colour = COLOUR[card]
            draws = same_colour_draws(card, previous_colour) + fits[card][side] * held
            gain = self.card_weight + points[card] - draws * draw_cost
            if lookahead:
                # the change in the other cards' fewest fitting unseen cards when this card
                # covers the top of its side: only their gap on the other side can change
                gaps = _GAPS[colour]
                value = VALUE[card]
                change = 0
                for other in by_colour[colour]:
                    if other != card:
                        on_left, on_right = fits[other]
                        start, stop = gaps[VALUE[other]][value]
                        covered = unseen_before[stop] - unseen_before[start]
                        if side == 0:  # the left top changes: so does the gap on the right
                            change += min(on_left, covered) - min(on_left, on_right)
                        else:
                            change += min(covered, on_right) - min(on_left, on_right)
                gain -= lookahead * change
            key = (round(gain, 9), points[card], -action)  # rounding: exact ties stay ties
            if best_key is None or key > best_key:
                best, best_key = action, key
        return best
