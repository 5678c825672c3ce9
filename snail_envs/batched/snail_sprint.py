"""Snail Sprint! in batches: the rules of `snail_envs.snail_sprint.rules`, compiled.

Each game is one record of `GAME`. The track is kept as the top snail of every space (−1 when
empty) and, for every snail, the snail right under it: a free snail leaves its space by putting
the snail under it back on top, and climbs a tower by going on top of it. Every rule function
below has the name and the behaviour of its counterpart in the reference engine; observations
are written exactly as `SnailSprintObserver` writes them. Every rule option is supported.

For search, a game of the reference engine in progress loads into a record (`load_game`,
`SnailSprintBatch.load`), and `redraw_hidden` (`SnailSprintBatch.redraw`) deals the other seats
new race cards from those the searching seat does not hold, as the reference engine does.
"""

from __future__ import annotations

import sys

import numpy as np

from snail_envs.agents.heuristics import snail_sprint as strategy
from snail_envs.batched import core
from snail_envs.batched.chance import (
    arrange,
    begin_game,
    game_record,
    pick,
    redeal_others,
    seed_games,
)
from snail_envs.batched.compiling import compiled, inlined, jitable
from snail_envs.batched.core import (
    MARGIN,
    WINLOSE,
    TurnBasedGame,
    agent_pick_bit,
    clear,
    copy_into,
    every_seat,
    fraction,
    lowest_bit,
    mark_action,
    move_marks,
    next_seat,
    observer_pieces,
    pay_margin,
    pay_win_lose,
    prefetch_moves,
    prefetch_range,
    prefetch_to_write,
    seating_record,
    seats_after,
    unsigned,
    write_bits,
)
from snail_envs.batched.drivers import compile_drivers
from snail_envs.batched.records import fields
from snail_envs.core.chance import SeededChance
from snail_envs.snail_sprint.boards import TIN_SPACES
from snail_envs.snail_sprint.env import SPEC
from snail_envs.snail_sprint.observer import MAX_PLAYERS, MAX_TOWER_LEVEL
from snail_envs.snail_sprint.rules import (
    LAST_SPACE,
    NUM_SNAILS,
    ON_PODIUM,
    PLACE_POINTS,
    START,
    TIN,
    SnailSprint,
    SnailSprintOptions,
    parse_symbols,
)

SPACES = LAST_SPACE + 1
NUM_PLACES = len(PLACE_POINTS)
FIRST_TIN_SPACE = TIN.start
EMPTY = -1
NONE = -1

jitable(strategy.snail_space)
choose = jitable(strategy.choose)
"""The heuristic's strategy, compiled where a kernel calls it, on arrays."""

PIECES = observer_pieces(SPEC, first="cards")
"""Where each piece of an observation or of the state starts (`cards`: the seat's own race card, or
every seat's)."""


GAME = game_record(
    fields(NUM_SNAILS, space=np.int8, level=np.int8, below=np.int8),
    fields(SPACES, top=np.int8, printed=np.uint8),
    fields(NUM_PLACES, podium=np.int8),
    fields((), finished=np.int8, turn=np.int8, turns_played=np.int32),
    fields(2, dice=np.int8),
    fields(NUM_SNAILS, target=np.int8),
    fields(MAX_PLAYERS, card=np.uint8),
    fields(NUM_SNAILS, shown_space=np.int8),
    fields((), shown_finished=np.int8, shown_turn=np.int8, view_noted=np.uint8),
    fields(NUM_SNAILS, showing=np.uint64),
    fields((), showing_noted=np.uint8),
)
"""One game: each snail's space (37 = podium), height in its tower and the snail under it;
each space's top snail and printed symbols (bit s for snail s); the podium; the seat to
play; the roll and its possible moves (`target[s]`: where snail s would go, −1 if it may not
move); each seat's race card (bit s for snail s); and, if `view_noted`, the snails' spaces,
the snails on the podium and the seat to play as the acting view last written shows them, so
that `update_observation` rewrites only what has changed since; and, if `showing_noted`, the
spaces that show each symbol (`showing[s]`: bit k for space k), so that a move finds its space
without walking the track."""


def rules_dtype(num_cards: int) -> np.dtype:
    """The rule options as the kernels read them: the track printed (the tin laid "fixed" or
    "reversed"), the tin's spaces (for `tin_order="shuffled"`), the spaces that hold one snail,
    the race cards to deal from as snail bits; `max_turns` is −1 for no limit."""
    return core.rules_dtype(
        PIECES,
        fields(SPACES, printed=np.uint8),
        fields(len(TIN), tin=np.uint8),
        fields((), shuffle_tin=np.uint8),
        fields(SPACES, holds_one=np.uint8),
        fields(num_cards, cards=np.uint8),
        fields((), expose_forced_moves=np.uint8, max_turns=np.int64),
    )


def _bits(symbols: frozenset[int]) -> int:
    return sum(1 << symbol for symbol in symbols)


# --------------------------------------------------------------------------- the rules


@compiled
def is_free(g, snail: int) -> bool:
    """A snail may move if it is on the start or on top of its space."""
    space = g.space[snail]
    return space == START or (space != ON_PODIUM and g.top[space] == snail)


@compiled
def symbols_shown(g, rules, space: int) -> int:
    """The symbols a space shows, as bits: an empty space, those printed on it; an occupied
    one, the colour of the snail on top, unless it is a space that holds one snail."""
    top = g.top[space]
    if top == EMPTY:
        return np.int64(g.printed[space])
    if rules.holds_one[space]:
        return 0
    return 1 << np.int64(top)


@compiled
def note_space(g, rules, space: int, before: int) -> None:
    """Bring `showing` up to date at `space`, whose top snail has changed and which showed the
    symbols `before` (as bits): the bit of `space` changes for each symbol it shows or stops
    showing, and for no other."""
    changed = before ^ symbols_shown(g, rules, space)
    at = np.uint64(1) << np.uint64(space)
    while changed:
        g.showing[lowest_bit(changed)] ^= at
        changed &= changed - 1


@compiled
def note_track(g, rules) -> None:
    """Note the spaces that show each symbol, from the track as it is."""
    g.showing[:] = 0
    for space in range(START + 1, LAST_SPACE + 1):
        note_space(g, rules, np.int64(space), 0)
    g.showing_noted = 1


@compiled
def next_space_showing(g, rules, snail: int, symbol: int) -> int:
    """The first space strictly ahead of `snail` that shows `symbol`, else the podium."""
    if not g.showing_noted:
        note_track(g, rules)
    after = np.int64(g.space[snail]) + 1
    ahead = g.showing[symbol] >> np.uint64(after)
    if ahead == 0:
        return ON_PODIUM
    return after + np.int64(lowest_bit(ahead))


@compiled
def next_space_holding(g, rules, snail: int) -> int:
    """One space forward, skipping occupied wall spaces; after 36, the podium."""
    for space in range(g.space[snail] + 1, LAST_SPACE + 1):
        if not (rules.holds_one[space] and g.top[space] != EMPTY):
            return space
    return ON_PODIUM


@compiled
def rearmost_free_snail(g) -> int:
    """The free snail on the lowest space (on the start, the lowest index)."""
    rearmost = NONE
    for snail in range(NUM_SNAILS):
        if is_free(g, snail) and (rearmost == NONE or g.space[snail] < g.space[rearmost]):
            rearmost = snail
    return rearmost


@compiled
def possible_moves(g, rules, first: int, second: int) -> int:
    """Write the moves the roll allows into `target`; returns how many there are."""
    g.target[:] = NONE
    count = 0
    if is_free(g, first):
        g.target[first] = next_space_showing(g, rules, first, second)
        count += 1
    if second != first and is_free(g, second):
        g.target[second] = next_space_showing(g, rules, second, first)
        count += 1
    if count == 0:
        rearmost = rearmost_free_snail(g)
        g.target[rearmost] = next_space_holding(g, rules, rearmost)
        count = 1
    return count


@compiled
def is_over(g) -> bool:
    return g.finished == NUM_PLACES


@compiled
def is_truncated(g, rules) -> bool:
    return not is_over(g) and rules.max_turns >= 0 and g.turns_played >= rules.max_turns


@compiled
def move(g, rules, snail: int) -> None:
    """Play the possible move of `snail`; the turn passes unless the podium is full."""
    target, origin = g.target[snail], g.space[snail]
    shown_at_origin = symbols_shown(g, rules, origin) if origin != START else 0
    shown_at_target = symbols_shown(g, rules, target) if target != ON_PODIUM else 0
    if origin != START:
        g.top[origin] = g.below[snail]
    if target == ON_PODIUM:
        g.podium[g.finished] = snail
        g.finished += 1
        g.below[snail] = NONE
        g.level[snail] = 0
    else:
        under = g.top[target]
        g.below[snail] = under
        g.level[snail] = 0 if under == EMPTY else g.level[under] + 1
        g.top[target] = snail
    g.space[snail] = target
    if g.showing_noted:
        if origin != START:
            note_space(g, rules, np.int64(origin), shown_at_origin)
        if target != ON_PODIUM:
            note_space(g, rules, np.int64(target), shown_at_target)
    g.target[:] = NONE
    g.turns_played += 1
    if not is_over(g):
        g.turn = next_seat(g.turn, rules.num_players)


@compiled
def roll_until_decision(g, rules) -> None:
    """Roll for the seat to play; a roll with one possible move is played at once (unless
    `expose_forced_moves`), and the next seat rolls, until a choice or the end."""
    while not is_over(g) and not is_truncated(g, rules):
        g.dice[0] = pick(g, NUM_SNAILS)
        g.dice[1] = pick(g, NUM_SNAILS)
        first, second = np.int64(g.dice[0]), np.int64(g.dice[1])
        if possible_moves(g, rules, first, second) > 1 or rules.expose_forced_moves:
            return
        for snail in range(NUM_SNAILS):
            if g.target[snail] != NONE:
                move(g, rules, snail)
                break


@inlined
def apply(g, rules, actions: np.ndarray) -> None:
    """The seat to play moves its snail `actions[turn]`; the next seats roll on to a decision."""
    move(g, rules, actions[g.turn])
    roll_until_decision(g, rules)


@compiled
def start_game(g, rules) -> None:
    """Lay the track (shuffling the tin if asked), deal the race cards, and roll until the first
    decision, in the reference engine's order of chance events."""
    begin_game(g)
    copy_into(g.printed, rules.printed)
    if rules.shuffle_tin:
        order = np.empty(rules.tin.shape[0], np.int64)
        arrange(g, order)
        for k in range(order.shape[0]):
            g.printed[FIRST_TIN_SPACE + k] = rules.tin[order[k]]
    order = np.empty(rules.cards.shape[0], np.int64)
    arrange(g, order)
    g.card[:] = 0
    for seat in range(rules.num_players):
        g.card[seat] = rules.cards[order[seat]]
    g.space[:] = START
    g.level[:] = 0
    g.below[:] = NONE
    g.top[:] = EMPTY
    g.showing_noted = 0
    g.podium[:] = NONE
    g.finished = 0
    g.turn = 0
    g.turns_played = 0
    g.target[:] = NONE
    roll_until_decision(g, rules)


@compiled
def card_points(g, seat: int) -> int:
    points = 0
    for place in range(g.finished):
        if g.card[seat] >> g.podium[place] & 1:
            points += PLACE_POINTS[place]
    return points


@compiled
def take_stock(g, rules, stock: np.ndarray) -> None:
    """Nothing to note: the race cards score only at the end."""


@compiled
def pay(g, rules, stock: np.ndarray, rewards: np.ndarray) -> None:
    """The rewards of the moves just played: 0 until the game ends; then win/lose, the
    race-card points, or those less the others' mean (`reward="margin"`)."""
    if not is_over(g):
        for seat in range(rules.num_players):
            rewards[seat] = 0
        return
    points = np.zeros(rules.num_players, np.int64)
    for seat in range(rules.num_players):
        points[seat] = card_points(g, seat)
    if rules.reward == WINLOSE:
        pay_win_lose(points, False, rules.num_players, rewards)
    else:
        for seat in range(rules.num_players):
            rewards[seat] = points[seat]
        if rules.reward == MARGIN:
            pay_margin(rewards, every_seat(rules.num_players), rules.num_players, rewards)


# --------------------------------------------------------------------------- players


@inlined
def heuristic_choice(rules, observation: np.ndarray, mask: np.ndarray) -> int:
    """`snail_envs.agents.heuristics.snail_sprint.choose`."""
    return choose(observation, mask)


RANDOM_READS = ("agent_state", "target")
"""The fields of a game's record that `random_action` reads (`drivers`)."""
STEP_READS = tuple(name for name in GAME.fields or () if name != "tape")
"""The fields of a game's record that a step reads: all but the tape of chance outcomes
(`drivers`)."""


@compiled
def random_action(g, rules, seat: int) -> int:
    """A uniformly random possible move of `seat`, the seat to play."""
    movable = np.int64(0)
    for snail in range(NUM_SNAILS):
        movable |= np.int64(g.target[snail] != NONE) << snail
    return agent_pick_bit(g, movable)


# --------------------------------------------------------------------------- observations


@compiled
def write_track(g, rules, at, out: np.ndarray) -> None:
    """What stays the same during a game: the printed track and the number of players."""
    for space in range(1, SPACES):
        printed = g.printed[space]
        for symbol in range(NUM_SNAILS):
            if printed >> symbol & 1:
                out[at.track_symbols + NUM_SNAILS * (space - 1) + symbol] = 1
    out[at.num_players + rules.num_players - 2] = 1


@compiled
def write_table(g, at, out: np.ndarray, turn: int) -> None:
    """The towers, the dice, the podium and the seat to play (written as `turn`), over whatever
    these pieces held before; not the snails' spaces (`mark_snails`)."""
    write_towers(g, at, out)
    write_podium(g, at, out)
    write_seat_to_play(at, out, turn)


@compiled
def write_towers(g, at, out: np.ndarray) -> None:
    """Each snail's height in its tower and whether it is free; the dice."""
    for snail in range(NUM_SNAILS):
        space = g.space[snail]
        out[unsigned(at.snails_free + snail)] = is_free(g, snail)
        level = g.level[snail] if START < space < ON_PODIUM else 0
        out[unsigned(at.tower_levels + snail)] = fraction(out, level, MAX_TOWER_LEVEL)
    clear(out, at.dice, NUM_SNAILS)
    out[unsigned(at.dice + g.dice[0])] += fraction(out, 1, 2)
    out[unsigned(at.dice + g.dice[1])] += fraction(out, 1, 2)


@compiled
def write_podium(g, at, out: np.ndarray) -> None:
    clear(out, at.podium, NUM_PLACES * NUM_SNAILS)
    for place in range(g.finished):
        out[unsigned(at.podium + NUM_SNAILS * place + g.podium[place])] = 1


@compiled
def write_seat_to_play(at, out: np.ndarray, turn: int) -> None:
    clear(out, at.turn, MAX_PLAYERS)
    out[unsigned(at.turn + turn)] = 1


@compiled
def mark_snails(g, at, out: np.ndarray) -> None:
    """Each snail's space (none on the podium), on a view with no snail marked."""
    for snail in range(NUM_SNAILS):
        if g.space[snail] != ON_PODIUM:
            out[at.snail_spaces + SPACES * snail + g.space[snail]] = 1


@compiled
def write_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """What `seat` sees: its race card and the table, seats relative to it."""
    at = rules.observation
    out.fill(0)
    write_track(g, rules, at, out)
    write_bits(out, at.cards, g.card[seat], NUM_SNAILS)
    write_table(g, at, out, seats_after(seat, g.turn, rules.num_players))
    mark_snails(g, at, out)


@compiled
def update_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """Bring `out`, the acting view last written, up to date as `seat` sees the table now: the
    race card, the towers and the dice rewritten; the podium, the seat to play and the marks of
    the snails only where they differ from the note of that view (`g.shown_*`); the view written
    whole where there is no note of it (`forget_views`)."""
    at = rules.observation
    turn = seats_after(seat, g.turn, rules.num_players)
    if not g.view_noted:
        write_observation(g, rules, seat, out)
        copy_into(g.shown_space, g.space)
    else:
        write_bits(out, at.cards, g.card[seat], NUM_SNAILS)
        write_towers(g, at, out)
        if g.shown_finished != g.finished:
            write_podium(g, at, out)
        if g.shown_turn != turn:
            write_seat_to_play(at, out, turn)
        move_marks(out, at.snail_spaces, SPACES, g.shown_space, g.space, ON_PODIUM)
    g.shown_finished = g.finished
    g.shown_turn = turn
    g.view_noted = 1


@compiled
def prefetch_view(g, rules, seat: int, out: np.ndarray) -> None:
    """Ask ahead for the lines of `out` that `update_observation` is about to write (the view
    has a note): the race card, the towers, the podium and the dice, the seat to play where it
    changed, the snails' marks that move."""
    at = rules.observation
    if not g.view_noted:
        return  # written whole, in a new game: the drivers asked for every line
    prefetch_to_write(out, at.cards)
    prefetch_range(out, at.tower_levels, at.dice + NUM_SNAILS)  # towers, podium, dice
    if g.shown_turn != seats_after(seat, g.turn, rules.num_players):
        prefetch_to_write(out, at.turn)
    prefetch_moves(out, at.snail_spaces, SPACES, g.shown_space, g.space, ON_PODIUM)


@compiled
def forget_views(g) -> None:
    """The acting view is no longer the one `update_observation` last wrote (a new batch, a
    game loaded or redrawn)."""
    g.view_noted = 0


@compiled
def views_outlast_games(rules) -> bool:
    """A new game in the slot brings the view up to date from its note: the track it shows is
    the same in every game, unless the tin is shuffled."""
    return not rules.shuffle_tin


@compiled
def write_state(g, rules, out: np.ndarray) -> None:
    at = rules.state
    out.fill(0)
    for seat in range(rules.num_players):
        write_bits(out, at.cards + NUM_SNAILS * seat, g.card[seat], NUM_SNAILS)
    write_track(g, rules, at, out)
    write_table(g, at, out, g.turn)
    mark_snails(g, at, out)


@compiled
def write_mask(g, rules, seat: int, mask: np.ndarray) -> None:
    """The snails the seat to play may move (`seat`)."""
    for snail in range(NUM_SNAILS):
        mark_action(mask, snail, g.target[snail] != NONE)


# --------------------------------------------------------------------------- search


@inlined
def redraw_hidden(g, rules, seat: int) -> None:
    """Deal the other seats new race cards from the cards `seat` does not hold (the rules'
    cards less one copy of its own)."""
    redeal_others(g, rules.cards, g.card, seat, rules.num_players)


def load_game(games: np.ndarray, index: int, game: SnailSprint, seed: int) -> None:
    """Write `game`, a reference engine's game in progress, into record `index` of `games`: the
    printed track, every tower (bottom first), the podium, the seat to play and the turns
    played, the roll being decided with its possible moves, and every seat's race card, exactly.
    The record's generators are seeded from `seed`: its future chance is its own, not `game`'s.
    """
    record = games[index : index + 1]
    record[0] = 0
    seed_games(record, np.uint64(seed % 2**64))
    g = record[0]
    g["printed"] = [_bits(space) for space in game.track]
    g["space"] = game.space
    g["below"] = NONE
    g["top"] = EMPTY
    for space in range(START + 1, SPACES):  # the start holds its snails side by side
        tower = game.stacks[space]
        for level, snail in enumerate(tower):
            g["level"][snail] = level
            g["below"][snail] = tower[level - 1] if level else NONE
        if tower:
            g["top"][space] = tower[-1]
    g["podium"] = NONE
    g["podium"][: len(game.podium)] = game.podium
    g["finished"] = len(game.podium)
    g["turn"] = game.turn
    g["turns_played"] = game.turns_played
    g["dice"] = game.dice
    g["target"] = NONE
    for snail, destination in game.moves.items():
        g["target"][snail] = destination
    g["card"][: game.num_players] = [_bits(card) for card in game.race_cards]


# --------------------------------------------------------------------------- the engine


class SnailSprintBatch(TurnBasedGame):
    """N games of Snail Sprint! (see `snail_envs.batched.core` for the arrays).

        batch = snail_envs.batched.make("snail_sprint_v0", num_envs=4096, num_players=3)
        out = batch.reset(seed=0)
        out = batch.step(batch.random_actions())

    Turn-based: one acting slot, the seat to play (`seat`, `observation` and `action_mask` are
    its views without the slot axis). Forced moves are played by the engine, as in the reference
    environment (unless `expose_forced_moves`).
    """

    spec = SPEC
    game_dtype = GAME
    kernels = compile_drivers(sys.modules[__name__])
    seating_dtype = seating_record(MAX_PLAYERS)
    load_game = staticmethod(load_game)
    search_depth = 1
    unplayed_options = ("track_length", "snails")

    def compile_rules(self, options: SnailSprintOptions) -> np.ndarray:
        # the reference engine lays the track: read it from a game built with any chance
        reference = SnailSprint(options, SeededChance(0))
        return self.rules_record(
            rules_dtype(len(options.cards)),
            printed=[_bits(space) for space in reference.track],
            tin=[_bits(parse_symbols(letter)) for letter in TIN_SPACES.split()],
            shuffle_tin=options.tin_order == "shuffled",
            holds_one=reference.holds_one,
            cards=[_bits(card) for card in options.cards],
            expose_forced_moves=options.expose_forced_moves,
            max_turns=-1 if options.max_turns is None else options.max_turns,
        )
