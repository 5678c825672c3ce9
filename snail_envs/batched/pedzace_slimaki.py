"""Pędzące Ślimaki in batches: the rules of `snail_envs.pedzace_slimaki.rules`, compiled.

Each game is one record of `game_dtype`: the snails' leaves, the dice (held by the seat to play,
set aside, and the faces of this turn's roll), the cards and the points. Every rule function
below has the name and the behaviour of its counterpart in the reference engine; observations
are written exactly as `PedzaceSlimakiObserver` writes them. Every rule option is supported.
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
from numba import njit

from snail_envs.batched.chance import agent_pick, arrange, begin_game, game_record, pick
from snail_envs.batched.core import (
    REWARD_MODES,
    TurnBasedGame,
    clear,
    pieces_dtype,
    record,
    seating_record,
)
from snail_envs.batched.drivers import compile_drivers
from snail_envs.core.layout import Layout
from snail_envs.pedzace_slimaki.env import SPEC
from snail_envs.pedzace_slimaki.observer import MAX_RACES, NUM_FACES, POINTS_SCALE
from snail_envs.pedzace_slimaki.rules import (
    MAX_BOARD_LENGTH,
    MAX_PLAYERS,
    NUM_SNAILS,
    SNAIL_FACE,
    SNAIL_FACE_LEAVES,
    START,
    PedzaceSlimakiOptions,
)

NOT_ROLLED = 0
MAX_LEAVES = MAX_BOARD_LENGTH + 1
POSITION_WEIGHT = 0.5
"""How much a guessed place point is worth against a point in hand (as in the heuristic)."""
MAX_WORLDS = 720
"""The most ways of holding the unseen cards the heuristic port weighs (the Python heuristic
weighs them all; with the default cards there are at most 24)."""

PIECES = pieces_dtype(
    (
        "card",
        "leaves",
        "dice",
        "set_aside",
        "mushrooms",
        "points",
        "turn",
        "race",
        "three_races",
        "players",
    )
)
"""Where each piece of an observation (or of the state) starts."""

_PIECE_NAMES = (
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


GAME = game_record(
    [
        ("leaf", np.int8, NUM_SNAILS),
        ("held", np.uint8, NUM_SNAILS),
        ("set_aside", np.uint8, NUM_SNAILS),
        ("faces", np.int8, NUM_SNAILS),
        ("legal", np.uint8, NUM_SNAILS),
        ("card", np.uint8, MAX_PLAYERS),
        ("card_index", np.int8, MAX_PLAYERS),
        ("scores", np.int64, MAX_PLAYERS),
        ("race", np.int8),
        ("first_seat", np.int8),
        ("turn", np.int8),
        ("finished", np.uint8),
        ("turns_played", np.int64),
    ]
)
"""One game: each snail's leaf; the dice the seat to play holds, those set aside, and this
turn's faces (0 for a die not rolled, 6 the snail face); the dice it may choose; each seat's
card (bit s for snail s), which of the rules' cards it is, and the seat's points; the race, the
seat that began it, the seat to play."""


def rules_dtype(num_cards: int) -> np.dtype:
    """The rule options as the kernels read them."""
    return np.dtype(
        [
            ("num_players", np.int64),
            ("last_leaf", np.int64),
            ("is_mushroom", np.uint8, MAX_LEAVES),
            ("cards", np.uint8, num_cards),  # the cards to deal from, as snail bits
            ("rounds", np.int64),
            ("backwards", np.uint8),
            ("place_points", np.int64, 3),  # 1st, 2nd, last
            ("max_turns", np.int64),  # −1: no limit
            ("reward", np.int64),  # the index in REWARD_MODES
            ("observation", PIECES),
            ("state", PIECES),
            # the heuristic player's view of each card a seat may hold (see `heuristic_tables`)
            ("weights", np.float64, (num_cards, NUM_SNAILS)),
            ("worlds", np.uint8, (num_cards, MAX_WORLDS, MAX_PLAYERS - 1)),
            ("world_count", np.int64, num_cards),
        ]
    )


def _pieces(layout: Layout) -> tuple[int, ...]:
    return (layout.offset(layout.pieces[0].name), *map(layout.offset, _PIECE_NAMES))


# --------------------------------------------------------------------------- the rules


@njit(cache=True)
def is_over(g) -> bool:
    return g.finished == 1


@njit(cache=True)
def is_truncated(g, rules) -> bool:
    return not is_over(g) and rules.max_turns >= 0 and g.turns_played >= rules.max_turns


@njit(cache=True)
def allowed_dice(g, rules) -> int:
    """Write the rolled dice the seat to play may choose into `legal`: all of them, except
    (with `snail_face_backwards`) the snail face of a snail on leaf 0 or 1; returns how many."""
    count = 0
    for die in range(NUM_SNAILS):
        face = g.faces[die]
        allowed = face != NOT_ROLLED and not (
            rules.backwards and face == SNAIL_FACE and g.leaf[die] < SNAIL_FACE_LEAVES
        )
        g.legal[die] = allowed
        count += allowed
    return count


@njit(cache=True)
def push_from(g, leaf: int, mover: int) -> int:
    """Every snail on `leaf` other than `mover` goes back one leaf; returns how many."""
    pushed = 0
    for snail in range(NUM_SNAILS):
        if g.leaf[snail] == leaf and snail != mover:
            g.leaf[snail] = leaf - 1
            pushed += 1
    return pushed


@njit(cache=True)
def move_forward(g, rules, snail: int, leaves: int) -> int:
    """Move `snail` forward (stopping on the last leaf); returns the points it scored."""
    target = min(g.leaf[snail] + leaves, rules.last_leaf)
    g.leaf[snail] = target
    if target == rules.last_leaf or rules.is_mushroom[target]:
        return 1
    return push_from(g, target, snail)


@njit(cache=True)
def move_back(g, rules, snail: int, leaves: int) -> None:
    """Move `snail` back (variant): it pushes as usual but scores nothing."""
    target = g.leaf[snail] - leaves
    g.leaf[snail] = target
    if target != START and not rules.is_mushroom[target]:
        push_from(g, target, snail)


@njit(cache=True)
def use_die(g, rules, die: int) -> None:
    """Move the die's snail, set a pip die aside (a snail-face die stays in the pool, unless it
    moved the snail backwards), and pass the pool to the next seat."""
    face = g.faces[die]
    stays_in_pool = False
    gained = 0
    if face != SNAIL_FACE:
        gained = move_forward(g, rules, die, face)
    elif rules.backwards:
        move_back(g, rules, die, SNAIL_FACE_LEAVES)
    else:
        gained = move_forward(g, rules, die, SNAIL_FACE_LEAVES)
        stays_in_pool = True
    g.scores[g.turn] += gained
    g.turns_played += 1
    if g.leaf[die] == rules.last_leaf:
        end_race(g, rules)
        return
    if not stays_in_pool:
        g.set_aside[die] = 1
        g.held[die] = 0
    pass_dice(g, rules)


@njit(cache=True)
def pass_dice(g, rules) -> None:
    """The pool goes to the next seat; one die alone is not passed: all five are collected."""
    g.turn = (g.turn + 1) % rules.num_players
    if g.held.sum() == 1:
        g.held[:] = 1
        g.set_aside[:] = 0


@njit(cache=True)
def roll_until_decision(g, rules) -> None:
    """The seat to play rolls its dice; a seat with no die it may choose passes them on
    unchanged, and the next seat rolls, until a decision, the end, or the turn limit."""
    while not is_over(g) and not is_truncated(g, rules):
        for die in range(NUM_SNAILS):
            g.faces[die] = pick(g, NUM_FACES) + 1 if g.held[die] else NOT_ROLLED
        if allowed_dice(g, rules):
            return
        g.turns_played += 1
        g.turn = (g.turn + 1) % rules.num_players


@njit(cache=True)
def snail_places(rules, leaves: np.ndarray, places: np.ndarray) -> None:
    """Each snail's place points at the end of a race: 1st (on the last leaf), last (on the
    rearmost occupied leaf), 2nd (on the foremost leaf behind the winner, unless it is also the
    rearmost), others 0."""
    rearmost, foremost = rules.last_leaf, START
    for snail in range(NUM_SNAILS):
        if leaves[snail] != rules.last_leaf:
            rearmost = min(rearmost, leaves[snail])
            foremost = max(foremost, leaves[snail])
    for snail in range(NUM_SNAILS):
        leaf = leaves[snail]
        if leaf == rules.last_leaf:
            places[snail] = rules.place_points[0]
        elif leaf == rearmost:
            places[snail] = rules.place_points[2]
        elif leaf == foremost:
            places[snail] = rules.place_points[1]
        else:
            places[snail] = 0


@njit(cache=True)
def start_race(g, rules, race: int, first_seat: int) -> None:
    """All snails on the start, a new deal, and all five dice for `first_seat`."""
    g.race = race
    g.first_seat = first_seat
    g.turn = first_seat
    g.leaf[:] = START
    order = np.empty(rules.cards.shape[0], np.int64)
    arrange(g, order)
    g.card[:] = 0
    for seat in range(rules.num_players):
        g.card[seat] = rules.cards[order[seat]]
        g.card_index[seat] = order[seat]
    g.held[:] = 1
    g.set_aside[:] = 0
    g.faces[:] = NOT_ROLLED


@njit(cache=True)
def end_race(g, rules) -> None:
    """Score the snails on each seat's card; then the next race, or the end of the game."""
    places = np.empty(NUM_SNAILS, np.int64)
    snail_places(rules, g.leaf, places)
    for seat in range(rules.num_players):
        for snail in range(NUM_SNAILS):
            if g.card[seat] >> snail & 1:
                g.scores[seat] += places[snail]
    if g.race + 1 < rules.rounds:
        start_race(g, rules, g.race + 1, (g.first_seat + 1) % rules.num_players)
    else:
        g.finished = 1


@njit(cache=True)
def start_game(g, rules) -> None:
    begin_game(g)
    g.scores[:] = 0
    g.turns_played = 0
    g.finished = 0
    start_race(g, rules, 0, 0)
    roll_until_decision(g, rules)


@njit(cache=True)
def apply(g, rules, actions: np.ndarray) -> None:
    """The seat to play uses its die `actions[turn]`; the next seats roll on to a decision."""
    use_die(g, rules, actions[g.turn])
    roll_until_decision(g, rules)


@njit(cache=True)
def points(g) -> np.ndarray:
    """Each seat's points."""
    return g.scores


# --------------------------------------------------------------------------- players


@njit(cache=True)
def random_action(g, rules, seat: int) -> int:
    """A uniformly random die among those the seat to play may choose."""
    chosen = agent_pick(g, g.legal.sum())
    for die in range(NUM_SNAILS):
        if g.legal[die]:
            if chosen == 0:
                return die
            chosen -= 1
    return -1


def heuristic_tables(options: PedzaceSlimakiOptions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the heuristic works out from the cards it cannot see, for each card a seat may hold:
    how much each snail's place points matter to the seat (1 if on its card, less the share of
    the unseen cards naming it), and every way the other seats may hold the unseen cards (snail
    bits, next seat first; −1 ways when there are more than `MAX_WORLDS`)."""
    cards = options.card_snails
    weights = np.zeros((len(cards), NUM_SNAILS), np.float64)
    worlds = np.zeros((len(cards), MAX_WORLDS, MAX_PLAYERS - 1), np.uint8)
    counts = np.zeros(len(cards), np.int64)
    for index, card in enumerate(cards):
        unseen = list(cards)
        unseen.remove(card)
        for snail in range(NUM_SNAILS):
            shared = sum(snail in other for other in unseen) / max(1, len(unseen))
            weights[index, snail] = (snail in card) - shared
        ways = list(
            itertools.islice(
                itertools.permutations(unseen, options.num_players - 1), MAX_WORLDS + 1
            )
        )
        counts[index] = len(ways) if len(ways) <= MAX_WORLDS else -1
        for way, world in enumerate(ways[:MAX_WORLDS]):
            worlds[index, way, : len(world)] = [(1 << a) | (1 << b) for a, b in world]
    return weights, worlds, counts


@njit(cache=True)
def expected_places(rules, leaves: np.ndarray, guesses: np.ndarray) -> None:
    """`PedzaceSlimakiHeuristic.expected_places`: a rough guess of each snail's place points at
    the end of a race still running (the same arithmetic, in the same order)."""
    first, second, rear = rules.place_points[0], rules.place_points[1], rules.place_points[2]
    order = np.sort(leaves)
    progress = order[NUM_SNAILS - 1] / rules.last_leaf
    per_leaf = first * (0.01 + 0.07 * progress)
    alone_at_back = rear * progress * progress * 2 / 3
    shared_back = rear * progress * progress * 0.4
    mean = (first + second + rear) / NUM_SNAILS
    low, second_low = order[0], order[1]
    second_high, high = order[NUM_SNAILS - 2], order[NUM_SNAILS - 1]
    for snail in range(NUM_SNAILS):
        leaf = leaves[snail]
        ahead = leaf - (second_high if leaf == high else high)
        behind = leaf - (second_low if leaf == low else low)
        back = alone_at_back if behind < 0 else shared_back if behind == 0 else 0.0
        guesses[snail] = mean + per_leaf * min(4, max(-6, ahead)) + back


@njit(cache=True)
def chance_to_win(g, rules, seat: int, places: np.ndarray, gained: int) -> float:
    """`PedzaceSlimakiHeuristic.chance_to_win`: the seat's expected game score (win 1, shared
    win ½) if the game ended now with `places`, over every way the others may hold their cards."""
    index, n = g.card_index[seat], rules.num_players
    mine = g.scores[seat] + gained
    for snail in range(NUM_SNAILS):
        if g.card[seat] >> snail & 1:
            mine += places[snail]
    if rules.world_count[index] == 0:
        return 0.5
    total = 0.0
    for way in range(rules.world_count[index]):
        best = -1
        for position in range(1, n):
            other = g.scores[(seat + position) % n]
            card = rules.worlds[index, way, position - 1]
            for snail in range(NUM_SNAILS):
                if card >> snail & 1:
                    other += places[snail]
            best = max(best, other)
        total += 1.0 if mine > best else 0.5 if mine == best else 0.0
    return total / rules.world_count[index]


@njit(cache=True)
def heuristic_action(g, rules, seat: int) -> int:
    """`agents.heuristics.pedzace_slimaki.PedzaceSlimakiHeuristic`, told the game's options: the
    die whose move is worth most, points scored at once plus the place points it settles (or
    half those it may expect), a sure win first and a sure loss last in the game's last race."""
    weights = rules.weights[g.card_index[seat]]
    final_race = g.race == rules.rounds - 1
    saved = g.leaf.copy()
    places = np.empty(NUM_SNAILS, np.int64)
    guesses = np.empty(NUM_SNAILS, np.float64)
    best_die, best_verdict, best_worth = -1, -1, 0.0
    for die in range(NUM_SNAILS):
        if not g.legal[die]:
            continue
        face = g.faces[die]
        if face != SNAIL_FACE:
            gained = move_forward(g, rules, die, face)
        elif rules.backwards:
            move_back(g, rules, die, SNAIL_FACE_LEAVES)
            gained = 0
        else:
            gained = move_forward(g, rules, die, SNAIL_FACE_LEAVES)
        verdict = 1
        worth = 0.0
        if g.leaf[die] == rules.last_leaf:
            snail_places(rules, g.leaf, places)
            for snail in range(NUM_SNAILS):
                worth += places[snail] * weights[snail]
            if final_race:
                chance = chance_to_win(g, rules, seat, places, gained)
                verdict = 2 if chance == 1.0 else 0 if chance == 0.0 else 1
        else:
            expected_places(rules, g.leaf, guesses)
            for snail in range(NUM_SNAILS):
                worth += guesses[snail] * weights[snail]
            worth = POSITION_WEIGHT * worth
        g.leaf[:] = saved
        # equal worths are ties, not float noise
        worth = round(gained + worth, 9)
        if (
            best_die < 0
            or verdict > best_verdict
            or (verdict == best_verdict and worth > best_worth)
        ):
            best_die, best_verdict, best_worth = die, verdict, worth
    return best_die


# --------------------------------------------------------------------------- observations


@njit(cache=True)
def write_board(rules, at, out: np.ndarray) -> None:
    """What stays the same during a game: the mushrooms, the races, the number of players."""
    for leaf in range(rules.last_leaf + 1):
        out[at.mushrooms + leaf] = rules.is_mushroom[leaf]
    out[at.three_races] = rules.rounds == MAX_RACES
    out[at.players + rules.num_players - 2] = 1


@njit(cache=True)
def write_table(g, rules, at, out: np.ndarray, seat: int) -> None:
    """Everything public, seats counted from `seat` (0 for the absolute state), over whatever
    these pieces held before."""
    leaves, n = rules.last_leaf + 1, rules.num_players
    clear(out, at.leaves, NUM_SNAILS * leaves)
    clear(out, at.dice, NUM_SNAILS * NUM_FACES)
    clear(out, at.set_aside, NUM_SNAILS)
    clear(out, at.points, MAX_PLAYERS)
    clear(out, at.turn, MAX_PLAYERS)
    clear(out, at.race, MAX_RACES)
    for snail in range(NUM_SNAILS):
        out[at.leaves + leaves * snail + g.leaf[snail]] = 1
    for die in range(NUM_SNAILS):
        if g.faces[die] != NOT_ROLLED:
            out[at.dice + NUM_FACES * die + g.faces[die] - 1] = 1
        out[at.set_aside + die] = g.set_aside[die]
    out[at.turn + (g.turn - seat) % n] = 1
    out[at.race + g.race] = 1
    for other in range(n):
        out[at.points + (other - seat) % n] = g.scores[other] / POINTS_SCALE


@njit(cache=True)
def update_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """Rewrite `out`, an observation of the same game, as `seat` sees the table now."""
    at = rules.observation
    for snail in range(NUM_SNAILS):
        out[at.card + snail] = g.card[seat] >> snail & 1
    write_table(g, rules, at, out, seat)


@njit(cache=True)
def write_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """What `seat` sees: its card and the table, seats relative to it."""
    out.fill(0)
    write_board(rules, rules.observation, out)
    update_observation(g, rules, seat, out)


@njit(cache=True)
def write_state(g, rules, out: np.ndarray) -> None:
    at = rules.state
    out.fill(0)
    for seat in range(rules.num_players):
        for snail in range(NUM_SNAILS):
            if g.card[seat] >> snail & 1:
                out[at.card + NUM_SNAILS * seat + snail] = 1
    write_board(rules, at, out)
    write_table(g, rules, at, out, 0)


@njit(cache=True)
def write_mask(g, rules, seat: int, mask: np.ndarray) -> None:
    """The dice the seat to play may choose (`seat`)."""
    for die in range(NUM_SNAILS):
        mask[die] = g.legal[die]


# --------------------------------------------------------------------------- the engine


class PedzaceSlimakiBatch(TurnBasedGame):
    """N games of Pędzące Ślimaki (see `snail_envs.batched.core` for the arrays).

        batch = snail_envs.batched.make("pedzace_slimaki_v0", num_envs=4096, rounds=3)
        out = batch.reset(seed=0)
        out = batch.step(batch.random_actions())

    Turn-based: one acting slot, the seat to play (`seat`, `observation` and `action_mask` are
    its views without the slot axis).
    """

    spec = SPEC
    game_dtype = GAME
    kernels = compile_drivers(sys.modules[__name__])
    seating_dtype = seating_record(MAX_PLAYERS)

    def compile_rules(self, options: PedzaceSlimakiOptions) -> np.ndarray:
        weights, worlds, world_count = heuristic_tables(options)
        is_mushroom = np.zeros(MAX_LEAVES, np.uint8)
        is_mushroom[: options.board_length + 1] = options.is_mushroom
        return record(
            rules_dtype(len(options.card_snails)),
            num_players=options.num_players,
            last_leaf=options.board_length,
            is_mushroom=is_mushroom,
            cards=[(1 << first) | (1 << second) for first, second in options.card_snails],
            rounds=options.rounds,
            backwards=options.snail_face_backwards,
            place_points=options.place_points,
            max_turns=-1 if options.max_turns is None else options.max_turns,
            reward=REWARD_MODES.index(self.reward_mode),
            observation=_pieces(self.observation_layout),
            state=_pieces(self.state_layout),
            weights=weights,
            worlds=worlds,
            world_count=world_count,
        )

    def check_opponent(self, name: str) -> None:
        if name == "heuristic" and (self.rules["world_count"] < 0).any():
            raise ValueError(
                f"the heuristic port weighs at most {MAX_WORLDS} ways of holding the unseen "
                "cards; these cards give more"
            )
