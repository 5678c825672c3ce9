"""A rule-of-thumb player for Pędzące Ślimaki.

The strategy is `choose`, plain Python that numba also compiles: the batched engine's in-kernel
heuristic (`snail_envs.batched.pedzace_slimaki`) runs this same function on the seat's
observation. What `choose` needs beyond the observation comes in one array of integers
(`rule_parameters`): where the observation's pieces start, which follows the board's length, and
the rules no observation shows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from snail_envs.core.layout import Layout, Vector
from snail_envs.core.options import parse_options
from snail_envs.pedzace_slimaki.observer import (
    MAX_RACES,
    NUM_FACES,
    POINTS_SCALE,
    PedzaceSlimakiObserver,
)
from snail_envs.pedzace_slimaki.rules import (
    DEFAULT_CARDS,
    MAX_PLAYERS,
    NOT_ROLLED,
    NUM_SNAILS,
    SNAIL_FACE,
    SNAIL_FACE_LEAVES,
    START,
    PedzaceSlimakiOptions,
    parse_card,
)

POSITION_WEIGHT = 0.5
"""How much a guessed place point is worth against a point in hand."""

PIECES = (
    "own_card",
    "snail_leaves",
    "dice_rolled",
    "mushrooms",
    "points",
    "race",
    "three_races",
    "num_players",
)
"""The observation's pieces the strategy reads; the first slots of the parameters hold where
each starts."""
OWN_CARD, SNAIL_LEAVES, DICE_ROLLED, MUSHROOMS, POINTS, RACE, THREE_RACES, NUM_PLAYERS = range(
    len(PIECES)
)
LAST_LEAF, FIRST_PLACE, SECOND_PLACE, LAST_PLACE, SNAIL_FACE_BACKWARDS, CARDS = range(
    len(PIECES), len(PIECES) + 6
)
"""The other slots of the parameters: the last leaf, the place points of 1st, 2nd and last place,
whether the snail face moves back (1) or not (0), and from `CARDS` on the cards to deal from,
one a slot, as snail bits (bit s for snail s)."""


def rule_parameters(
    layout: Layout,
    cards: Sequence[tuple[int, int]],
    place_points: Sequence[int],
    snail_face_backwards: bool,
) -> np.ndarray:
    """What `choose` reads besides the observation, for observations of `layout` and a table
    with these cards (pairs of snails), place points and snail face."""
    starts = [layout.offset(name) for name in PIECES]
    last_leaf = layout["mushrooms"].stop - layout["mushrooms"].start - 1  # a flag for each leaf
    bits = [(1 << first) | (1 << second) for first, second in cards]
    return np.array([*starts, last_leaf, *place_points, int(snail_face_backwards), *bits], np.int64)


# --------------------------------------------------------------------------- the table


def snail_leaf(observation: Vector[float], parameters: Vector[int], snail: int) -> int:
    """The leaf `snail` stands on."""
    leaves = parameters[LAST_LEAF] + 1
    row = parameters[SNAIL_LEAVES] + leaves * snail
    for leaf in range(leaves):
        if observation[row + leaf] > 0:
            return leaf
    return START


def die_face(observation: Vector[float], parameters: Vector[int], die: int) -> int:
    """The face die `die` shows this turn (1–5 pips, 6 the snail face), `NOT_ROLLED` if none."""
    row = parameters[DICE_ROLLED] + NUM_FACES * die
    for face in range(NUM_FACES):
        if observation[row + face] > 0:
            return face + 1
    return NOT_ROLLED


def is_mushroom(observation: Vector[float], parameters: Vector[int], leaf: int) -> bool:
    return observation[parameters[MUSHROOMS] + leaf] > 0


def seat_points(observation: Vector[float], parameters: Vector[int], seat: int) -> int:
    """The points so far of `seat` (0 me, 1 the next seat to my left, ...)."""
    return round(float(observation[parameters[POINTS] + seat]) * POINTS_SCALE)


def own_card(observation: Vector[float], parameters: Vector[int]) -> int:
    """My card, as snail bits."""
    card = 0
    for snail in range(NUM_SNAILS):
        if observation[parameters[OWN_CARD] + snail] > 0:
            card |= 1 << snail
    return card


def player_count(observation: Vector[float], parameters: Vector[int]) -> int:
    for count in range(2, MAX_PLAYERS + 1):
        if observation[parameters[NUM_PLAYERS] + count - 2] > 0:
            return count
    return 2


def race_index(observation: Vector[float], parameters: Vector[int]) -> int:
    """The race being run, from 0."""
    for race in range(MAX_RACES):
        if observation[parameters[RACE] + race] > 0:
            return race
    return 0


def race_count(observation: Vector[float], parameters: Vector[int]) -> int:
    return MAX_RACES if observation[parameters[THREE_RACES]] > 0 else 1


def unseen_cards(parameters: Vector[int], card: int, unseen: list[int]) -> int:
    """Write the cards I cannot see into `unseen`: every card to deal from, less one equal to
    mine (if any is); returns how many."""
    count = 0
    skipped = False
    for slot in range(CARDS, len(parameters)):
        if parameters[slot] == card and not skipped:
            skipped = True
            continue
        unseen[count] = parameters[slot]
        count += 1
    return count


def card_points(card: int, places: Sequence[int]) -> int:
    points = 0
    for snail in range(NUM_SNAILS):
        if card >> snail & 1:
            points += places[snail]
    return points


# --------------------------------------------------------------------------- looking ahead


def push_from(leaves: list[int], leaf: int, mover: int) -> int:
    """Every snail on `leaf` other than `mover` goes back one leaf; returns how many."""
    pushed = 0
    for snail in range(NUM_SNAILS):
        if leaves[snail] == leaf and snail != mover:
            leaves[snail] = leaf - 1
            pushed += 1
    return pushed


def preview(
    observation: Vector[float],
    parameters: Vector[int],
    leaves: Sequence[int],
    die: int,
    face: int,
    backwards: bool,
    after: list[int],
) -> int:
    """The move of `die` showing `face` as the rules make it (`PedzaceSlimaki.move`): the
    snails' leaves after it go into `after`; returns the points the mover scores."""
    for snail in range(NUM_SNAILS):
        after[snail] = leaves[snail]
    if face == SNAIL_FACE and backwards:
        target = leaves[die] - SNAIL_FACE_LEAVES
        after[die] = target
        if target > START and not is_mushroom(observation, parameters, target):
            push_from(after, target, die)
        return 0
    last = parameters[LAST_LEAF]
    target = min(leaves[die] + (SNAIL_FACE_LEAVES if face == SNAIL_FACE else face), last)
    after[die] = target
    if target == last or is_mushroom(observation, parameters, target):
        return 1
    return push_from(after, target, die)


def snail_places(parameters: Vector[int], leaves: Sequence[int], places: list[int]) -> None:
    """Each snail's place points when the race ends on `leaves` (`PedzaceSlimaki.snail_places`):
    1st on the last leaf, last on the rearmost leaf, 2nd on the foremost leaf behind the winner
    unless it is also the rearmost, others 0."""
    last = parameters[LAST_LEAF]
    rearmost, foremost = last, START
    for snail in range(NUM_SNAILS):
        if leaves[snail] != last:
            rearmost = min(rearmost, leaves[snail])
            foremost = max(foremost, leaves[snail])
    for snail in range(NUM_SNAILS):
        leaf = leaves[snail]
        if leaf == last:
            places[snail] = parameters[FIRST_PLACE]
        elif leaf == rearmost:
            places[snail] = parameters[LAST_PLACE]
        elif leaf == foremost:
            places[snail] = parameters[SECOND_PLACE]
        else:
            places[snail] = 0


def expected_places(parameters: Vector[int], leaves: Sequence[int], guesses: list[float]) -> None:
    """A rough guess of each snail's place points at the end of a race still running (see
    `PedzaceSlimakiHeuristic`)."""
    first, second, rear = parameters[FIRST_PLACE], parameters[SECOND_PLACE], parameters[LAST_PLACE]
    # the two rearmost and the two foremost leaves (no sort: compiled, sorting costs most)
    low, high = min(leaves[0], leaves[1]), max(leaves[0], leaves[1])
    second_low, second_high = high, low
    for snail in range(2, NUM_SNAILS):
        leaf = leaves[snail]
        if leaf < low:
            low, second_low = leaf, low
        elif leaf < second_low:
            second_low = leaf
        if leaf > high:
            high, second_high = leaf, high
        elif leaf > second_high:
            second_high = leaf
    progress = high / parameters[LAST_LEAF]
    per_leaf = first * (0.01 + 0.07 * progress)
    alone_at_back = rear * progress * progress * 2 / 3
    shared_back = rear * progress * progress * 0.4
    mean = (first + second + rear) / NUM_SNAILS
    for snail in range(NUM_SNAILS):
        leaf = leaves[snail]
        ahead = leaf - (second_high if leaf == high else high)
        behind = leaf - (second_low if leaf == low else low)
        back = alone_at_back if behind < 0 else shared_back if behind == 0 else 0.0
        guesses[snail] = mean + per_leaf * min(4, max(-6, ahead)) + back


def chance_to_win(
    observation: Vector[float], parameters: Vector[int], places: Sequence[int], gained: int
) -> float:
    """My expected game score (win 1, shared win ½) if the game ended now with `places` and my
    move's `gained` points, over every way the cards I cannot see could be held by the others;
    ½ when they are fewer than the other seats (no verdict)."""
    card = own_card(observation, parameters)
    unseen = [0] * (len(parameters) - CARDS)
    count = unseen_cards(parameters, card, unseen)
    others = player_count(observation, parameters) - 1
    if count < others:
        return 0.5
    mine = seat_points(observation, parameters, 0) + gained + card_points(card, places)
    worth = [card_points(unseen[index], places) for index in range(count)]
    rivals = [seat_points(observation, parameters, seat) for seat in range(1, others + 1)]
    # every way to deal distinct unseen cards to the other seats, depth first: held[d] is the
    # unseen card of seat d + 1, −1 while none is tried yet
    held = [-1] * others
    dealt = [False] * count
    total, ways = 0.0, 0
    depth = 0
    while depth >= 0:
        if held[depth] >= 0:
            dealt[held[depth]] = False
        index = held[depth] + 1
        while index < count and dealt[index]:
            index += 1
        if index == count:
            held[depth] = -1
            depth -= 1
            continue
        held[depth] = index
        dealt[index] = True
        if depth + 1 < others:
            depth += 1
            continue
        best = rivals[0] + worth[held[0]]
        for seat in range(1, others):
            best = max(best, rivals[seat] + worth[held[seat]])
        total += 1.0 if mine > best else 0.5 if mine == best else 0.0
        ways += 1
    return total / ways


# --------------------------------------------------------------------------- the choice


def choose(observation: Vector[float], action_mask: Vector[int], parameters: Vector[int]) -> int:
    """The die to use (see `PedzaceSlimakiHeuristic`); the mask allows at least one."""
    last = parameters[LAST_LEAF]
    leaves = [0] * NUM_SNAILS
    faces = [0] * NUM_SNAILS
    legal = rolled = 0
    for snail in range(NUM_SNAILS):
        leaves[snail] = snail_leaf(observation, parameters, snail)
        faces[snail] = die_face(observation, parameters, snail)
        rolled += faces[snail] != NOT_ROLLED
        legal += action_mask[snail] != 0
    # only the backwards variant forbids a rolled die
    backwards = parameters[SNAIL_FACE_BACKWARDS] != 0 or legal < rolled
    card = own_card(observation, parameters)
    unseen = [0] * (len(parameters) - CARDS)
    count = unseen_cards(parameters, card, unseen)
    weights = [0.0] * NUM_SNAILS
    for snail in range(NUM_SNAILS):
        shared = 0
        for index in range(count):
            shared += unseen[index] >> snail & 1
        weights[snail] = (card >> snail & 1) - shared / max(1, count)
    final_race = race_index(observation, parameters) == race_count(observation, parameters) - 1
    after = [0] * NUM_SNAILS
    places = [0] * NUM_SNAILS
    guesses = [0.0] * NUM_SNAILS
    best_die, best_verdict, best_worth = -1, -1, 0.0
    for die in range(NUM_SNAILS):
        if not action_mask[die]:
            continue
        gained = preview(observation, parameters, leaves, die, faces[die], backwards, after)
        verdict = 1  # 2: a finish that surely wins, 0: one that surely loses
        worth = 0.0
        if after[die] == last:
            snail_places(parameters, after, places)
            for snail in range(NUM_SNAILS):
                worth += places[snail] * weights[snail]
            if final_race:
                chance = chance_to_win(observation, parameters, places, gained)
                verdict = 2 if chance == 1.0 else 0 if chance == 0.0 else 1
        else:
            expected_places(parameters, after, guesses)
            for snail in range(NUM_SNAILS):
                worth += guesses[snail] * weights[snail]
            worth = POSITION_WEIGHT * worth
        worth = round(gained + worth, 9)  # equal worths are ties, not float noise
        if (
            best_die < 0
            or verdict > best_verdict
            or (verdict == best_verdict and worth > best_worth)
        ):
            best_die, best_verdict, best_worth = die, verdict, worth
    return best_die


class PedzaceSlimakiHeuristic:
    """Score points now, race your snails to the front or keep them at the back, end the race
    when it pays.

    Every die the roll offers is tried (the move as the rules make it), and the move worth most
    is played:
    - points scored at once (pushes, a mushroom, the finish) count in full;
    - a move that ends the race is worth the place points it settles: for each snail, its
      points times how much it matters to me — 1 if it is on my card, less the chance that a
      given opponent holds it (the share of the cards I cannot see that name it). With the
      default cards a snail of mine counts ¾ and any other snail −½;
    - a move that does not end the race is worth half the place points the snails may expect
      from where they then stand, counted the same way. The guess, fitted to games of this
      bot against itself: with r the share of the race run (the leader's leaf over the last
      leaf), a snail gains (0.01 + 0.07 r) × the first-place points for each leaf it leads
      the others by (up to 4), or loses as much for each leaf it trails the leader by (up to
      6); a snail alone at the back keeps ⅔ r² × the last-place points, one sharing the back
      0.4 r². Since last place pays more than second, this pushes my leading snail on and
      leaves my trailing snail behind for the others to pass. Half weight played better
      than full weight: the guess is rough, points in hand are not;
    - in the game's last race, a finish that wins whatever cards the others hold is always
      played, and a finish that loses whatever they hold is never played when another move
      exists.

    Ties go to the lower die. The board's mushrooms, the players, the races and the points are
    read from the observation. What the observation does not show is taken as the rules'
    defaults unless given here: the board's length (`board_length`), the cards
    (`cards`), the place points (`place_points`) and whether the snail face moves back
    (`snail_face_backwards`; also inferred whenever the mask forbids a rolled die, which only
    that variant does), and whether the observations end with the dice's previews (`previews`,
    which the bot does not read: it makes its own) and the seats' choice counts
    (`choice_counts`, which it does not read either); `for_rules` gives them all. The bot keeps no
    memory between moves, so it reads nothing into the others' play.
    """

    def __init__(
        self,
        *,
        board_length: int = PedzaceSlimakiOptions.board_length,
        cards: Sequence[Sequence[str]] = DEFAULT_CARDS,
        place_points: Sequence[int] = (5, 2, 3),
        snail_face_backwards: bool = False,
        previews: bool = False,
        choice_counts: bool = False,
    ) -> None:
        self.board_length = board_length
        self.cards = tuple(parse_card(card) for card in cards)
        self.place_points = tuple(place_points)
        self.snail_face_backwards = snail_face_backwards
        table = PedzaceSlimakiOptions(
            board_length=board_length,
            mushrooms=(),
            previews=previews,
            choice_counts=choice_counts,
        )
        self.layout = PedzaceSlimakiObserver(table).observation_layout
        self.parameters = rule_parameters(
            self.layout, self.cards, self.place_points, self.snail_face_backwards
        ).tolist()

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> PedzaceSlimakiHeuristic:
        """The heuristic told the board length, cards, place points and snail face of these rule
        options, for their observations (with or without previews and choice counts)."""
        options = parse_options(PedzaceSlimakiOptions, rule_options, "pedzace_slimaki_v0")
        return cls(
            board_length=options.board_length,
            cards=options.cards,
            place_points=options.place_points,
            snail_face_backwards=options.snail_face_backwards,
            previews=options.previews,
            choice_counts=options.choice_counts,
        )

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: every decision reads only the observation."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        if not mask.any():
            raise ValueError("no legal action: the mask is all zero")
        vector = np.asarray(observation)
        if vector.shape[-1] != self.layout.size:
            raise ValueError(
                f"this heuristic reads the observations of a {self.board_length}-leaf board "
                f"({self.layout.size} entries), not {vector.shape[-1]}: make it for the table's "
                "rules with PedzaceSlimakiHeuristic.for_rules(options)"
            )
        # lists: the interpreter indexes them faster than arrays
        return choose(vector.tolist(), mask.tolist(), self.parameters)

    __call__ = act
