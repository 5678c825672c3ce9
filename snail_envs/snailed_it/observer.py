"""What one seat of Snailed It! sees: its own hand and the public table.

Seats are written relative to the observer (0 = the observer, 1 = the next seat clockwise, ...).
Opponents' hands and the order of the penalty pile appear only in the full `state`, never in an
observation. Cards are numbered `18·colour + value − 1` (colours 0 orange, 1 yellow, 2 blue,
3 pink).
"""

from __future__ import annotations

import numpy as np

from snail_envs.core.layout import Layout, Piece
from snail_envs.snailed_it.rules import (
    NUM_CARDS,
    NUM_COLOURS,
    NUM_VALUES,
    TOSS_WINDOW,
    VALUE,
    SnailedIt,
    SnailedItOptions,
)

MAX_PLAYERS = 6
MIN_PLAYERS = 2
CARD_SCALE = NUM_CARDS
"""Counts of cards (hand and pile sizes) are divided by 72, the number of number cards."""

PUBLIC_PIECES = (
    Piece(
        "row_tops",
        NUM_COLOURS * 2 * NUM_VALUES,
        "row r's side s (0 left, 1 right) shows value v: index 36·r + 18·s + v − 1",
    ),
    Piece("played_cards", NUM_CARDS, "number cards on the rows this round, on top or covered"),
    Piece("tossed_pile", NUM_CARDS, "cards in the tossed pile (public; its order is hidden)"),
    Piece(
        "previous_colour",
        NUM_COLOURS,
        "the colour played on the previous turn (all zero on a round's first turn); during a "
        "toss window, the row of the gap",
    ),
    Piece("toss_window", 1, "1 during a toss window, 0 when a card is to be played"),
    Piece("penalty_pile_size", 1, "cards in the penalty pile / 72"),
    Piece("tossed_pile_size", 1, "cards in the tossed pile / 72"),
    Piece("rounds_played", 1, "rounds finished / `max_rounds`"),
    Piece("num_players", MAX_PLAYERS - MIN_PLAYERS + 1, "one-hot: 2 to 6 players"),
)
OBSERVATION = Layout(
    (
        Piece("own_hand", NUM_CARDS, "1 for each card in your hand"),
        *PUBLIC_PIECES,
        Piece("turn", MAX_PLAYERS, "the seat to play, relative to you (0 = you, 1 = next seat)"),
        Piece("hand_sizes", MAX_PLAYERS, "each seat's hand size / 72, relative to you"),
        Piece(
            "totals",
            MAX_PLAYERS,
            "each seat's total / `target` (capped at 1), relative to you",
        ),
    )
)
STATE = Layout(
    (
        Piece("hands", MAX_PLAYERS * NUM_CARDS, "seat i holds card c: index 72·i + c"),
        Piece(
            "penalty_pile",
            NUM_CARDS,
            "for each card in the penalty pile, 1 − (its depth below the top) / 72 (top card 1)",
        ),
        *PUBLIC_PIECES,
        Piece("turn", MAX_PLAYERS, "the seat to play (seat number)"),
        Piece("hand_sizes", MAX_PLAYERS, "each seat's hand size / 72"),
        Piece("totals", MAX_PLAYERS, "each seat's total / `target` (capped at 1)"),
    )
)

_OBS = {piece.name: OBSERVATION.offset(piece.name) for piece in OBSERVATION.pieces}
_STATE = {piece.name: STATE.offset(piece.name) for piece in STATE.pieces}


class SnailedItObserver:
    """Builds observations (own hand + public table) and the full state as float32 vectors."""

    observation_layout = OBSERVATION
    state_layout = STATE

    def __init__(self, options: SnailedItOptions) -> None:
        self.num_players = options.num_players
        self.target = options.target
        self.max_rounds = options.max_rounds
        self._observation_template = self._template(OBSERVATION)
        self._state_template = self._template(STATE)

    def reset(self, game: SnailedIt) -> None:
        """Nothing to prepare: the static parts (the player count) are written at construction."""

    def observe(self, game: SnailedIt, seat: int) -> np.ndarray:
        vector = self._observation_template.copy()
        base = _OBS["own_hand"]
        ones = [base + card for card in game.hands[seat]]
        self._write_public(_OBS, game, vector, ones, seat)
        vector[ones] = 1
        return vector

    def state(self, game: SnailedIt) -> np.ndarray:
        vector = self._state_template.copy()
        base = _STATE["hands"]
        ones = [
            base + NUM_CARDS * seat + card for seat, hand in enumerate(game.hands) for card in hand
        ]
        self._write_public(_STATE, game, vector, ones, 0)
        vector[ones] = 1
        pile, base = game.penalty_pile, _STATE["penalty_pile"]
        for depth, card in enumerate(reversed(pile)):
            vector[base + card] = 1 - depth / CARD_SCALE
        return vector

    def _template(self, layout: Layout) -> np.ndarray:
        vector = layout.zeros()
        vector[layout.offset("num_players") + self.num_players - MIN_PLAYERS] = 1
        return vector

    def _write_public(
        self,
        at: dict[str, int],
        game: SnailedIt,
        vector: np.ndarray,
        ones: list[int],
        seat: int,
    ) -> None:
        """The public table, seats relative to `seat` (0 gives absolute seats)."""
        n = self.num_players
        tops, played = at["row_tops"], at["played_cards"]
        for colour, piles in enumerate(game.rows):
            for side, pile in enumerate(piles):
                ones.append(tops + NUM_VALUES * (2 * colour + side) + VALUE[pile[-1]] - 1)
                ones.extend(played + card for card in pile[1:])
        tossed = at["tossed_pile"]
        ones.extend(tossed + card for card in game.tossed_pile)
        if game.previous_colour is not None:
            ones.append(at["previous_colour"] + game.previous_colour)
        if game.phase == TOSS_WINDOW:
            ones.append(at["toss_window"])
        ones.append(at["turn"] + (game.turn - seat) % n)
        vector[at["penalty_pile_size"]] = len(game.penalty_pile) / CARD_SCALE
        vector[at["tossed_pile_size"]] = len(game.tossed_pile) / CARD_SCALE
        vector[at["rounds_played"]] = game.rounds_played / self.max_rounds
        sizes, totals = at["hand_sizes"], at["totals"]
        for other in range(n):
            where = (other - seat) % n
            vector[sizes + where] = len(game.hands[other]) / CARD_SCALE
            vector[totals + where] = min(game.totals[other] / self.target, 1.0)
