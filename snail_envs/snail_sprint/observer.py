"""What one seat of Snail Sprint! sees: its own race card and the public table.

Seats are written relative to the observer (0 = the observer, 1 = the next seat clockwise, ...).
Opponents' race cards appear only in the full `state`, never in an observation.
"""

from __future__ import annotations

import numpy as np

from snail_envs.core.layout import Layout, Piece
from snail_envs.snail_sprint.rules import (
    FACTS,
    LAST_SPACE,
    NUM_SNAILS,
    ON_PODIUM,
    START,
    SnailSprint,
    SnailSprintOptions,
)

MAX_PLAYERS = FACTS.max_players
"""Pieces with one entry a seat have this many entries."""
SPACES = LAST_SPACE + 1
MAX_TOWER_LEVEL = NUM_SNAILS - 1

PUBLIC_PIECES = (
    Piece(
        "snail_spaces",
        NUM_SNAILS * SPACES,
        "snail s on space p (0 = start, 1–36): index 37·s + p; all zero on the podium",
    ),
    Piece("tower_levels", NUM_SNAILS, "each snail's height in its tower, divided by 5"),
    Piece("snails_free", NUM_SNAILS, "1 if the snail may move (start or top of its space)"),
    Piece("podium", 3 * NUM_SNAILS, "place k held by snail s: index 6·k + s"),
    Piece("dice", NUM_SNAILS, "the roll being decided (or the last roll): dice showing s, / 2"),
    Piece(
        "track_symbols",
        LAST_SPACE * NUM_SNAILS,
        "symbol s printed on space p (1–36): index 6·(p−1) + s",
    ),
    Piece("num_players", MAX_PLAYERS - FACTS.min_players + 1, "one-hot: 2, 3 or 4 players"),
)
OBSERVATION = Layout(
    (
        Piece("own_race_card", NUM_SNAILS, "1 for the snails on your card"),
        *PUBLIC_PIECES,
        Piece("turn", MAX_PLAYERS, "the seat to play, relative to you (0 = you, 1 = next seat)"),
    )
)
STATE = Layout(
    (
        Piece("race_cards", MAX_PLAYERS * NUM_SNAILS, "seat i's card holds snail s: index 6·i + s"),
        *PUBLIC_PIECES,
        Piece("turn", MAX_PLAYERS, "the seat to play (seat number)"),
    )
)


class SnailSprintObserver:
    """Builds observations (own card + public table) and the full state as float32 vectors."""

    observation_layout = OBSERVATION
    state_layout = STATE

    def __init__(self, options: SnailSprintOptions) -> None:
        self.num_players = options.num_players
        self._track: tuple[frozenset[int], ...] = ()
        """The printed track the blank templates show (the same every game unless the tin is
        shuffled)."""

    def reset(self, game: SnailSprint) -> None:
        """The printed track and the race cards do not change during a game: write them once."""
        if game.track != self._track:
            self._track = game.track
            self._blank_observation = self._template(OBSERVATION, game.track)
            self._blank_state = self._template(STATE, game.track)
        own_card = OBSERVATION.offset("own_race_card")
        self._observation_templates = []
        for card in game.race_cards:
            template = self._blank_observation.copy()
            for snail in card:
                template[own_card + snail] = 1
            self._observation_templates.append(template)
        self._state_template = self._blank_state.copy()
        cards = STATE.offset("race_cards")
        for seat, card in enumerate(game.race_cards):
            for snail in card:
                self._state_template[cards + NUM_SNAILS * seat + snail] = 1

    def observe(self, game: SnailSprint, seat: int) -> np.ndarray:
        vector = self._observation_templates[seat].copy()
        self._write_table(OBSERVATION, game, vector, (game.turn - seat) % self.num_players)
        return vector

    def state(self, game: SnailSprint) -> np.ndarray:
        vector = self._state_template.copy()
        self._write_table(STATE, game, vector, game.turn)
        return vector

    def _template(self, layout: Layout, track: tuple[frozenset[int], ...]) -> np.ndarray:
        """The printed track and the number of players: what no move changes."""
        vector = layout.zeros()
        symbols = layout.offset("track_symbols")
        vector[
            [
                symbols + NUM_SNAILS * (space - 1) + symbol
                for space in range(1, SPACES)
                for symbol in track[space]
            ]
        ] = 1
        vector[layout.offset("num_players") + self.num_players - FACTS.min_players] = 1
        return vector

    @staticmethod
    def _write_table(layout: Layout, game: SnailSprint, vector: np.ndarray, turn: int) -> None:
        """Write the snails, towers, podium, dice and turn into `vector` (zero there before)."""
        spaces, free, levels, podium, dice, turn_at = _OFFSETS[id(layout)]
        # single writes: cheaper than one fancy-indexed write at this size
        vector[turn_at + turn] = 1.0
        stacks = game.stacks
        for snail, space in enumerate(game.space):
            if space == ON_PODIUM:
                continue
            vector[spaces + SPACES * snail + space] = 1.0
            if space == START:
                vector[free + snail] = 1.0
                continue
            stack = stacks[space]
            top = len(stack) - 1
            if stack[top] == snail:
                vector[free + snail] = 1.0
                if top:
                    vector[levels + snail] = top / MAX_TOWER_LEVEL
            else:
                vector[levels + snail] = stack.index(snail) / MAX_TOWER_LEVEL
        for place, snail in enumerate(game.podium):
            vector[podium + NUM_SNAILS * place + snail] = 1.0
        if game.dice is not None:
            first, second = game.dice
            vector[dice + first] += 0.5
            vector[dice + second] += 0.5


_OFFSETS = {
    id(layout): tuple(
        layout.offset(piece)
        for piece in ("snail_spaces", "snails_free", "tower_levels", "podium", "dice", "turn")
    )
    for layout in (OBSERVATION, STATE)
}
"""Where the changing pieces start in each layout (looked up once, used at every step)."""
