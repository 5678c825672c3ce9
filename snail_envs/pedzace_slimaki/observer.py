"""What one seat of Pędzące Ślimaki sees: its own card and the public table.

Seats are written relative to the observer (0 = the observer, 1 = the next seat to its left, ...).
Opponents' cards appear only in the full `state`, never in an observation. The sizes of the leaf
pieces follow `board_length` (the tables in the env docstring are for the default 20). With
`previews`, the observation ends with `die_previews`: for each die the seat to play may choose,
what the rules' move with it would do (`PedzaceSlimaki.preview`), read from the public table and
the observer's own card. With `choice_counts`, it ends with `choice_counts`: for every seat, how
many times in this race it used each die and passed each die over (the rules' `dice_used` and
`dice_passed`), the public history from which a player reads the others' cards.

`public_table(observation)` reads an observation vector back into named fields (the card, the
snails' leaves, the dice, the points, ...): for players that see only their observation.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import NamedTuple

import numpy as np

from snail_envs.core.layout import Layout, Piece
from snail_envs.pedzace_slimaki.rules import (
    ALL_DICE,
    FACTS,
    MAX_BOARD_LENGTH,
    MAX_PLAYERS,
    MAX_PUSHED,
    MIN_BOARD_LENGTH,
    NOT_ROLLED,
    NUM_SNAILS,
    ROUNDS,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
)

NUM_FACES = 6
MAX_RACES = max(ROUNDS)
POINTS_SCALE = 10.0
COUNTS_SCALE = 10.0
"""`choice_counts` shows each count / 10."""
USED, PASSED, DECISIONS = 0, NUM_SNAILS, 2 * NUM_SNAILS
COUNTS_SIZE = DECISIONS + 1
"""A seat's row of `choice_counts`: the times it used each die, the times it passed each die
over, and the dice it used in all (so that no board length and set of options give two
observation layouts of one size)."""
PREVIEW_POINTS, PREVIEW_FINISH, PREVIEW_LEAVES = 0, 1, 2
PREVIEW_CARD = PREVIEW_LEAVES + NUM_SNAILS
PREVIEW_SIZE = PREVIEW_CARD + 1
"""A die's preview (`die_previews`): the points the move scores, whether it ends the race, each
snail's leaf after it, and the place points the observer's card would then score."""


def card_scale(place_points: tuple[int, ...]) -> float:
    """The most place points one card (two snails) can score: a preview's card points are
    shown as a share of it."""
    return float(2 * max(place_points)) or 1.0


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
                Piece(
                    "num_players",
                    MAX_PLAYERS - FACTS.min_players + 1,
                    "one-hot: 2, 3, 4 or 5 players",
                ),
            )

        previews = (
            Piece(
                "die_previews",
                NUM_SNAILS * PREVIEW_SIZE,
                f"for each die c the seat to play may choose (all zero otherwise), from index "
                f"{PREVIEW_SIZE}·c: the points the move would score / {MAX_PUSHED}; 1 if it "
                f"would end the race; each snail's leaf after it / {leaves - 1} (5 entries); "
                "the place points your card would then score as a share of the most a card "
                "can (only where the move ends the race)",
            ),
        )
        most_turns = float("inf") if options.max_turns is None else options.max_turns
        counts = (
            Piece(
                "choice_counts",
                MAX_PLAYERS * COUNTS_SIZE,
                f"for each seat i relative to you (0 = you, 1 = next seat), from index "
                f"{COUNTS_SIZE}·i: the times it used die c in this race / {COUNTS_SCALE:g} "
                f"(entry c), then the times die c was among the dice it could choose and it "
                f"used another / {COUNTS_SCALE:g} (entry {NUM_SNAILS} + c), then the dice it "
                f"used in all / {COUNTS_SCALE:g} (entry {DECISIONS})",
                high=most_turns / COUNTS_SCALE,
            ),
        )
        self.observation_layout = Layout(
            (
                Piece("own_card", NUM_SNAILS, "1 for the two snails on your card"),
                *public(
                    "each seat's points so far / 10, relative to you (0 = you, 1 = next seat)",
                    "the seat to play, relative to you (0 = you, 1 = next seat)",
                ),
                *(previews if options.previews else ()),
                *(counts if options.choice_counts else ()),
            )
        )
        self.card_scale = card_scale(options.place_points)
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
        if at.previews >= 0:
            self._write_previews(at.previews, game, vector, seat)
        if at.counts >= 0:
            self._write_counts(at.counts, game, vector, seat)
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
        vector[layout.offset("num_players") + self.num_players - FACTS.min_players] = 1
        return vector

    def _write_previews(
        self, start: int, game: PedzaceSlimaki, vector: np.ndarray, seat: int
    ) -> None:
        """What each die the seat to play may choose would do (nothing once the game is over)."""
        if game.outcome is not None or game.truncated:
            return
        last = game.last_leaf
        for die in game.legal:
            after, gained = game.preview(game.leaf, die, game.faces[die])
            row = start + PREVIEW_SIZE * die
            vector[row + PREVIEW_POINTS] = gained / MAX_PUSHED
            for snail, leaf in enumerate(after):
                vector[row + PREVIEW_LEAVES + snail] = leaf / last
            if after[die] == last:
                vector[row + PREVIEW_FINISH] = 1
                places = game.snail_places(after)
                card = sum(places[snail] for snail in game.cards[seat])
                vector[row + PREVIEW_CARD] = card / self.card_scale

    def _write_counts(
        self, start: int, game: PedzaceSlimaki, vector: np.ndarray, seat: int
    ) -> None:
        """The dice each seat used and passed over in this race, seats relative to `seat`."""
        n = self.num_players
        for other in range(n):
            row = start + COUNTS_SIZE * ((other - seat) % n)
            used, passed = game.dice_used[other], game.dice_passed[other]
            for die in ALL_DICE:
                vector[row + USED + die] = used[die] / COUNTS_SCALE
                vector[row + PASSED + die] = passed[die] / COUNTS_SCALE
            vector[row + DECISIONS] = sum(used) / COUNTS_SCALE

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
        names = [piece.name for piece in layout.pieces]
        self.previews = layout.offset("die_previews") if "die_previews" in names else -1
        self.counts = layout.offset("choice_counts") if "choice_counts" in names else -1


class PublicTable(NamedTuple):
    """One seat's observation decoded: its card and the public table, seats relative to it."""

    card: tuple[int, ...]
    """The two snails on the seat's card."""
    leaves: tuple[int, ...]
    """Each snail's leaf, blue first."""
    faces: tuple[int, ...]
    """Each die's face this turn (1–5 pips, 6 the snail face), `NOT_ROLLED` (0) if not rolled."""
    set_aside: tuple[bool, ...]
    """Whether each die waits beside the board to be collected."""
    board_length: int
    """The last leaf."""
    mushrooms: tuple[int, ...]
    points: tuple[int, ...]
    """Each seat's points so far: 0 the observer, 1 the next seat to its left, ..."""
    turn: int
    """The seat to play, relative to the observer."""
    race: int
    """The race being run, from 0."""
    rounds: int
    num_players: int


@cache
def observation_layout(size: int) -> Layout:
    """The layout of observation vectors of `size` floats (the size follows `board_length`, and
    `previews` and `choice_counts` add their pieces: no two ways give one size)."""
    default = PedzaceSlimakiOptions()
    base = PedzaceSlimakiObserver(default).observation_layout.size
    longer = PedzaceSlimakiOptions(board_length=default.board_length + 1)
    per_leaf = PedzaceSlimakiObserver(longer).observation_layout.size - base
    for previews, counts in itertools.product((False, True), repeat=2):
        added = previews * NUM_SNAILS * PREVIEW_SIZE + counts * MAX_PLAYERS * COUNTS_SIZE
        extra, remainder = divmod(size - base - added, per_leaf)
        board_length = default.board_length + extra
        if not remainder and MIN_BOARD_LENGTH <= board_length <= MAX_BOARD_LENGTH:
            options = PedzaceSlimakiOptions(
                board_length=board_length, mushrooms=(), previews=previews, choice_counts=counts
            )
            return PedzaceSlimakiObserver(options).observation_layout
    raise ValueError(f"no Pędzące Ślimaki observation has {size} entries")


def public_table(observation: np.ndarray) -> PublicTable:
    """Decode one seat's observation vector (of any board length) by its pieces' names.

    One pass over the vector's non-zero entries: fast enough for a bot deciding every move.
    """
    vector = np.asarray(observation)
    offsets = _offsets(vector.shape[-1])
    card_at, leaves_at, dice_at, aside_at, mushrooms_at = offsets[:5]
    points_at, turn_at, race_at, three_at, players_at, decoded_end = offsets[5:]
    leaves_per_snail = (dice_at - leaves_at) // NUM_SNAILS
    card, leaves, mushrooms = [], [], []
    faces, set_aside, points = [NOT_ROLLED] * NUM_SNAILS, [False] * NUM_SNAILS, [0] * MAX_PLAYERS
    turn = race = 0
    rounds, num_players = 1, 2
    nonzero = np.flatnonzero(vector[..., :decoded_end]).tolist()
    for index in nonzero:
        if index < leaves_at:
            card.append(index - card_at)
        elif index < dice_at:
            leaves.append((index - leaves_at) % leaves_per_snail)
        elif index < aside_at:
            die, face = divmod(index - dice_at, NUM_FACES)
            faces[die] = face + 1
        elif index < mushrooms_at:
            set_aside[index - aside_at] = True
        elif index < points_at:
            mushrooms.append(index - mushrooms_at)
        elif index < turn_at:
            points[index - points_at] = round(float(vector[index]) * POINTS_SCALE)
        elif index < race_at:
            turn = index - turn_at
        elif index < three_at:
            race = index - race_at
        elif index < players_at:
            rounds = MAX_RACES
        else:
            num_players = index - players_at + 2
    return PublicTable(
        card=tuple(card),
        leaves=tuple(leaves),
        faces=tuple(faces),
        set_aside=tuple(set_aside),
        board_length=leaves_per_snail - 1,
        mushrooms=tuple(mushrooms),
        points=tuple(points[:num_players]),
        turn=turn,
        race=race,
        rounds=rounds,
        num_players=num_players,
    )


@cache
def _offsets(size: int) -> tuple[int, ...]:
    layout = observation_layout(size)
    if tuple(piece.name for piece in layout.pieces)[: len(_DECODED)] != _DECODED:
        raise RuntimeError("public_table must follow the observation layout's pieces")
    return (*(layout.offset(name) for name in _DECODED), layout[_DECODED[-1]].stop)


_DECODED = (
    "own_card",
    "snail_leaves",
    "dice_rolled",
    "dice_set_aside",
    "mushrooms",
    "points",
    "turn",
    "race",
    "three_races",
    "num_players",
)
"""The observation's first pieces in their order, which `public_table` relies on (the previews
and the choice counts, if any, follow them and are not decoded)."""
