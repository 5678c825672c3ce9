"""Snail Sprint! (HABA 2018, 2–4 players): the rules.

Components
    Six snails, each with a symbol and a colour: 0 star (yellow), 1 flower (purple), 2 circle
    (pink), 3 cloverleaf (green), 4 triangle (orange), 5 square (blue). Two dice, each showing the
    six symbols. Race cards of three snails, one dealt face down to each seat (`race_cards`, twelve
    by default). A podium of three places.

Track
    Space 0 is the start: it shows no symbol and holds any number of snails side by side, all of
    them free; no snail ever moves onto it. Spaces 1–18 are on the board (`board`: side "A", one
    symbol a space, or "B", one to three), 19–30 on the tin, 31–36 on the board again, then the
    podium. The tin's twelve spaces are the same on both sides; `tin_order` lays them "fixed",
    "reversed", or "shuffled" (a random order drawn at the start of the game). Spaces 19–21 climb
    the tin's wall and 28–30 descend it: wall spaces hold one snail. The tin's top, 22–27, stacks
    snails like the board, unless `tin_top_stacking=False` makes it behave like the walls.

Turn
    The seat to play rolls both dice (seat 0 starts; play goes clockwise; every roll is a turn).
    - Doubles X: snail X moves to the next space showing X.
    - Two different symbols X and Y (the decision): snail X moves to the next space showing Y, or
      snail Y to the next space showing X.
    - The next space showing a symbol is the first space strictly ahead of the moving snail whose
      symbols include it. An empty space shows its printed symbols. An occupied stacking space
      shows only the symbol of its top snail: a snail landing there climbs on top, and towers may
      grow to any height. An occupied wall space shows nothing and is skipped, even when its
      snail's symbol was rolled.
    - Only free snails move: tower tops, lone snails, and every snail on the start. If one rolled
      snail is blocked (under another) or on the podium, the other rolled snail moves to the next
      space of the blocked snail's symbol.
    - If no rolled snail can move, the rearmost free snail (the lowest space; on the start, the
      lowest index) moves to the next space that can hold it: one space forward, skipping occupied
      wall spaces and climbing occupied stacking spaces; from space 36 it goes to the podium.
    - A snail with no space ahead showing the symbol it moves to takes the next podium place.

End and scoring
    The game ends the moment the third podium place is filled. Each seat scores 3, 2 and 1 points
    for the snails of its race card in places 1, 2 and 3. The most points win; ties share the win.

Hidden information
    A seat sees its own race card only; dice, track and snails are public.

Options (defaults in brackets)
    `num_players` [2] 2–4; `board` ["A"] "A", "B" or 24 space strings (symbols as letters
    YPKGOB: spaces 1–18, then 31–36); `tin_order` ["fixed"]; `tin_top_stacking` [True];
    `race_cards` [the twelve cards of `boards.RACE_CARDS`]; `expose_forced_moves` [False]: when
    False, a roll with only one possible move is played without asking; `max_turns` [None]: stop
    (truncate) an unfinished game after this many rolls; `track_length` [36] 3–36: the podium
    follows space `track_length` (the spaces after it are not used): a shorter race;
    `snails` [6] 3–6: only the first this many snails race (star, flower, circle, cloverleaf,
    triangle, square), the dice show only their symbols, and the race cards may name only them;
    the other snails stay off the track.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from snail_envs.core.chance import Chance
from snail_envs.core.dice import Die
from snail_envs.core.game import GameInfo, Outcome
from snail_envs.core.options import check_bool, check_choice, check_int, check_optional_int
from snail_envs.snail_sprint.boards import BOARD_SPACES, RACE_CARDS, SNAIL_LETTERS, TIN_SPACES


class Snail(IntEnum):
    STAR = 0
    FLOWER = 1
    CIRCLE = 2
    CLOVERLEAF = 3
    TRIANGLE = 4
    SQUARE = 5


COLOURS = ("yellow", "purple", "pink", "green", "orange", "blue")
SNAIL_NAMES = tuple(f"{COLOURS[s]} {s.name.lower()}" for s in Snail)
NUM_SNAILS = len(Snail)
START = 0
LAST_SPACE = 36
ON_PODIUM = LAST_SPACE + 1
"""The `space` of a snail that has finished."""
TIN = range(19, 31)
TIN_WALLS = (*range(19, 22), *range(28, 31))
TIN_TOP = range(22, 28)
PLACE_POINTS = (3, 2, 1)

MIN_TRACK_LENGTH = 3
BOARDS = ("A", "B")
TIN_ORDERS = ("fixed", "reversed", "shuffled")


def parse_symbols(letters: str) -> frozenset[int]:
    """'YOB' -> the star, triangle and square snails."""
    unknown = set(letters) - set(SNAIL_LETTERS)
    if not letters or unknown:
        raise ValueError(
            f"a space or card must name snails by the letters {SNAIL_LETTERS}; got {letters!r}"
        )
    return frozenset(SNAIL_LETTERS.index(letter) for letter in letters)


TIN_SYMBOLS = tuple(map(parse_symbols, TIN_SPACES.split()))
"""The printed symbols of the tin's spaces 19–30, in the fixed order."""


@functools.cache
def spaces_holding_one(tin_top_stacking: bool) -> tuple[bool, ...]:
    """Whether each space holds a single snail rather than a tower: the tin's walls, and its top
    too without `tin_top_stacking`."""
    return tuple(
        space in TIN_WALLS or (space in TIN_TOP and not tin_top_stacking)
        for space in range(LAST_SPACE + 1)
    )


@dataclass(frozen=True)
class SnailSprintOptions:
    """The rule options of Snail Sprint! (see the module docstring)."""

    num_players: int = 2
    board: str | tuple[str, ...] = "A"
    tin_order: str = "fixed"
    tin_top_stacking: bool = True
    race_cards: tuple[str, ...] = tuple(RACE_CARDS.split())
    expose_forced_moves: bool = False
    max_turns: int | None = None
    track_length: int = LAST_SPACE
    snails: int = NUM_SNAILS
    board_spaces: tuple[frozenset[int], ...] = field(init=False, repr=False, compare=False)
    """The printed symbols of spaces 1–18 and 31–36, parsed from `board`."""
    cards: tuple[frozenset[int], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, FACTS.min_players, FACTS.max_players)
        if isinstance(self.board, str):
            check_choice("board", self.board, BOARDS)
            spaces = BOARD_SPACES[self.board].split()
        else:
            spaces = list(self.board)
            if len(spaces) != 24 or not all(isinstance(space, str) for space in spaces):
                raise ValueError(
                    "board must be 'A', 'B' or 24 strings of symbol letters (spaces 1–18, then "
                    f"31–36); got {self.board!r}"
                )
            object.__setattr__(self, "board", tuple(spaces))
        check_choice("tin_order", self.tin_order, TIN_ORDERS)
        check_bool("tin_top_stacking", self.tin_top_stacking)
        check_bool("expose_forced_moves", self.expose_forced_moves)
        check_optional_int("max_turns", self.max_turns, 1)
        check_int("track_length", self.track_length, MIN_TRACK_LENGTH, LAST_SPACE)
        check_int("snails", self.snails, len(PLACE_POINTS), NUM_SNAILS)
        cards = tuple(self.race_cards)
        if len(cards) < self.num_players:
            raise ValueError(
                f"race_cards must hold at least one card per seat ({self.num_players}); "
                f"got {len(cards)}"
            )
        object.__setattr__(self, "race_cards", cards)
        object.__setattr__(self, "board_spaces", tuple(map(parse_symbols, spaces)))
        object.__setattr__(self, "cards", tuple(map(parse_symbols, cards)))
        racing = SNAIL_LETTERS[: self.snails]
        if any(not card <= frozenset(range(self.snails)) for card in self.cards):
            raise ValueError(
                f"with snails={self.snails} the race cards may name only the snails {racing}; "
                f"got {list(cards)!r}"
            )


FACTS = GameInfo(
    env_name="snail_sprint_v0",
    title="Snail Sprint!",
    min_players=2,
    max_players=4,
    num_actions=NUM_SNAILS,
    max_game_length=3 * 37 + 3 * 36,
    points_range=(0.0, 6.0),
    hidden_information=True,
    simultaneous=False,
    engine="snail_envs.batched.snail_sprint:SnailSprintBatch",
    heuristic="snail_envs.agents.heuristics.snail_sprint:SnailSprintHeuristic",
    tree_options=("snails", "track_length", "max_turns"),
)


@dataclass(frozen=True)
class Position:
    """A table to start from instead of the starting line: for puzzles, curricula and tests.

    `towers` maps a space (1–36) to its snails, bottom first; snails placed nowhere stand on the
    start. `podium` lists finished snails in place order. `race_cards` (letters, one per seat)
    replaces the deal when given.
    """

    towers: Mapping[int, Sequence[int]] = field(default_factory=dict)
    podium: Sequence[int] = ()
    turn: int = 0
    race_cards: Sequence[str] | None = None


class SnailSprint:
    """One game of Snail Sprint! in progress."""

    def __init__(
        self, options: SnailSprintOptions, chance: Chance, position: Position | None = None
    ) -> None:
        self.options = options
        self.num_players = options.num_players
        self.chance = chance
        """The source of every chance event still to come (dice)."""
        tin: Sequence[frozenset[int]] = TIN_SYMBOLS
        if options.tin_order == "reversed":
            tin = tin[::-1]
        elif options.tin_order == "shuffled":
            tin = chance.arrange(tin)
        board = options.board_spaces
        printed = (frozenset(), *board[:18], *tin, *board[18:])
        self.last_space = options.track_length
        self.track: tuple[frozenset[int], ...] = tuple(
            symbols if space <= self.last_space else frozenset()
            for space, symbols in enumerate(printed)
        )
        """The printed symbols of every space in use; space 0 (the start) and the spaces after
        the last show none."""
        self.racing = range(options.snails)
        self.die: Die[int] = Die(tuple(self.racing))
        self.holds_one = spaces_holding_one(options.tin_top_stacking)
        """Whether each space holds a single snail (tin walls) rather than a tower."""
        self.stacks: list[list[int]] = [[] for _ in range(LAST_SPACE + 1)]
        """The snails on each space, bottom first (side by side on the start)."""
        self.space: list[int] = [START] * NUM_SNAILS
        self.podium: list[int] = []
        self.turn = 0
        self.turns_played = 0
        self.dice: tuple[int, int] | None = None
        self.moves: dict[int, int] = {}
        """The possible moves of the roll being decided: snail -> destination space."""
        self.recent_moves: list[tuple[int, int, int]] = []
        """The moves played since the previous decision, forced ones included: (seat, snail,
        destination space or ON_PODIUM)."""
        self.outcome: Outcome | None = None
        position = position or Position()
        if position.race_cards is None:
            self.race_cards: list[frozenset[int]] = chance.arrange(options.cards)[
                : self.num_players
            ]
        else:
            self.race_cards = [parse_symbols(card) for card in position.race_cards]
        self._set_up(position)
        self._roll_until_decision()

    def _set_up(self, position: Position) -> None:
        placed = [snail for tower in position.towers.values() for snail in tower]
        placed += list(position.podium)
        if len(set(placed)) != len(placed) or not set(placed) <= set(self.racing):
            raise ValueError(
                f"a position places each racing snail 0–{len(self.racing) - 1} at most once; "
                f"got {position}"
            )
        if len(self.race_cards) != self.num_players or len(position.podium) >= len(PLACE_POINTS):
            raise ValueError("a position needs one race card per seat and a podium not yet full")
        for space, tower in position.towers.items():
            if not 1 <= space <= self.last_space or (self.holds_one[space] and len(tower) > 1):
                raise ValueError(f"space {space} cannot hold the snails {list(tower)}")
            self.stacks[space] = list(tower)
            for snail in tower:
                self.space[snail] = space
        self.podium = list(position.podium)
        for snail in self.podium:
            self.space[snail] = ON_PODIUM
        self.stacks[START] = [s for s in self.racing if self.space[s] == START]
        self.turn = position.turn

    # ----------------------------------------------------------------- the Game protocol

    @property
    def truncated(self) -> bool:
        limit = self.options.max_turns
        return self.outcome is None and limit is not None and self.turns_played >= limit

    def acting_seats(self) -> tuple[int, ...]:
        return () if self.outcome is not None or self.truncated else (self.turn,)

    def legal_actions(self, seat: int) -> list[int]:
        if seat != self.turn or self.outcome is not None or self.truncated:
            return []
        return sorted(self.moves)

    def apply(self, actions: Mapping[int, int]) -> None:
        self.recent_moves = []
        self._move(actions[self.turn])
        self._roll_until_decision()

    def is_in_game(self, seat: int) -> bool:
        return True

    def points(self) -> list[int]:
        """Race-card points, awarded when the game ends (0 before)."""
        if self.outcome is None:
            return [0] * self.num_players
        return [self.card_points(card) for card in self.race_cards]

    def describe_action(self, seat: int, action: int) -> str:
        text = f"move the {SNAIL_NAMES[action]} snail"
        if seat == self.turn and action in self.moves:
            target = self.moves[action]
            text += " onto the podium" if target == ON_PODIUM else f" to space {target}"
        return text

    def private_text(self, seat: int) -> str:
        snails = ", ".join(SNAIL_NAMES[snail] for snail in sorted(self.race_cards[seat]))
        return f"your race card: {snails}"

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        """Deal the other seats new race cards from the cards `seat` does not hold."""
        unseen = list(self.options.cards)
        unseen.remove(self.race_cards[seat])
        redrawn = chance.arrange(unseen)
        for other in range(self.num_players):
            if other != seat:
                self.race_cards[other] = redrawn.pop()

    # ----------------------------------------------------------------- the rules

    def is_free(self, snail: int) -> bool:
        """A snail may move if it is on the start (and in the race) or on top of its space."""
        space = self.space[snail]
        if space == START:
            return snail in self.racing
        return space != ON_PODIUM and self.stacks[space][-1] == snail

    def next_space_showing(self, snail: int, symbol: int) -> int:
        """The first space strictly ahead of `snail` that shows `symbol`, else the podium.

        An empty space shows its printed symbols; an occupied stacking space shows only its top
        snail's symbol; an occupied wall space shows nothing.
        """
        for space in range(self.space[snail] + 1, self.last_space + 1):
            stack = self.stacks[space]
            if not stack:
                if symbol in self.track[space]:
                    return space
            elif stack[-1] == symbol and not self.holds_one[space]:
                return space
        return ON_PODIUM

    def next_space_holding(self, snail: int) -> int:
        """One space forward: occupied wall spaces are skipped, towers climbed; after the last
        space, the podium."""
        for space in range(self.space[snail] + 1, self.last_space + 1):
            if not (self.holds_one[space] and self.stacks[space]):
                return space
        return ON_PODIUM

    def rearmost_free_snail(self) -> int:
        """The free snail on the lowest space (on the start, the lowest index)."""
        return min(
            (snail for snail in self.racing if self.is_free(snail)),
            key=self.space.__getitem__,
        )

    def possible_moves(self, first: int, second: int) -> dict[int, int]:
        """The moves a roll allows: moving snail -> destination."""
        moves: dict[int, int] = {}
        if self.is_free(first):
            moves[first] = self.next_space_showing(first, second)
        if second != first and self.is_free(second):
            moves[second] = self.next_space_showing(second, first)
        if not moves:
            rearmost = self.rearmost_free_snail()
            moves[rearmost] = self.next_space_holding(rearmost)
        return moves

    def card_points(self, card: frozenset[int]) -> int:
        return sum(PLACE_POINTS[place] for place, snail in enumerate(self.podium) if snail in card)

    def _roll_until_decision(self) -> None:
        """Roll for the seat to play; a roll with one possible move is played at once (unless
        `expose_forced_moves`), and the next seat rolls, until a choice or the end."""
        roll, faces = self.chance.show, self.die.faces
        while self.outcome is None and not self.truncated:
            self.dice = (roll(faces), roll(faces))
            self.moves = self.possible_moves(*self.dice)
            if len(self.moves) > 1 or self.options.expose_forced_moves:
                return
            (snail,) = self.moves
            self._move(snail)

    def _move(self, snail: int) -> None:
        target = self.moves[snail]
        origin = self.space[snail]
        self.stacks[origin].remove(snail)
        if target == ON_PODIUM:
            self.podium.append(snail)
        else:
            self.stacks[target].append(snail)
        self.space[snail] = target
        self.recent_moves.append((self.turn, snail, target))
        self.moves = {}
        self.turns_played += 1
        if len(self.podium) == len(PLACE_POINTS):
            self._finish()
        else:
            self.turn = (self.turn + 1) % self.num_players

    def _finish(self) -> None:
        scores = [self.card_points(card) for card in self.race_cards]
        best = max(scores)
        self.outcome = Outcome(
            winners=frozenset(seat for seat, score in enumerate(scores) if score == best),
            reason="the third podium place is filled",
        )
