"""What one seat of Pędzące Ślimaki sees: its own card and the public table.

Seats are written relative to the observer (0 = the observer, 1 = the next seat to its left, ...).
Opponents' cards appear only in the full `state`, never in an observation. The sizes of the leaf
pieces follow `board_length` (the tables in the env docstring are for the default 20).
"""

from __future__ import annotations

import numpy as np

from snail_envs.core.layout import Layout, Piece
from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    MAX_PLAYERS,
    NUM_SNAILS,
    ROUNDS,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
)

NUM_FACES = 6
MAX_RACES = max(ROUNDS)
POINTS_SCALE = 10.0


class PedzaceSlimakiObserver:
    """Builds observations (own card + public table) and the full state as float32 vectors."""

    def __init__(self, options: PedzaceSlimakiOptions) -> None:
        self.num_players = options.num_players
        self.rounds = options.rounds
        leaves = options.board_length + 1
        self.leaves = leaves
        points_high = options.max_points() / POINTS_SCALE

        def public(points_meaning: str, turn_meaning: str) -> tuple[Piece, ...]:
            return (
                Piece(
                    "snail_leaves",
                    NUM_SNAILS * leaves,
                    f"snail s on leaf p (0 = start, {leaves - 1} = last leaf): index "
                    f"{leaves}·s + p; snails 0 blue, 1 green, 2 yellow, 3 purple, 4 red",
                ),
                Piece(
                    "dice_rolled",
                    NUM_SNAILS * NUM_FACES,
                    "die c rolled this turn shows face f: index 6·c + f − 1 (f = 1–5 pips, "
                    "6 = snail face); all zero for a die not rolled",
                ),
                Piece("dice_set_aside", NUM_SNAILS, "1 for each die set aside, to be collected"),
                Piece("mushrooms", leaves, "1 for each leaf with a mushroom"),
                Piece("points", MAX_PLAYERS, points_meaning, high=points_high),
                Piece("turn", MAX_PLAYERS, turn_meaning),
                Piece("race", MAX_RACES, "one-hot: the race being run (1–3)"),
                Piece("three_races", 1, "1 when the game is three races (`rounds=3`)"),
                Piece("num_players", MAX_PLAYERS - 1, "one-hot: 2, 3, 4 or 5 players"),
            )

        self.observation_layout = Layout(
            (
                Piece("own_card", NUM_SNAILS, "1 for the two snails on your card"),
                *public(
                    "each seat's points so far / 10, relative to you (0 = you, 1 = next seat)",
                    "the seat to play, relative to you (0 = you, 1 = next seat)",
                ),
            )
        )
        self.state_layout = Layout(
            (
                Piece(
                    "cards", MAX_PLAYERS * NUM_SNAILS, "seat i's card holds snail s: index 5·i + s"
                ),
                *public("each seat's points so far / 10 (seat number)", "the seat to play"),
            )
        )
        self._observation_offsets = _Offsets(self.observation_layout)
        self._state_offsets = _Offsets(self.state_layout)

    def reset(self, game: PedzaceSlimaki) -> None:
        """The board and the number of players do not change during a game: write them once."""
        self._observation_template = self._template(self.observation_layout, game)
        self._state_template = self._template(self.state_layout, game)

    def observe(self, game: PedzaceSlimaki, seat: int) -> np.ndarray:
        vector = self._observation_template.copy()
        at = self._observation_offsets
        for snail in game.cards[seat]:
            vector[at.card + snail] = 1
        self._write_table(at, game, vector, seat)
        return vector

    def state(self, game: PedzaceSlimaki) -> np.ndarray:
        vector = self._state_template.copy()
        at = self._state_offsets
        for seat, card in enumerate(game.cards):
            for snail in card:
                vector[at.card + NUM_SNAILS * seat + snail] = 1
        self._write_table(at, game, vector, 0)
        return vector

    def _template(self, layout: Layout, game: PedzaceSlimaki) -> np.ndarray:
        vector = layout.zeros()
        mushrooms = layout.offset("mushrooms")
        for leaf, mushroom in enumerate(game.is_mushroom):
            vector[mushrooms + leaf] = mushroom
        vector[layout.offset("three_races")] = self.rounds == MAX_RACES
        vector[layout.offset("num_players") + self.num_players - 2] = 1
        return vector

    def _write_table(
        self, at: _Offsets, game: PedzaceSlimaki, vector: np.ndarray, seat: int
    ) -> None:
        """Everything public, with seats counted from `seat` (0 for the absolute state)."""
        leaves = self.leaves
        index = at.leaves
        for leaf in game.leaf:
            vector[index + leaf] = 1
            index += leaves
        faces, set_aside = game.faces, game.set_aside
        for die in ALL_DICE:
            if faces[die]:
                vector[at.dice + NUM_FACES * die + faces[die] - 1] = 1
            if set_aside[die]:
                vector[at.set_aside + die] = 1
        n = self.num_players
        vector[at.turn + (game.turn - seat) % n] = 1
        vector[at.race + game.race] = 1
        for other, total in enumerate(game.scores):
            if total:
                vector[at.points + (other - seat) % n] = total / POINTS_SCALE


class _Offsets:
    """The first index of each piece written per call (attribute access beats dict lookups)."""

    def __init__(self, layout: Layout) -> None:
        self.card = layout.offset(layout.pieces[0].name)
        self.leaves = layout.offset("snail_leaves")
        self.dice = layout.offset("dice_rolled")
        self.set_aside = layout.offset("dice_set_aside")
        self.points = layout.offset("points")
        self.turn = layout.offset("turn")
        self.race = layout.offset("race")
