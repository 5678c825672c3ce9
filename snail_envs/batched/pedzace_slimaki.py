"""Pędzące Ślimaki in batches: the rules of `snail_envs.pedzace_slimaki.rules`, compiled.

Each game is one record of `game_dtype`: the snails' leaves, the dice (held by the seat to play,
set aside, and the faces of this turn's roll), the cards and the points. Every rule function
below has the name and the behaviour of its counterpart in the reference engine; observations
are written exactly as `PedzaceSlimakiObserver` writes them. Every rule option is supported.

For search, a game of the reference engine in progress loads into a record (`load_game`,
`PedzaceSlimakiBatch.load`), and `redraw_hidden` (`PedzaceSlimakiBatch.redraw`) deals the other
seats new cards from those the searching seat does not hold, as the reference engine does.
"""

from __future__ import annotations

import sys

import numpy as np

from snail_envs.agents.heuristics import pedzace_slimaki as strategy
from snail_envs.batched import core
from snail_envs.batched.chance import (
    arrange,
    begin_game,
    game_record,
    pick,
    redeal_others,
    seed_games,
)
from snail_envs.batched.compiling import compiled, entry_point, inlined, jitable
from snail_envs.batched.core import (
    TurnBasedGame,
    agent_pick_bit,
    clear,
    copy_into,
    fraction,
    mark_action,
    move_marks,
    next_seat,
    observer_pieces,
    seating_record,
    seats_after,
    unsigned,
    write_bits,
)
from snail_envs.batched.drivers import compile_drivers
from snail_envs.batched.records import fields
from snail_envs.pedzace_slimaki.env import SPEC
from snail_envs.pedzace_slimaki.observer import (
    COUNTS_SCALE,
    COUNTS_SIZE,
    DECISIONS,
    MAX_RACES,
    NUM_FACES,
    PASSED,
    POINTS_SCALE,
    PREVIEW_CARD,
    PREVIEW_FINISH,
    PREVIEW_LEAVES,
    PREVIEW_POINTS,
    PREVIEW_SIZE,
    USED,
    card_scale,
)
from snail_envs.pedzace_slimaki.rules import (
    MAX_BOARD_LENGTH,
    MAX_PLAYERS,
    MAX_PUSHED,
    NUM_SNAILS,
    SNAIL_FACE,
    SNAIL_FACE_LEAVES,
    START,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
)

NOT_ROLLED = 0
FIRST = np.int64(0)
"""The first race and its first seat, typed as the races and seats the kernels count, so that
`start_race` compiles once (constants would compile it again)."""
SNAIL_FACE_MOVE = np.int64(SNAIL_FACE_LEAVES)
"""The leaves a snail face moves, typed as a pip face's (as `FIRST`)."""
MAX_LEAVES = MAX_BOARD_LENGTH + 1
for helper in (
    strategy.snail_leaf,
    strategy.die_face,
    strategy.is_mushroom,
    strategy.seat_points,
    strategy.own_card,
    strategy.player_count,
    strategy.race_index,
    strategy.race_count,
    strategy.unseen_cards,
    strategy.card_points,
    strategy.push_from,
    strategy.preview,
    strategy.snail_places,
    strategy.expected_places,
    strategy.chance_to_win,
):
    jitable(helper)
choose = jitable(strategy.choose)
"""The heuristic's strategy, compiled where a kernel calls it, on arrays."""

PIECES = observer_pieces(SPEC, first="card", optional=("die_previews", "choice_counts"))
"""Where each piece of an observation or of the state starts (`card`: the seat's own card, or
every seat's; `die_previews` with `previews`, `choice_counts` with `choice_counts`)."""


TAPE = 64
"""How many of its latest chance outcomes a game keeps: more than one step draws. A step deals
at most once (one outcome a card: 5 with the default cards) and rolls at most 5 dice a roll; a
seat passes its roll on unused only with `snail_face_backwards`, when no die it rolled may be
chosen (at most 1 roll in 36), so 64 outcomes hold a deal and 11 rolls in a row."""

GAME = game_record(
    fields(NUM_SNAILS, leaf=np.int8, held=np.uint8, set_aside=np.uint8, faces=np.int8),
    fields(NUM_SNAILS, legal=np.uint8),
    fields(MAX_PLAYERS, card=np.uint8, scores=np.int64),
    fields((), race=np.int8, first_seat=np.int8, turn=np.int8, finished=np.uint8),
    fields((), turns_played=np.int64),
    fields(NUM_SNAILS, shown_leaf=np.int8),
    fields((), view_noted=np.uint8),
    fields((MAX_PLAYERS, NUM_SNAILS), dice_used=np.int32, dice_passed=np.int32),
    tape_length=TAPE,
)
"""One game: each snail's leaf; the dice the seat to play holds, those set aside, and this
turn's faces (0 for a die not rolled, 6 the snail face); the dice it may choose; each seat's
card (bit s for snail s) and points; the race, the seat that began it, the seat to play; and,
if `view_noted`, each snail's leaf as the acting view last written shows it, so that
`update_observation` moves only the marks of the snails that have moved since; with
`choice_counts`, the dice each seat used and passed over in this race (kept only then)."""


def rules_dtype(num_cards: int) -> np.dtype:
    """The rule options as the kernels read them: the cards to deal from as snail bits, the
    points of the 1st, 2nd and last places (and the most a card can score, `card_scale`),
    `max_turns` (−1 for no limit) and the heuristic's parameters (`strategy.rule_parameters`)."""
    return core.rules_dtype(
        PIECES,
        fields((), last_leaf=np.int64),
        fields(MAX_LEAVES, is_mushroom=np.uint8),
        fields(num_cards, cards=np.uint8),
        fields((), rounds=np.int64, backwards=np.uint8),
        fields(3, place_points=np.int64),
        fields((), card_scale=np.float64, max_turns=np.int64),
        fields(strategy.CARDS + num_cards, heuristic=np.int64),
    )


# --------------------------------------------------------------------------- the rules


@compiled
def is_over(g) -> bool:
    return g.finished == 1


@compiled
def is_truncated(g, rules) -> bool:
    return not is_over(g) and rules.max_turns >= 0 and g.turns_played >= rules.max_turns


@compiled
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


@compiled
def push_from(g, leaf: int, mover: int) -> int:
    """Every snail on `leaf` other than `mover` goes back one leaf; returns how many."""
    pushed = 0
    for snail in range(NUM_SNAILS):
        if g.leaf[snail] == leaf and snail != mover:
            g.leaf[snail] = leaf - 1
            pushed += 1
    return pushed


@compiled
def move_forward(g, rules, snail: int, leaves: int) -> int:
    """Move `snail` forward (stopping on the last leaf); returns the points it scored."""
    target = min(g.leaf[snail] + leaves, rules.last_leaf)
    g.leaf[snail] = target
    if target == rules.last_leaf or rules.is_mushroom[target]:
        return 1
    return push_from(g, target, snail)


@compiled
def move_back(g, rules, snail: int, leaves: int) -> None:
    """Move `snail` back (variant): it pushes as usual but scores nothing."""
    target = g.leaf[snail] - leaves
    g.leaf[snail] = target
    if target != START and not rules.is_mushroom[target]:
        push_from(g, target, snail)


@compiled
def move(g, rules, die: int) -> int:
    """Move the die's snail as its face does: forward by the pips, or on the snail face 2 leaves
    forward (2 back with `snail_face_backwards`); returns the points it scored."""
    face = g.faces[die]
    if face != SNAIL_FACE:
        return move_forward(g, rules, die, np.int64(face))
    if rules.backwards:
        move_back(g, rules, die, SNAIL_FACE_LEAVES)
        return 0
    return move_forward(g, rules, die, SNAIL_FACE_MOVE)


@compiled
def use_die(g, rules, die: int) -> None:
    """Move the die's snail, set a pip die aside (a snail-face die stays in the pool, unless it
    moved the snail backwards), and pass the pool to the next seat."""
    stays_in_pool = g.faces[die] == SNAIL_FACE and not rules.backwards
    if counts_choices(rules):
        count_choice(g, die)
    gained = move(g, rules, die)
    g.scores[g.turn] += gained
    g.turns_played += 1
    if g.leaf[die] == rules.last_leaf:
        end_race(g, rules)
        return
    if not stays_in_pool:
        g.set_aside[die] = 1
        g.held[die] = 0
    pass_dice(g, rules)


@compiled
def counts_choices(rules) -> bool:
    """Whether the observations count the dice used and passed over (`choice_counts`)."""
    return rules.observation.choice_counts >= 0


@compiled
def count_choice(g, die: int) -> None:
    """The seat to play uses `die`: one more use of it, and one more pass over each other die
    it could choose."""
    g.dice_used[g.turn, die] += 1
    for other in range(NUM_SNAILS):
        if g.legal[other] and other != die:
            g.dice_passed[g.turn, other] += 1


@compiled
def pass_dice(g, rules) -> None:
    """The pool goes to the next seat; one die alone is not passed: all five are collected."""
    g.turn = next_seat(g.turn, rules.num_players)
    if g.held.sum() == 1:
        g.held[:] = 1
        g.set_aside[:] = 0


@compiled
def roll_until_decision(g, rules) -> None:
    """The seat to play rolls its dice; a seat with no die it may choose passes them on
    unchanged, and the next seat rolls, until a decision, the end, or the turn limit."""
    while not is_over(g) and not is_truncated(g, rules):
        for die in range(NUM_SNAILS):
            g.faces[die] = pick(g, NUM_FACES) + 1 if g.held[die] else NOT_ROLLED
        if allowed_dice(g, rules):
            return
        g.turns_played += 1
        g.turn = next_seat(g.turn, rules.num_players)


@compiled
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


@compiled
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
    g.held[:] = 1
    g.set_aside[:] = 0
    g.faces[:] = NOT_ROLLED
    if counts_choices(rules):
        g.dice_used[:] = 0
        g.dice_passed[:] = 0


@compiled
def end_race(g, rules) -> None:
    """Score the snails on each seat's card; then the next race, or the end of the game."""
    places = np.empty(NUM_SNAILS, np.int64)
    snail_places(rules, g.leaf, places)
    for seat in range(rules.num_players):
        for snail in range(NUM_SNAILS):
            if g.card[seat] >> snail & 1:
                g.scores[seat] += places[snail]
    if g.race + 1 < rules.rounds:
        start_race(g, rules, g.race + 1, next_seat(g.first_seat, rules.num_players))
    else:
        g.finished = 1


@compiled
def points(g) -> np.ndarray:
    """Each seat's points."""
    return g.scores


@inlined
def start_game(g, rules) -> None:
    begin_game(g)
    g.scores[:] = 0
    g.turns_played = 0
    g.finished = 0
    start_race(g, rules, FIRST, FIRST)
    roll_until_decision(g, rules)


@inlined
def apply(g, rules, actions: np.ndarray) -> None:
    """The seat to play uses its die `actions[turn]`; the next seats roll on to a decision."""
    use_die(g, rules, actions[g.turn])
    roll_until_decision(g, rules)


# --------------------------------------------------------------------------- players


RANDOM_READS = ("agent_state", "legal")
"""The fields of a game's record that `random_action` reads (`drivers`)."""


@compiled
def random_action(g, rules, seat: int) -> int:
    """A uniformly random die among those the seat to play may choose."""
    legal = np.int64(0)
    for die in range(NUM_SNAILS):
        legal |= np.int64(g.legal[die] != 0) << die
    return agent_pick_bit(g, legal)


@inlined
def heuristic_choice(rules, observation: np.ndarray, mask: np.ndarray) -> int:
    """`snail_envs.agents.heuristics.pedzace_slimaki.choose`, with the rules' parameters."""
    return choose(observation, mask, rules.heuristic)


# --------------------------------------------------------------------------- observations


@compiled
def write_board(rules, at, out: np.ndarray) -> None:
    """What stays the same during a game: the mushrooms, the races, the number of players."""
    for leaf in range(rules.last_leaf + 1):
        out[at.mushrooms + leaf] = rules.is_mushroom[leaf]
    out[at.three_races] = rules.rounds == MAX_RACES
    out[at.num_players + rules.num_players - 2] = 1


@compiled
def write_table(g, rules, at, out: np.ndarray, seat: int) -> None:
    """Everything public, seats counted from `seat` (0 for the absolute state), over whatever
    these pieces held before."""
    leaves = rules.last_leaf + 1
    clear(out, at.snail_leaves, NUM_SNAILS * leaves)
    for snail in range(NUM_SNAILS):
        out[at.snail_leaves + leaves * snail + g.leaf[snail]] = 1
    write_turn_pieces(g, rules, at, out, seat)


@compiled
def write_turn_pieces(g, rules, at, out: np.ndarray, seat: int) -> None:
    """The dice, the points, the seat to play and the race, seats counted from `seat`, over
    whatever these pieces held before."""
    n = rules.num_players
    clear(out, at.dice_rolled, NUM_SNAILS * NUM_FACES)
    clear(out, at.dice_set_aside, NUM_SNAILS)
    clear(out, at.points, MAX_PLAYERS)
    clear(out, at.turn, MAX_PLAYERS)
    clear(out, at.race, MAX_RACES)
    for die in range(NUM_SNAILS):
        if g.faces[die] != NOT_ROLLED:
            out[unsigned(at.dice_rolled + NUM_FACES * die + g.faces[die] - 1)] = 1
        out[unsigned(at.dice_set_aside + die)] = g.set_aside[die]
    out[unsigned(at.turn + seats_after(seat, g.turn, n))] = 1
    out[unsigned(at.race + g.race)] = 1
    for other in range(n):
        out[unsigned(at.points + seats_after(seat, other, n))] = fraction(
            out, g.scores[other], POINTS_SCALE
        )


@compiled
def write_previews(g, rules, at, out: np.ndarray, seat: int) -> None:
    """What each die the seat to play may choose would do (`PedzaceSlimaki.preview`): each
    move played on the record and taken back; nothing once the game is over."""
    clear(out, at.die_previews, NUM_SNAILS * PREVIEW_SIZE)
    if is_over(g) or is_truncated(g, rules):
        return
    leaves = g.leaf.copy()
    for die in range(NUM_SNAILS):
        if not g.legal[die]:
            continue
        row = at.die_previews + PREVIEW_SIZE * die
        out[row + PREVIEW_POINTS] = fraction(out, move(g, rules, die), MAX_PUSHED)
        for snail in range(NUM_SNAILS):
            out[row + PREVIEW_LEAVES + snail] = fraction(out, g.leaf[snail], rules.last_leaf)
        if g.leaf[die] == rules.last_leaf:
            out[row + PREVIEW_FINISH] = 1
            places = np.empty(NUM_SNAILS, np.int64)
            snail_places(rules, g.leaf, places)
            card = 0
            for snail in range(NUM_SNAILS):
                if g.card[seat] >> snail & 1:
                    card += places[snail]
            out[row + PREVIEW_CARD] = fraction(out, card, rules.card_scale)
        copy_into(g.leaf, leaves)


@compiled
def write_counts(g, rules, at, out: np.ndarray, seat: int) -> None:
    """The dice each seat used and passed over in this race, seats counted from `seat`."""
    n = rules.num_players
    for other in range(n):
        row = at.choice_counts + COUNTS_SIZE * seats_after(seat, other, n)
        used = 0
        for die in range(NUM_SNAILS):
            out[row + USED + die] = fraction(out, g.dice_used[other, die], COUNTS_SCALE)
            out[row + PASSED + die] = fraction(out, g.dice_passed[other, die], COUNTS_SCALE)
            used += g.dice_used[other, die]
        out[row + DECISIONS] = fraction(out, used, COUNTS_SCALE)


@compiled
def update_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """Bring `out`, the acting view last written, up to date as `seat` sees the table now: its
    card and the turn's pieces rewritten, and only the marks of the snails that have moved since
    the note of that view (`g.shown_leaf`); the view written whole where there is no note of it
    (`forget_views`)."""
    at = rules.observation
    if not g.view_noted:
        write_observation(g, rules, seat, out)
        copy_into(g.shown_leaf, g.leaf)
        g.view_noted = 1
    else:
        write_bits(out, at.card, g.card[seat], NUM_SNAILS)
        leaves = rules.last_leaf + 1
        move_marks(out, at.snail_leaves, leaves, g.shown_leaf, g.leaf, -1)  # always on a leaf
        write_turn_pieces(g, rules, at, out, seat)
        if at.die_previews >= 0:
            write_previews(g, rules, at, out, seat)
        if at.choice_counts >= 0:
            write_counts(g, rules, at, out, seat)


@compiled
def forget_views(g) -> None:
    """The acting view is no longer the one `update_observation` last wrote (a new batch, a
    game loaded or redrawn)."""
    g.view_noted = 0


@compiled
def views_outlast_games(rules) -> bool:
    """A new game in the slot brings the view up to date from its note: the board it shows is
    the rules', the same in every game."""
    return True


@inlined
def write_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """What `seat` sees: its card and the table, seats relative to it (and with `previews`,
    what each die it may choose would do)."""
    at = rules.observation
    out.fill(0)
    write_board(rules, at, out)
    write_bits(out, at.card, g.card[seat], NUM_SNAILS)
    write_table(g, rules, at, out, seat)
    if at.die_previews >= 0:
        write_previews(g, rules, at, out, seat)
    if at.choice_counts >= 0:
        write_counts(g, rules, at, out, seat)


@compiled
def write_state(g, rules, out: np.ndarray) -> None:
    at = rules.state
    out.fill(0)
    for seat in range(rules.num_players):
        write_bits(out, at.card + NUM_SNAILS * seat, g.card[seat], NUM_SNAILS)
    write_board(rules, at, out)
    write_table(g, rules, at, out, 0)


@compiled
def write_mask(g, rules, seat: int, mask: np.ndarray) -> None:
    """The dice the seat to play may choose (`seat`)."""
    for die in range(NUM_SNAILS):
        mark_action(mask, die, g.legal[die])


# --------------------------------------------------------------------------- search


@entry_point
def round_of(g) -> int:
    """The races run before this one: a search may stop where the next race begins."""
    return g.race


@inlined
def redraw_hidden(g, rules, seat: int) -> None:
    """Deal the other seats new cards from the cards `seat` does not hold (the rules'
    cards less one copy of its own)."""
    redeal_others(g, rules.cards, g.card, seat, rules.num_players)


def load_game(games: np.ndarray, index: int, game: PedzaceSlimaki, seed: int) -> None:
    """Write `game`, a reference engine's game in progress, into record `index` of `games`: the
    snails' leaves, the dice held, set aside and rolled with those the seat to play may choose,
    every seat's card and points, the race, the seat that began it, the seat to play, the
    turns played and the dice each seat used and passed over in this race, exactly. The
    record's generators are seeded from `seed`: its future chance is its own, not `game`'s."""
    record = games[index : index + 1]
    record[0] = 0
    seed_games(record, np.uint64(seed % 2**64))
    g = record[0]
    n = game.num_players
    g["leaf"] = game.leaf
    g["held"][game.held] = 1
    g["set_aside"] = game.set_aside
    g["faces"] = game.faces
    g["legal"][game.legal] = 1
    g["card"][:n] = [(1 << first) | (1 << second) for first, second in game.cards]
    g["scores"][:n] = game.scores
    g["race"] = game.race
    g["first_seat"] = game.first_seat
    g["turn"] = game.turn
    g["finished"] = game.outcome is not None
    g["turns_played"] = game.turns_played
    g["dice_used"][:n] = game.dice_used
    g["dice_passed"][:n] = game.dice_passed


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
    load_game = staticmethod(load_game)
    unplayed_options = ("snails", "die_pips")
    compact_dtype = np.dtype(np.int16)

    def check_compact(self) -> None:
        """A view's points (at most `max_points()`, finite only with `max_turns`), its choice
        counts (at most `max_turns`) and a preview's place points."""
        options = self.options
        if options.max_turns is None:
            raise ValueError(
                f"{self.env_name} (batched): without max_turns a seat's points have no bound, "
                "so compact_views=True needs a max_turns"
            )
        self.check_compact_bound("max_turns", options.max_turns)
        self.check_compact_bound("the points max_turns allows", int(options.max_points()))
        self.check_compact_bound("2 × max(place_points)", 2 * max(options.place_points))

    def compile_rules(self, options: PedzaceSlimakiOptions) -> np.ndarray:
        is_mushroom = np.zeros(MAX_LEAVES, np.uint8)
        is_mushroom[: options.board_length + 1] = options.is_mushroom
        return self.rules_record(
            rules_dtype(len(options.card_snails)),
            last_leaf=options.board_length,
            is_mushroom=is_mushroom,
            cards=[(1 << first) | (1 << second) for first, second in options.card_snails],
            rounds=options.rounds,
            backwards=options.snail_face_backwards,
            place_points=options.place_points,
            card_scale=card_scale(options.place_points),
            max_turns=-1 if options.max_turns is None else options.max_turns,
            heuristic=strategy.rule_parameters(
                self.observation_layout,
                options.card_snails,
                options.place_points,
                options.snail_face_backwards,
            ),
        )
