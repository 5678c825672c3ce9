"""Pędzące Ślimaki (Reiner Knizia, 2–5 players): the rules.

Components
    Five snails and five dice, one of each per colour: 0 blue, 1 green, 2 yellow, 3 purple, 4 red.
    Each die shows 1, 2, 3, 4, 5 and a snail. Cards of two snails each (`cards`; by default the
    five cards blue+green, green+yellow, yellow+purple, purple+red, red+blue): every seat is dealt
    one, face down. Point tokens are unlimited, so a seat's points are simply a number.

Board
    Leaves 0 (the start) to `board_length` (20, the last leaf); mushrooms grow on the leaves
    `mushrooms` (4, 8, 12, 16). All five snails start on the start leaf, whatever the number of
    players: seats move any snail, not only their own.

The dice cycle
    Seat 0 begins a game with all five dice; the turn passes to the left (player_i to
    player_{i+1}).
    - The seat to play rolls every die it holds and chooses one of them (the decision). The snail
      of that die's colour moves forward as many leaves as the die shows, or 2 leaves on the snail
      face.
    - A die showing pips is then set aside. A die showing the snail face is not: it stays in the
      pool, so it may be rolled and chosen again by the next seats.
    - The seat passes the pool (every die it rolled but did not set aside) to the next seat.
    - A seat that would receive exactly one die instead collects all five, the set-aside dice too,
      and rolls them.
    - Every roll is a decision, even a roll in which only one die may be chosen (that happens only
      in the `snail_face_backwards` variant); a seat with no die it may choose passes its dice on
      unchanged, without a decision.

Moving
    - A move past the last leaf stops on it.
    - A snail ending its move on a leaf with other snails pushes each of them back one leaf, and
      the mover's seat scores 1 per snail pushed. Pushed snails push nothing: they may end up on a
      leaf with other snails, and they may be pushed onto the start leaf.
    - A snail ending its move on a mushroom scores 1 for the mover's seat and pushes nothing. A
      snail pushed back onto a mushroom scores nothing.
    - A snail ending its move on the start leaf pushes nothing.

End of a race
    A race ends the moment a snail reaches the last leaf (the exact number of pips is not needed);
    the mover's seat scores 1. Then the cards are revealed and each seat scores for the two snails
    on its card, by place (`place_points`, default 5, 2 and 3):
    - 1st: the snail on the last leaf, 5.
    - last: every snail on the rearmost occupied leaf, 3.
    - 2nd: every snail on the foremost leaf behind the winner, 2, unless that leaf is also the
      rearmost one: when all snails but the winner share one leaf they are last, not second.
    - every other snail, 0.

End of the game
    The game is `rounds` races: 1, or 3 (the published variant: the points of three races are
    added up). Every race starts with all snails on the start leaf and a new deal of the cards; the
    seat after the one that began the previous race begins, with all five dice; points carry over.
    After the last race the seats with the most points win (ties share the win).

Variant `snail_face_backwards`
    A chosen snail-face die moves its snail 2 leaves back instead, and is set aside like a pip die.
    A snail landing on a leaf with other snails this way pushes them back one leaf but scores
    nothing for it; landing on a mushroom or on the start leaf pushes nothing and scores nothing.
    The snail face of a snail on leaf 0 or 1 may not be chosen (it has nowhere to go back to).

Hidden information
    Each seat sees only its own card; the cards are revealed at the end of each race. Everything
    else (snails, dice, points) is public.

Options (defaults in brackets)
    `num_players` [2] 2–5; `board_length` [20] the number of the last leaf, 2–100; `mushrooms`
    [(4, 8, 12, 16)] distinct leaves between the start and the last leaf; `cards` [the five cards
    above] pairs of distinct colour names, at least one card per seat; `rounds` [1] 1 or 3;
    `snail_face_backwards` [False]; `place_points` [(5, 2, 3)] the points of 1st, 2nd and last
    place; `snails` [5] 2–5: only the snails (and dice) of the first this many colours race, in
    colour order (blue, green, yellow, purple, red), and the cards may name only them; the dice
    cycle is the same with that many dice (a seat that would receive one die collects them all);
    the other snails stay off the board and score no place; `die_pips` [5] 1–5: each die shows
    the pips 1 to this number and the snail face (a smaller die: shorter, more even moves);
    `max_turns` [1000]: stop (truncate) an unfinished game after this many turns (a die
    chosen, or the dice passed on), over all races, or None for no limit. Pushing back and forth
    can make a game last forever, so a limit is on by default; random play never comes near it.
    `previews` [False]: each seat's observation also shows what each die the seat to play may
    choose would do, as these rules make the move (an observation option: the rules are
    unchanged). `choice_counts` [False]: each seat's observation also counts, for every seat,
    the dice it has used in this race and the dice it passed over (rolled and allowed, another
    used): the public history a player reads the others' cards from (an observation option).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum

from snail_envs.core.chance import Chance
from snail_envs.core.dice import Die
from snail_envs.core.game import GameInfo, Outcome
from snail_envs.core.options import (
    check_bool,
    check_choice,
    check_int,
    check_optional_int,
    is_int,
)


class Colour(IntEnum):
    """The five colours: of the snails, of the dice, and the actions (which die to use)."""

    BLUE = 0
    GREEN = 1
    YELLOW = 2
    PURPLE = 3
    RED = 4


COLOURS = tuple(colour.name.lower() for colour in Colour)
LETTERS = "BGYPR"
NUM_SNAILS = len(Colour)
ALL_DICE = tuple(range(NUM_SNAILS))
MAX_PLAYERS = 5
START = 0
SNAIL_FACE = 6
"""The face showing the snail symbol; the other faces are the pips 1–5."""
NOT_ROLLED = 0
"""The `faces` entry of a die not rolled this turn."""
SNAIL_FACE_LEAVES = 2
MAX_PIPS = 5
MIN_SNAILS = 2
MAX_PUSHED = NUM_SNAILS - 1
"""The most points one move can score (four snails pushed)."""

DEFAULT_CARDS: tuple[tuple[str, str], ...] = (
    ("blue", "green"),
    ("green", "yellow"),
    ("yellow", "purple"),
    ("purple", "red"),
    ("red", "blue"),
)
ROUNDS = (1, 3)
MIN_BOARD_LENGTH, MAX_BOARD_LENGTH = 2, 100
DEFAULT_MAX_TURNS = 1000


def _colour_index(name: object) -> int:
    if not isinstance(name, str) or name not in COLOURS:
        raise ValueError(f"a card names two snails among {', '.join(COLOURS)}; got {name!r}")
    return COLOURS.index(name)


def parse_card(card: object) -> tuple[int, int]:
    """('blue', 'green') -> (0, 1)."""
    if isinstance(card, str) or not isinstance(card, Sequence) or len(card) != 2:
        raise ValueError(
            f"each card must be a pair of colour names, e.g. ['blue', 'green']; got {card!r}"
        )
    first, second = (_colour_index(name) for name in card)
    if first == second:
        raise ValueError(f"a card must name two different snails; got {card!r}")
    return first, second


@dataclass(frozen=True)
class PedzaceSlimakiOptions:
    """The rule options of Pędzące Ślimaki (see the module docstring)."""

    num_players: int = 2
    board_length: int = 20
    mushrooms: tuple[int, ...] = (4, 8, 12, 16)
    cards: tuple[tuple[str, str], ...] = DEFAULT_CARDS
    rounds: int = 1
    snail_face_backwards: bool = False
    place_points: tuple[int, int, int] = (5, 2, 3)
    max_turns: int | None = DEFAULT_MAX_TURNS
    snails: int = NUM_SNAILS
    die_pips: int = MAX_PIPS
    previews: bool = False
    choice_counts: bool = False
    is_mushroom: tuple[bool, ...] = field(init=False, repr=False, compare=False)
    """For each leaf 0 … `board_length`, whether a mushroom grows on it."""
    card_snails: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    """The cards as pairs of snail indices."""
    racing: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The snails in the race, which are also the dice: the first `snails` colours."""
    die: Die[int] = field(init=False, repr=False, compare=False)
    """Each die: the pips 1 to `die_pips` and the snail face."""

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, FACTS.min_players, FACTS.max_players)
        check_int("board_length", self.board_length, MIN_BOARD_LENGTH, MAX_BOARD_LENGTH)
        last = self.board_length
        mushrooms = self.mushrooms
        if (
            isinstance(mushrooms, str)
            or not isinstance(mushrooms, Sequence)
            or not all(is_int(m) for m in mushrooms)
            or not all(START < m < last for m in mushrooms)
            or len(set(mushrooms)) != len(mushrooms)
        ):
            raise ValueError(
                f"mushrooms must be a list of distinct leaves from 1 to {last - 1} "
                f"(between the start and the last leaf); got {mushrooms!r}"
            )
        object.__setattr__(self, "mushrooms", tuple(sorted(int(m) for m in mushrooms)))
        cards = self.cards
        if isinstance(cards, str) or not isinstance(cards, Sequence):
            raise ValueError(f"cards must be a list of pairs of colour names; got {cards!r}")
        check_int("snails", self.snails, MIN_SNAILS, NUM_SNAILS)
        check_int("die_pips", self.die_pips, 1, MAX_PIPS)
        parsed = tuple(parse_card(card) for card in cards)
        racing = tuple(range(self.snails))
        if any(snail not in racing for card in parsed for snail in card):
            raise ValueError(
                f"with snails={self.snails} the cards may name only the snails "
                f"{', '.join(COLOURS[: self.snails])}; got {cards!r}"
            )
        if len(parsed) < self.num_players:
            raise ValueError(
                f"cards must hold at least one card per seat ({self.num_players}); "
                f"got {len(parsed)}"
            )
        object.__setattr__(self, "cards", tuple((COLOURS[a], COLOURS[b]) for a, b in parsed))
        check_choice("rounds", self.rounds, ROUNDS)
        check_bool("snail_face_backwards", self.snail_face_backwards)
        points = self.place_points
        if (
            isinstance(points, str)
            or not isinstance(points, Sequence)
            or len(points) != 3
            or not all(is_int(p) and p >= 0 for p in points)
        ):
            raise ValueError(
                "place_points must be three non-negative integers (1st, 2nd, last place); "
                f"got {points!r}"
            )
        object.__setattr__(self, "place_points", tuple(int(p) for p in points))
        check_optional_int("max_turns", self.max_turns, 1)
        check_bool("previews", self.previews)
        check_bool("choice_counts", self.choice_counts)
        object.__setattr__(
            self, "is_mushroom", tuple(leaf in self.mushrooms for leaf in range(last + 1))
        )
        object.__setattr__(self, "card_snails", parsed)
        object.__setattr__(self, "racing", racing)
        object.__setattr__(self, "die", Die((*range(1, self.die_pips + 1), SNAIL_FACE)))

    def max_points(self) -> float:
        """An upper bound on one seat's points over a whole game (infinite without `max_turns`)."""
        return most_points(self.max_turns, self.rounds, self.place_points)


def most_points(max_turns: int | None, rounds: int, place_points: Sequence[int]) -> float:
    """An upper bound on one seat's points over a game of at most `max_turns` turns (infinite
    without a limit): every move pushes the most snails, every race pays the best place."""
    if max_turns is None:
        return float("inf")
    per_race = 1 + 2 * max(place_points)
    return float(MAX_PUSHED * max_turns + rounds * per_race)


FACTS = GameInfo(
    env_name="pedzace_slimaki_v0",
    title="Pędzące Ślimaki",
    min_players=2,
    max_players=MAX_PLAYERS,
    num_actions=NUM_SNAILS,
    max_game_length=DEFAULT_MAX_TURNS,
    points_range=(
        0.0,
        most_points(
            PedzaceSlimakiOptions.max_turns,
            PedzaceSlimakiOptions.rounds,
            PedzaceSlimakiOptions.place_points,
        ),
    ),
    hidden_information=True,
    simultaneous=False,
    engine="snail_envs.batched.pedzace_slimaki:PedzaceSlimakiBatch",
    searchable=True,
    heuristic="snail_envs.agents.heuristics.pedzace_slimaki:PedzaceSlimakiHeuristic",
    tree_options=("snails", "die_pips", "board_length", "max_turns"),
)


@dataclass(frozen=True)
class Position:
    """A position to play from instead of the start of a game: for analysis and scenarios.

    The seat `turn` holds the dice `held` and rolls them at once; the other dice are set aside.
    `cards=None` deals the cards as a new race does; `first_seat` (default `turn`) is the seat
    that began the race (the next race begins with the seat after it). No die counts as used or
    passed over yet (`choice_counts`).
    """

    leaves: Sequence[int] = (START,) * NUM_SNAILS
    turn: int = 0
    held: Sequence[int] = ALL_DICE
    cards: Sequence[tuple[int, int]] | None = None
    scores: Sequence[int] | None = None
    race: int = 0
    first_seat: int | None = None


@dataclass(frozen=True)
class RaceResult:
    """How a race ended: the place points of each snail, the revealed cards, the card points."""

    race: int
    winner: int
    """The snail on the last leaf."""
    leaves: tuple[int, ...]
    snail_points: tuple[int, ...]
    cards: tuple[tuple[int, int], ...]
    card_points: tuple[int, ...]


class PedzaceSlimaki:
    """One game of Pędzące Ślimaki in progress.

    `leaf[s]` is snail s's leaf; `held` the dice of the seat to play, rolled into `faces`
    (`faces[c]` is die c's face this turn, `NOT_ROLLED` if not rolled); `set_aside[c]` whether
    die c waits beside the board to be collected; `scores[i]` seat i's points so far (tokens and
    the place points of finished races). `cards[i]` is seat i's card in this race: only the
    observer (for seat i or the full state) and the end-of-race scoring read it.
    """

    race: int
    """The race being run, from 0."""
    first_seat: int
    """The seat that began this race."""
    turn: int
    leaf: list[int]
    cards: list[tuple[int, int]]
    held: list[int]
    set_aside: list[bool]
    faces: list[int]
    dice_used: list[list[int]]
    dice_passed: list[list[int]]

    def __init__(
        self, options: PedzaceSlimakiOptions, chance: Chance, position: Position | None = None
    ) -> None:
        self.options = options
        self.num_players = options.num_players
        self.chance = chance
        """The source of every chance event still to come (rolls, new races' cards)."""
        self.last_leaf = options.board_length
        self.is_mushroom = options.is_mushroom
        self.backwards = options.snail_face_backwards
        self.racing = options.racing
        self._turn_limit = float("inf") if options.max_turns is None else options.max_turns
        self.scores = [0] * self.num_players
        self.turns_played = 0
        self.race_results: list[RaceResult] = []
        self.last_move: tuple | None = None
        """(seat, die, face, snail's leaf before, after, snails pushed, points) or (seat,) for a
        seat that passed its dice on; None before the first move."""
        self.outcome: Outcome | None = None
        self.legal: list[int] = []
        """The dice the seat to play may choose now."""
        if position is None:
            self._start_race(race=0, first_seat=0)
        else:
            self._start_position(position)
        self._roll_until_decision()

    # ----------------------------------------------------------------- the Game protocol

    @property
    def truncated(self) -> bool:
        return self.turns_played >= self._turn_limit and self.outcome is None

    def acting_seats(self) -> tuple[int, ...]:
        return () if self.outcome is not None or self.truncated else (self.turn,)

    def legal_actions(self, seat: int) -> list[int]:
        if seat != self.turn or self.outcome is not None or self.truncated:
            return []
        return self.legal

    def apply(self, actions: Mapping[int, int]) -> None:
        self.use_die(actions[self.turn])
        self._roll_until_decision()

    def is_in_game(self, seat: int) -> bool:
        return True

    def points(self) -> list[int]:
        """Each seat's points so far: tokens, and the place points of finished races."""
        return self.scores

    def describe_action(self, seat: int, action: int) -> str:
        text = f"use the {COLOURS[action]} die"
        if seat != self.turn or action not in self.legal:
            return text
        face, leaf = self.faces[action], self.leaf[action]
        if face != SNAIL_FACE:
            return f"{text} ({face}): {COLOURS[action]} snail to leaf {self._ahead(leaf, face)}"
        if self.backwards:
            return f"{text} (snail face): {COLOURS[action]} snail back to leaf {leaf - 2}"
        return (
            f"{text} (snail face): {COLOURS[action]} snail to leaf "
            f"{self._ahead(leaf, SNAIL_FACE_LEAVES)}, the die stays in the pool"
        )

    def private_text(self, seat: int) -> str:
        first, second = self.cards[seat]
        return f"your card: the {COLOURS[first]} and {COLOURS[second]} snails"

    def redraw_hidden(self, seat: int, chance: Chance) -> None:
        """Deal the other seats new cards from the cards `seat` does not hold.

        With five seats every card is dealt, so only who holds which of the other four changes.
        """
        unseen = list(self.options.card_snails)
        unseen.remove(self.cards[seat])
        redrawn = chance.arrange(unseen)
        for other in range(self.num_players):
            if other != seat:
                self.cards[other] = redrawn.pop()

    # ----------------------------------------------------------------- the rules

    def allowed_dice(self) -> list[int]:
        """The rolled dice the seat to play may choose: all of them, except (with
        `snail_face_backwards`) the snail face of a snail on leaf 0 or 1."""
        if not self.backwards:
            return list(self.held)
        faces, leaf = self.faces, self.leaf
        return [
            die
            for die in ALL_DICE
            if faces[die] and (faces[die] != SNAIL_FACE or leaf[die] >= SNAIL_FACE_LEAVES)
        ]

    def use_die(self, die: int) -> None:
        """Move the die's snail, set a pip die aside (a snail-face die stays in the pool, unless
        it moved the snail backwards), and pass the pool to the next seat."""
        face = self.faces[die]
        snail = die
        seat = self.turn
        origin = self.leaf[snail]
        stays_in_pool = face == SNAIL_FACE and not self.backwards
        self.dice_used[seat][die] += 1
        for other in self.legal:
            if other != die:
                self.dice_passed[seat][other] += 1
        pushed, gained = self.move(snail, face)
        self.scores[seat] += gained
        self.last_move = (seat, die, face, origin, self.leaf[snail], pushed, gained)
        self.turns_played += 1
        if self.leaf[snail] == self.last_leaf:
            self._end_race(snail)
            return
        if not stays_in_pool:
            self.set_aside[die] = True
            self.held.remove(die)
        self._pass_dice()

    def move(self, snail: int, face: int) -> tuple[tuple[int, ...], int]:
        """Move `snail` as its die showing `face` does: forward by the pips, or on the snail face
        2 leaves forward (2 back with `snail_face_backwards`); returns the snails it pushed and
        the points it scored."""
        if face != SNAIL_FACE:
            return self.move_forward(snail, face)
        if self.backwards:
            return self.move_back(snail, SNAIL_FACE_LEAVES)
        return self.move_forward(snail, SNAIL_FACE_LEAVES)

    def preview(self, leaves: Sequence[int], die: int, face: int) -> tuple[list[int], int]:
        """What using `die` showing `face` would do with the snails on `leaves`: the snails'
        leaves after the move and the points the mover would score; the game does not change.

        The race would end if the die's snail then stands on the last leaf. Only the options
        matter, not the game's state: players that look ahead (the heuristic bot) keep one game
        of the right options for previews.
        """
        saved = self.leaf
        self.leaf = list(leaves)
        try:
            _, gained = self.move(die, face)
            return self.leaf, gained
        finally:
            self.leaf = saved

    def move_forward(self, snail: int, leaves: int) -> tuple[tuple[int, ...], int]:
        """Move `snail` forward (stopping on the last leaf); returns the snails it pushed and the
        points it scored."""
        target = min(self.leaf[snail] + leaves, self.last_leaf)
        self.leaf[snail] = target
        if target == self.last_leaf:
            return (), 1
        if self.is_mushroom[target]:
            return (), 1
        pushed = self.push_from(target, snail)
        return pushed, len(pushed)

    def move_back(self, snail: int, leaves: int) -> tuple[tuple[int, ...], int]:
        """Move `snail` back (variant): it pushes as usual but scores nothing."""
        target = self.leaf[snail] - leaves
        self.leaf[snail] = target
        if target == START or self.is_mushroom[target]:
            return (), 0
        return self.push_from(target, snail), 0

    def push_from(self, leaf: int, mover: int) -> tuple[int, ...]:
        """Every snail on `leaf` other than `mover` goes back one leaf; pushed snails push
        nothing. (Never called for the start leaf or a mushroom.)"""
        leaves = self.leaf
        pushed = tuple(s for s in ALL_DICE if leaves[s] == leaf and s != mover)
        for snail in pushed:
            leaves[snail] = leaf - 1
        return pushed

    def snail_places(self, leaves: Sequence[int] | None = None) -> list[int]:
        """Each snail's place points at the end of a race: 1st (the snail on the last leaf),
        last (every racing snail on the rearmost occupied leaf), 2nd (every snail on the foremost
        leaf behind the winner, unless it is also the rearmost leaf), others (and the snails
        not in the race) 0.

        `leaves` (one snail on the last leaf) scores those leaves instead of the game's snails.
        """
        first, second, last = self.options.place_points
        if leaves is None:
            leaves = self.leaf
        racing = self.racing
        others = [leaves[s] for s in racing if leaves[s] != self.last_leaf]
        rearmost, foremost = min(others), max(others)
        places = []
        for snail, leaf in enumerate(leaves):
            if snail not in racing:
                places.append(0)
            elif leaf == self.last_leaf:
                places.append(first)
            elif leaf == rearmost:
                places.append(last)
            elif leaf == foremost:
                places.append(second)
            else:
                places.append(0)
        return places

    def _ahead(self, leaf: int, leaves: int) -> int:
        return min(leaf + leaves, self.last_leaf)

    def _start_race(
        self, race: int, first_seat: int, cards: list[tuple[int, int]] | None = None
    ) -> None:
        """All snails on the start, a new deal (unless `cards` are given), all the dice for
        `first_seat`, and no die used or passed over yet."""
        self.race = race
        self.first_seat = first_seat
        self.turn = first_seat
        self.leaf = [START] * NUM_SNAILS
        if cards is None:
            cards = self.chance.arrange(self.options.card_snails)[: self.num_players]
        self.cards = cards
        self.held = list(self.racing)
        self.set_aside = [False] * NUM_SNAILS
        self.faces = [NOT_ROLLED] * NUM_SNAILS
        self.dice_used = [[0] * NUM_SNAILS for _ in range(self.num_players)]
        self.dice_passed = [[0] * NUM_SNAILS for _ in range(self.num_players)]

    def _start_position(self, position: Position) -> None:
        n = self.num_players
        leaves = list(position.leaves)
        if len(leaves) != NUM_SNAILS or not all(START <= x < self.last_leaf for x in leaves):
            raise ValueError(
                f"a position has {NUM_SNAILS} leaves from 0 to {self.last_leaf - 1}; "
                f"got {position.leaves}"
            )
        held = sorted(set(position.held))
        if len(held) < 2 or not all(die in self.racing for die in held):
            raise ValueError(
                f"the seat to play holds 2 to {len(self.racing)} dice of the snails in the "
                f"race; got {position.held}"
            )
        if any(leaf != START for snail, leaf in enumerate(leaves) if snail not in self.racing):
            raise ValueError(f"the snails not in the race stay on leaf 0; got {position.leaves}")
        check_int("position turn", position.turn, 0, n - 1)
        check_int("position race", position.race, 0, self.options.rounds - 1)
        first_seat = position.turn if position.first_seat is None else position.first_seat
        check_int("position first_seat", first_seat, 0, n - 1)
        cards = None
        if position.cards is not None:
            cards = [(int(a), int(b)) for a, b in position.cards]
            if len(cards) != n:
                raise ValueError(f"a position deals one card per seat ({n}); got {len(cards)}")
        self._start_race(position.race, first_seat, cards)
        self.turn = position.turn
        self.leaf = leaves
        self.held = held
        self.set_aside = [die not in held for die in self.racing] + [False] * (
            NUM_SNAILS - len(self.racing)
        )
        if position.scores is not None:
            if len(position.scores) != n:
                raise ValueError(f"a position gives points for each seat ({n})")
            self.scores = list(position.scores)

    def _pass_dice(self) -> None:
        """The pool goes to the next seat; one die alone is not passed: all are collected."""
        self.turn = (self.turn + 1) % self.num_players
        if len(self.held) == 1:
            self.held = list(self.racing)
            self.set_aside = [False] * NUM_SNAILS

    def _roll_until_decision(self) -> None:
        """The seat to play rolls its dice; a seat with no die it may choose passes them on
        unchanged, and the next seat rolls, until a decision, the end, or the turn limit."""
        roll, faces = self.chance.show, self.options.die.faces
        while self.outcome is None and self.turns_played < self._turn_limit:
            rolled = [NOT_ROLLED] * NUM_SNAILS
            for die in self.held:
                rolled[die] = roll(faces)
            self.faces = rolled
            self.legal = self.allowed_dice()
            if self.legal:
                return
            self.last_move = (self.turn,)
            self.turns_played += 1
            self.turn = (self.turn + 1) % self.num_players

    def _end_race(self, winner: int) -> None:
        places = self.snail_places()
        card_points = [places[a] + places[b] for a, b in self.cards]
        for seat, gained in enumerate(card_points):
            self.scores[seat] += gained
        self.race_results.append(
            RaceResult(
                race=self.race,
                winner=winner,
                leaves=tuple(self.leaf),
                snail_points=tuple(places),
                cards=tuple(self.cards),
                card_points=tuple(card_points),
            )
        )
        if self.race + 1 < self.options.rounds:
            self._start_race(self.race + 1, (self.first_seat + 1) % self.num_players)
            return
        best = max(self.scores)
        self.outcome = Outcome(
            winners=frozenset(seat for seat, total in enumerate(self.scores) if total == best),
            reason="a snail reached the last leaf"
            + (f" in race {self.options.rounds}" if self.options.rounds > 1 else ""),
        )
