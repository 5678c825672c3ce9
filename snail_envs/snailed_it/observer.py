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
    FACTS,
    NUM_CARDS,
    NUM_COLOURS,
    NUM_VALUES,
    TOSS_WINDOW,
    VALUE,
    SnailedIt,
    SnailedItOptions,
)

MIN_PLAYERS, MAX_PLAYERS = FACTS.min_players, FACTS.max_players
"""The player range: pieces with one entry a seat have `MAX_PLAYERS` entries."""
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
        self._clockwise = [
            [(seat + k) % self.num_players for k in range(self.num_players)]
            for seat in range(self.num_players)
        ]
        """The seats clockwise from each seat, itself first: relative seat order."""
        self._observation_template = self._template(OBSERVATION)
        self._state_template = self._template(STATE)
        self._table: np.ndarray | None = None
        self._table_of: tuple[SnailedIt, int] | None = None

    def reset(self, game: SnailedIt) -> None:
        """Forget the cached table: a new game, or hidden information redrawn."""
        self._table = None
        self._table_of = None

    def observe(self, game: SnailedIt, seat: int) -> np.ndarray:
        vector = self._public_table(game).copy()
        base = _OBS["own_hand"]
        # single writes: cheaper than one fancy-indexed write for a hand of a few cards
        for card in game.hands[seat]:
            vector[base + card] = 1.0
        self._write_seats(_OBS, game, vector, seat)
        return vector

    def state(self, game: SnailedIt) -> np.ndarray:
        vector = self._state_template.copy()
        base = _STATE["hands"]
        for seat, hand in enumerate(game.hands):
            for card in hand:
                vector[base + NUM_CARDS * seat + card] = 1.0
        self._write_table(_STATE, game, vector)
        self._write_seats(_STATE, game, vector, 0)
        pile, base = game.penalty_pile, _STATE["penalty_pile"]
        for depth, card in enumerate(reversed(pile)):
            vector[base + card] = 1 - depth / CARD_SCALE
        return vector

    def _template(self, layout: Layout) -> np.ndarray:
        vector = layout.zeros()
        vector[layout.offset("num_players") + self.num_players - MIN_PLAYERS] = 1
        return vector

    def _public_table(self, game: SnailedIt) -> np.ndarray:
        """The part of every seat's observation that does not depend on the seat, built once a
        tick (in a toss window every other seat observes the same table)."""
        if self._table is None or self._table_of != (game, game.ticks_played):
            table = self._observation_template.copy()
            self._write_table(_OBS, game, table)
            self._table, self._table_of = table, (game, game.ticks_played)
        return self._table

    def _write_table(self, at: dict[str, int], game: SnailedIt, vector: np.ndarray) -> None:
        """The public table: rows, piles, the previous colour, the phase, counts."""
        # single writes: cheaper than gathering the indices for one fancy-indexed write
        tops = at["row_tops"] - 1
        for left, right in game.rows:
            vector[tops + VALUE[left[-1]]] = 1.0
            vector[tops + NUM_VALUES + VALUE[right[-1]]] = 1.0
            tops += 2 * NUM_VALUES
        played, tossed = at["played_cards"], at["tossed_pile"]
        for card in game.played:
            vector[played + card] = 1.0
        for card in game.tossed_pile:
            vector[tossed + card] = 1.0
        if game.previous_colour is not None:
            vector[at["previous_colour"] + game.previous_colour] = 1.0
        if game.phase == TOSS_WINDOW:
            vector[at["toss_window"]] = 1.0
        vector[at["penalty_pile_size"]] = len(game.penalty_pile) / CARD_SCALE
        vector[at["tossed_pile_size"]] = len(game.tossed_pile) / CARD_SCALE
        vector[at["rounds_played"]] = game.rounds_played / self.max_rounds

    def _write_seats(
        self, at: dict[str, int], game: SnailedIt, vector: np.ndarray, seat: int
    ) -> None:
        """The seat to play, hand sizes and totals, relative to `seat` (0: absolute)."""
        vector[at["turn"] + (game.turn - seat) % self.num_players] = 1.0
        sizes, totals = at["hand_sizes"], at["totals"]
        hands, game_totals, target = game.hands, game.totals, self.target
        for position, other in enumerate(self._clockwise[seat]):
            vector[sizes + position] = len(hands[other]) / CARD_SCALE
            vector[totals + position] = min(game_totals[other] / target, 1.0)
