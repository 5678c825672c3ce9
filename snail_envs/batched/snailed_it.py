"""Snailed It! in batches: the rules of `snail_envs.snailed_it.rules`, compiled.

A game with a simultaneous phase: in a toss window every seat but the one to play acts at once,
so the batch has one acting slot per seat (slot k for seat k, `seats[i, k]` = k while seat k acts,
−1 otherwise). Each game is one record of `GAME`: hands and the other sets of cards as bit sets
(`CARD_WORDS` words), the penalty pile (bottom first) and the tossed pile (in the order tossed,
which a refill shuffles), the rows' top cards, totals and the turn. Every rule function below has
the name and the behaviour of its counterpart in the reference engine; observations are written
exactly as `SnailedItObserver` writes them. Every rule option is supported.

A seat's view in its acting slot is brought up to date rather than written again
(`update_observation`): the record notes, for each seat, the cards and row tops that view shows
and the rounds played, and only the marks that changed since are moved; the counts and seats are
rewritten, the rounds and totals only when a round has ended since.

The in-kernel players are "random" and "heuristic":
`snail_envs.agents.heuristics.snailed_it.choose`, the strategy of `SnailedItHeuristic` (with its
default weights), compiled and given the seat's own observation and mask.

For search, a game of the reference engine in progress loads into a record (`load_game`,
`SnailedItBatch.load`), everything hidden from a seat is redrawn in the kernel as the reference
redraws it (`redraw_hidden`, `SnailedItBatch.redraw`), and the kernels' rollout
(`SnailedItBatch.rollout`) plays copies of records on, each seat as the heuristic, after each of
a seat's possible actions.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

import numpy as np

from snail_envs.agents.heuristics import snailed_it as strategy
from snail_envs.batched import core
from snail_envs.batched.chance import (
    agent_pick,
    arrange,
    begin_game,
    game_record,
    seed_games,
)
from snail_envs.batched.compiling import compiled, entry_point, inlined, jitable
from snail_envs.batched.core import (
    BatchedGame,
    capped_fraction,
    copy_into,
    count_bits,
    fraction,
    lowest_bit,
    mark_action,
    next_seat,
    observer_pieces,
    prefetch_range,
    prefetch_to_write,
    quotients,
    scaled,
    seat_after,
    seating_record,
    unsigned,
)
from snail_envs.batched.drivers import compile_drivers
from snail_envs.batched.records import fields
from snail_envs.snailed_it.env import SPEC
from snail_envs.snailed_it.observer import CARD_SCALE, MAX_PLAYERS, MIN_PLAYERS
from snail_envs.snailed_it.rules import (
    NUM_CARDS,
    NUM_COLOURS,
    NUM_VALUES,
    PASS,
    PLAY,
    STARTERS,
    TOSS,
    TOSS_WINDOW,
    VALUE,
    SnailedIt,
    SnailedItOptions,
)

NONE = -1
CARD_FRACTIONS = quotients(CARD_SCALE, NUM_CARDS)
"""Counts of cards over 72, as a view shows them (`scaled`): a hand or a pile holds 0 to 72."""
NUM_STARTERS = len(STARTERS)
FIRST_STARTER = STARTERS[0]
VALUES = np.array(VALUE, np.int64)
"""The value printed on each card, starters (72–79) included."""
LOWEST_WINS = True
"""The seat with the lowest total wins."""
LOOKAHEAD_NUMERATOR = strategy.DEFAULT_LOOKAHEAD.numerator
LOOKAHEAD_DENOMINATOR = strategy.DEFAULT_LOOKAHEAD.denominator
WORD_CARDS = 2 * NUM_VALUES
CARD_WORDS = NUM_CARDS // WORD_CARDS
"""A set of cards is `CARD_WORDS` int64 words: card c is bit c % `WORD_CARDS` of word
c // `WORD_CARDS` (two colours a word, so the cards fitting a gap lie in one word)."""
FIRST_CARD, LAST_CARD = np.int64(0), np.int64(NUM_CARDS - 1)
"""The range of every card, typed as the fitting range is, so that `nth_card` compiles once for
both (constants would compile it again)."""
REPEAT_DRAW = np.int64(1)
"""The cards drawn for a repeated colour, typed as the tosses drawn for, so that `draw` compiles
once (a constant 1 would compile it again)."""
for helper in strategy.HELPERS:
    jitable(helper)

TAPE = 160
"""How many of its latest chance outcomes a game keeps: more than one step draws. A step shuffles
the tossed pile into a new penalty pile at most once (one outcome a card, at most the number
cards), and deals at most one round (the starters' order, then the deck's), one game's or the
next: 152 outcomes at most."""

GAME = game_record(
    fields((MAX_PLAYERS, CARD_WORDS), hand=np.int64),
    fields(MAX_PLAYERS, hand_size=np.int64, totals=np.int64),
    fields(NUM_CARDS, penalty=np.int8, tossed=np.int8),
    fields((), penalty_size=np.int64, tossed_size=np.int64),
    fields(CARD_WORDS, tossed_cards=np.int64, played=np.int64),
    fields(NUM_CARDS, card_lot=np.int16),  # a lot a draw at most: < 72 turns × 17 a round
    fields((), lots=np.int64, rounds_played=np.int64, turns_played=np.int64),
    fields((NUM_COLOURS, 2), top=np.int8),
    fields((), turn=np.int8, starter=np.int8, phase=np.int8, previous_colour=np.int8),
    fields((), fit_low=np.int64, fit_high=np.int64, finished=np.uint8),
    fields((MAX_PLAYERS, CARD_WORDS), shown_hand=np.int64, shown_played=np.int64),
    fields((MAX_PLAYERS, CARD_WORDS), shown_tossed=np.int64),
    fields((MAX_PLAYERS, NUM_COLOURS, 2), shown_top=np.int8),
    fields(MAX_PLAYERS, shown_rounds=np.int64),
    fields(MAX_PLAYERS, view_noted=np.uint8),
    tape_length=TAPE,
)
"""One game: which cards each seat holds (a set of cards), how many, and each seat's total; the
penalty pile (its top is `penalty[penalty_size − 1]`) and the tossed pile, in order, with their
sizes; the tossed pile as a set, and the cards played this round (a set); each card's lot,
where it may be (lot 0 was dealt at the start of the round, lot k is the tossed pile shuffled
into the round's k-th new penalty pile); how many lots the round has made, the rounds and turns
played; the card on top of each row's left and right pile; the seat to play and the round's
starter; the phase, the previous colour (−1 on a round's first turn) and, in a toss window, the
fitting cards `fit_low`–`fit_high`; whether the game is over. Then, for each seat whose
`view_noted` is set, what its view in its acting slot shows: the hand, the cards played and
tossed, the rows' tops, and the rounds played (of which the totals it shows are the sums)."""

PIECES = observer_pieces(SPEC, first="hand")
"""Where each piece of an observation or of the state starts (`hand`: the seat's own hand, or
every seat's)."""


def rules_dtype() -> np.dtype:
    """The rule options as the kernels read them (`card_points`: the points of each number card
    in hand; `max_turns`: −1 for no limit)."""
    return core.rules_dtype(
        PIECES,
        fields((), hand_size=np.int64, target=np.int64, max_rounds=np.int64),
        fields(NUM_CARDS, card_points=np.int64),
        fields((), max_turns=np.int64),
    )


# --------------------------------------------------------------------------- sets of cards
# A set of cards is a 1-D int64 array of `CARD_WORDS` words: the record's own sets are passed
# as `g.played[:]`, since a whole field is another type to numba than a row of `g.hand` (and
# would compile every function on sets again), and a card as an int64.


@entry_point
def add_card(cards: np.ndarray, card: int) -> None:
    cards[card // WORD_CARDS] |= np.int64(1) << card % WORD_CARDS


@compiled
def remove_card(cards: np.ndarray, card: int) -> None:
    cards[card // WORD_CARDS] &= ~(np.int64(1) << card % WORD_CARDS)


@entry_point
def holds(cards: np.ndarray, card: int) -> bool:
    return cards[card // WORD_CARDS] >> card % WORD_CARDS & 1 == 1


@compiled
def word_between(word: int, low: int, high: int) -> int:
    """The cards `low` to `high` that lie in word `word` of a set, as the bits of that word."""
    first = max(low - WORD_CARDS * word, 0)
    last = min(high - WORD_CARDS * word, WORD_CARDS - 1)
    if first > last:
        return np.int64(0)
    return ((np.int64(1) << last + 1) - 1) >> first << first


@compiled
def count_between(cards: np.ndarray, low: int, high: int) -> int:
    """How many cards of the set `cards` lie from `low` to `high`."""
    count = np.int64(0)
    for word in range(CARD_WORDS):
        count += count_bits(cards[word] & word_between(word, low, high))
    return count


@compiled
def nth_card(cards: np.ndarray, n: int, low: int, high: int) -> int:
    """The card of the set `cards` from `low` to `high` with `n` of those below it (0: the
    lowest); `NUM_CARDS` if there are not that many."""
    for word in range(CARD_WORDS):
        bits = cards[word] & word_between(word, low, high)
        count = count_bits(bits)
        if n < count:
            for _ in range(n):
                bits &= bits - 1
            return WORD_CARDS * word + lowest_bit(bits)
        n -= count
    return NUM_CARDS


@compiled
def mark_cards(out: np.ndarray, start: int, cards: np.ndarray) -> None:
    """A 1 at `out[start + c]` for each card c of the set `cards` (other entries left alone)."""
    for word in range(CARD_WORDS):
        bits = cards[word]
        while bits:
            out[unsigned(start + WORD_CARDS * word + lowest_bit(bits))] = 1
            bits &= bits - 1


@compiled
def remark_cards(out: np.ndarray, start: int, shown: np.ndarray, cards: np.ndarray) -> None:
    """The marks from `out[start]` of a view showing the set `shown` changed to show `cards`,
    only where the two differ, and `shown` brought up to date."""
    for word in range(CARD_WORDS):
        changed = shown[word] ^ cards[word]
        while changed:
            bit = lowest_bit(changed)
            out[unsigned(start + WORD_CARDS * word + bit)] = cards[word] >> bit & 1
            changed &= changed - 1
        shown[word] = cards[word]


@compiled
def prefetch_remarks(out: np.ndarray, start: int, shown: np.ndarray, cards: np.ndarray) -> None:
    """Ask ahead for the lines of the marks `remark_cards` is about to change."""
    for word in range(CARD_WORDS):
        changed = shown[word] ^ cards[word]
        while changed:
            prefetch_to_write(out, start + WORD_CARDS * word + lowest_bit(changed))
            changed &= changed - 1


# --------------------------------------------------------------------------- the rules


@compiled
def is_over(g) -> bool:
    return g.finished == 1


@compiled
def is_truncated(g, rules) -> bool:
    return (
        not is_over(g)
        and rules.max_turns >= 0
        and g.turns_played >= rules.max_turns
        and g.phase == PLAY
    )


@compiled
def is_acting(g, rules, seat: int) -> bool:
    """The seat to play in the play phase; every other seat in a toss window."""
    if is_over(g) or is_truncated(g, rules):
        return False
    return (seat == g.turn) == (g.phase == PLAY)


@compiled
def fits_gap(g, card: int) -> bool:
    return g.phase == TOSS_WINDOW and g.fit_low <= card <= g.fit_high


@compiled
def start_round(g, rules) -> None:
    """Lay the starters, deal `hand_size` cards clockwise from the starter, one at a time from the
    top of the shuffled deck; the rest is the penalty pile."""
    starters = np.empty(NUM_STARTERS, np.int64)
    arrange(g, starters)
    for colour in range(NUM_COLOURS):
        g.top[colour, 0] = FIRST_STARTER + starters[2 * colour]
        g.top[colour, 1] = FIRST_STARTER + starters[2 * colour + 1]
    g.played[:] = 0
    deck = np.empty(NUM_CARDS, np.int64)
    arrange(g, deck)
    g.hand[:, :] = 0
    g.hand_size[:] = 0
    remaining = NUM_CARDS
    for dealt in range(rules.hand_size * rules.num_players):
        remaining -= 1
        seat = (g.starter + dealt) % rules.num_players
        add_card(g.hand[seat], deck[remaining])
        g.hand_size[seat] += 1
    for k in range(remaining):
        g.penalty[k] = deck[k]
    g.penalty_size = remaining
    g.tossed_size = 0
    g.tossed_cards[:] = 0
    g.card_lot[:] = 0
    g.lots = 1
    g.turn = g.starter
    g.phase = PLAY
    g.previous_colour = NONE
    g.fit_low = g.fit_high = NONE


@compiled
def refill_penalty_pile(g) -> None:
    """Shuffle the tossed pile into a new penalty pile: a new lot, whose cards are public."""
    for k in range(g.tossed_size):
        g.card_lot[g.tossed[k]] = g.lots
    g.lots += 1
    order = np.empty(g.tossed_size, np.int64)
    arrange(g, order)
    for k in range(order.shape[0]):
        g.penalty[k] = g.tossed[order[k]]
    g.penalty_size = g.tossed_size
    g.tossed_size = 0
    g.tossed_cards[:] = 0


@inlined
def draw(g, seat: int, count: int) -> None:
    """Draw `count` cards from the penalty pile, refilling it from the tossed pile when empty;
    a draw with both piles empty is skipped."""
    for _ in range(count):
        if g.penalty_size == 0:
            if g.tossed_size == 0:
                return
            refill_penalty_pile(g)
        g.penalty_size -= 1
        add_card(g.hand[seat], np.int64(g.penalty[g.penalty_size]))
        g.hand_size[seat] += 1


@compiled
def play(g, rules, seat: int, card: int, side: int) -> None:
    """Play `card` on `side` of its row; draw for a repeated colour; open the gap's window."""
    remove_card(g.hand[seat], card)
    g.hand_size[seat] -= 1
    colour = card // NUM_VALUES
    g.top[colour, side] = card
    add_card(g.played[:], card)
    g.turns_played += 1
    if colour == g.previous_colour:
        draw(g, seat, REPEAT_DRAW)
    g.previous_colour = colour
    left, right = VALUES[g.top[colour, 0]], VALUES[g.top[colour, 1]]
    low, high = min(left, right), max(left, right)
    if high - low >= 2:
        g.phase = TOSS_WINDOW
        g.fit_low = NUM_VALUES * colour + low
        g.fit_high = NUM_VALUES * colour + high - 2
    else:
        end_turn(g, rules)


@compiled
def toss_tick(g, rules, actions: np.ndarray) -> None:
    """One tick of the toss window: every tossed card onto the tossed pile (clockwise from the
    player's left), then the player draws one per toss; a tick without tosses closes it."""
    tossed = np.int64(0)  # not the constant 0, which would compile draw for it as well
    for k in range(1, rules.num_players):
        seat = seat_after(g.turn, k, rules.num_players)
        if actions[seat] == PASS:
            continue
        card = actions[seat] - TOSS
        remove_card(g.hand[seat], card)
        g.hand_size[seat] -= 1
        g.tossed[g.tossed_size] = card
        g.tossed_size += 1
        add_card(g.tossed_cards[:], card)
        tossed += 1
    if tossed:
        draw(g, g.turn, tossed)
    else:
        g.phase = PLAY
        end_turn(g, rules)


@inlined
def end_turn(g, rules) -> None:
    """The round ends if any seat holds no card; otherwise the next seat plays."""
    for seat in range(rules.num_players):
        if g.hand_size[seat] == 0:
            end_round(g, rules)
            return
    g.turn = next_seat(g.turn, rules.num_players)


@compiled
def hand_points(g, rules, seat: int) -> int:
    points = 0
    for word in range(CARD_WORDS):
        bits = g.hand[seat, word]
        while bits:
            points += rules.card_points[WORD_CARDS * word + lowest_bit(bits)]
            bits &= bits - 1
    return points


@compiled
def end_round(g, rules) -> None:
    """Score the cards left in hand; end the game at `target` or `max_rounds`, else deal a new
    round started by the next seat."""
    highest = 0
    for seat in range(rules.num_players):
        g.totals[seat] += hand_points(g, rules, seat)
        highest = max(highest, g.totals[seat])
    g.rounds_played += 1
    if highest >= rules.target or g.rounds_played >= rules.max_rounds:
        g.finished = 1
    else:
        g.starter = next_seat(g.starter, rules.num_players)
        start_round(g, rules)


@compiled
def points(g) -> np.ndarray:
    """Each seat's total: the lowest total wins (`LOWEST_WINS`)."""
    return g.totals


@inlined
def apply(g, rules, actions: np.ndarray) -> None:
    """One tick: the play of the seat to play, or every other seat's toss or pass."""
    if g.phase == PLAY:
        action = actions[g.turn]
        play(g, rules, g.turn, action // 2, action % 2)
    else:
        toss_tick(g, rules, actions)


@inlined
def start_game(g, rules) -> None:
    begin_game(g)
    g.totals[:] = 0
    g.rounds_played = 0
    g.turns_played = 0
    g.finished = 0
    g.starter = 0
    start_round(g, rules)


# --------------------------------------------------------------------------- players


RANDOM_READS = ("agent_state", "hand", "hand_size", "phase", "fit_low", "fit_high")
"""The fields of a game's record that `random_action` reads (`drivers`)."""
STEP_READS = tuple(name for name in GAME.fields or () if name not in ("card_lot", "lots", "tape"))
"""The fields of a game's record that a step reads: all but the cards' lots, which only a new
penalty pile reads, and the tape of chance outcomes (`drivers`)."""


@compiled
def random_action(g, rules, seat: int) -> int:
    """A uniformly random legal action of an acting seat."""
    hand = g.hand[seat]
    if g.phase == PLAY:
        chosen = agent_pick(g, 2 * g.hand_size[seat])
        return 2 * nth_card(hand, chosen // 2, FIRST_CARD, LAST_CARD) + chosen % 2
    fitting = count_between(hand, g.fit_low, g.fit_high)
    chosen = agent_pick(g, fitting + 1)
    if chosen == fitting:
        return PASS
    return TOSS + nth_card(hand, chosen, g.fit_low, g.fit_high)


choose = compiled(strategy.choose)
"""The heuristic's strategy (`snail_envs.agents.heuristics.snailed_it.choose`), compiled."""


@inlined
def heuristic_choice(rules, observation: np.ndarray, mask: np.ndarray) -> int:
    """`snail_envs.agents.heuristics.snailed_it.SnailedItHeuristic` with its default weights."""
    return choose(
        observation,
        mask,
        rules.card_points,
        strategy.DEFAULT_CARD_WEIGHT,
        LOOKAHEAD_NUMERATOR,
        LOOKAHEAD_DENOMINATOR,
    )


# --------------------------------------------------------------------------- observations


@compiled
def top_mark(at, colour: int, side: int, card: int) -> int:
    """Where a view marks `card` on top of `side` of row `colour`."""
    return unsigned(at.row_tops + 2 * NUM_VALUES * colour + NUM_VALUES * side + VALUES[card] - 1)


@compiled
def write_table(g, rules, at, out: np.ndarray) -> None:
    """The public table: rows, cards played and tossed, then the counts (`write_counts`)."""
    for colour in range(NUM_COLOURS):
        for side in range(2):
            out[top_mark(at, colour, side, g.top[colour, side])] = 1
    mark_cards(out, at.played_cards, g.played[:])
    mark_cards(out, at.tossed_pile, g.tossed_cards[:])
    out[at.num_players + rules.num_players - MIN_PLAYERS] = 1
    write_counts(g, rules, at, out)


@compiled
def write_counts(g, rules, at, out: np.ndarray) -> None:
    """The previous colour, the phase and the piles' sizes, every entry."""
    for colour in range(NUM_COLOURS):
        out[unsigned(at.previous_colour + colour)] = colour == g.previous_colour
    out[unsigned(at.toss_window)] = g.phase == TOSS_WINDOW
    out[unsigned(at.penalty_pile_size)] = scaled(out, g.penalty_size, CARD_FRACTIONS)
    out[unsigned(at.tossed_pile_size)] = scaled(out, g.tossed_size, CARD_FRACTIONS)


@compiled
def write_seats(g, rules, at, out: np.ndarray, seat: int) -> None:
    """The seat to play and the hand sizes, relative to `seat` (0: absolute), every entry of
    the seats at the table."""
    for position in range(rules.num_players):
        other = seat_after(seat, position, rules.num_players)
        out[unsigned(at.turn + position)] = other == g.turn
        out[unsigned(at.hand_sizes + position)] = scaled(out, g.hand_size[other], CARD_FRACTIONS)


@compiled
def write_scores(g, rules, at, out: np.ndarray, seat: int) -> None:
    """The rounds played and the totals, relative to `seat` (0: absolute): what changes only
    when a round ends."""
    out[at.rounds_played] = fraction(out, g.rounds_played, rules.max_rounds)
    for position in range(rules.num_players):
        other = seat_after(seat, position, rules.num_players)
        out[at.totals + position] = capped_fraction(out, g.totals[other], rules.target)


@compiled
def write_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """What `seat` sees: its hand and the table, seats relative to it."""
    at = rules.observation
    out.fill(0)
    mark_cards(out, at.hand, g.hand[seat])
    write_table(g, rules, at, out)
    write_seats(g, rules, at, out, seat)
    write_scores(g, rules, at, out, seat)


@compiled
def update_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """Bring `out`, the view `seat` was last shown in its acting slot, up to date: the marks of
    its hand, of the cards played and tossed and of the rows' tops moved only where they differ
    from the note of that view (`g.shown_*[seat]`), the counts and the seats rewritten; the view
    written whole where there is no note of it (`forget_views`)."""
    at = rules.observation
    if not g.view_noted[seat]:
        out.fill(0)
        out[at.num_players + rules.num_players - MIN_PLAYERS] = 1
        g.shown_hand[seat, :] = 0
        g.shown_played[seat, :] = 0
        g.shown_tossed[seat, :] = 0
        g.shown_top[seat, :, :] = NONE
        g.shown_rounds[seat] = NONE
        g.view_noted[seat] = 1
    remark_cards(out, at.hand, g.shown_hand[seat], g.hand[seat])
    remark_cards(out, at.played_cards, g.shown_played[seat], g.played[:])
    remark_cards(out, at.tossed_pile, g.shown_tossed[seat], g.tossed_cards[:])
    shown_top = g.shown_top[seat]
    for colour in range(NUM_COLOURS):
        for side in range(2):
            card = g.top[colour, side]
            if shown_top[colour, side] != card:
                if shown_top[colour, side] != NONE:
                    out[top_mark(at, colour, side, shown_top[colour, side])] = 0
                out[top_mark(at, colour, side, card)] = 1
                shown_top[colour, side] = card
    write_counts(g, rules, at, out)
    write_seats(g, rules, at, out, seat)
    if g.shown_rounds[seat] != g.rounds_played:
        write_scores(g, rules, at, out, seat)
        g.shown_rounds[seat] = g.rounds_played


@compiled
def prefetch_view(g, rules, seat: int, out: np.ndarray) -> None:
    """Ask ahead for the lines of `out` that `update_observation` is about to write (the view
    has a note): the marks that changed, the counts and the seats."""
    at = rules.observation
    if not g.view_noted[seat]:
        return  # written whole, in a new game: the drivers asked for every line
    prefetch_remarks(out, at.hand, g.shown_hand[seat], g.hand[seat])
    prefetch_remarks(out, at.played_cards, g.shown_played[seat], g.played[:])
    prefetch_remarks(out, at.tossed_pile, g.shown_tossed[seat], g.tossed_cards[:])
    shown_top = g.shown_top[seat]
    for colour in range(NUM_COLOURS):
        for side in range(2):
            card = g.top[colour, side]
            if shown_top[colour, side] != card:
                if shown_top[colour, side] != NONE:
                    prefetch_to_write(out, top_mark(at, colour, side, shown_top[colour, side]))
                prefetch_to_write(out, top_mark(at, colour, side, card))
    prefetch_range(out, at.previous_colour, at.totals + rules.num_players)  # counts, seats


@compiled
def forget_views(g) -> None:
    """No seat's acting view is the one `update_observation` last wrote (a new game)."""
    g.view_noted[:] = 0


@compiled
def write_state(g, rules, out: np.ndarray) -> None:
    at = rules.state
    out.fill(0)
    for seat in range(rules.num_players):
        mark_cards(out, at.hand + NUM_CARDS * seat, g.hand[seat])
    for k in range(g.penalty_size):
        depth = g.penalty_size - 1 - k
        out[at.penalty_pile + g.penalty[k]] = 1 - depth / CARD_SCALE
    write_table(g, rules, at, out)
    write_seats(g, rules, at, out, 0)
    write_scores(g, rules, at, out, 0)


@compiled
def write_mask(g, rules, seat: int, mask: np.ndarray) -> None:
    """The seat's legal actions: play a held card on either side, or toss a fitting one or
    pass; all zero when the seat does not act."""
    mask.fill(0)
    if not is_acting(g, rules, seat):
        return
    hand = g.hand[seat]
    if g.phase == PLAY:
        for word in range(CARD_WORDS):
            bits = hand[word]
            while bits:
                card = WORD_CARDS * word + lowest_bit(bits)
                mark_action(mask, 2 * card, 1)
                mark_action(mask, 2 * card + 1, 1)
                bits &= bits - 1
        return
    for word in range(CARD_WORDS):
        bits = hand[word] & word_between(word, g.fit_low, g.fit_high)
        while bits:
            mark_action(mask, TOSS + WORD_CARDS * word + lowest_bit(bits), 1)
            bits &= bits - 1
    mark_action(mask, PASS, 1)


# --------------------------------------------------------------------------- search


@entry_point
def round_of(g) -> int:
    """The rounds played: a search may stop where the next round begins."""
    return g.rounds_played


@compiled
def arranged(g, cards: np.ndarray) -> np.ndarray:
    """`cards` shuffled, as the reference's `chance.arrange(cards)` shuffles them."""
    order = np.empty(cards.shape[0], np.int64)
    arrange(g, order)
    return cards[order]


@compiled
def unseen_by_lot(g, seat: int) -> np.ndarray:
    """The cards `seat` cannot see (those of the other hands and of the penalty pile: neither in
    its hand, nor on the rows, nor on the tossed pile), lot by lot in lot order, each lot's cards
    in card order."""
    seen = g.hand[seat] | g.played | g.tossed_cards
    keys = [NUM_CARDS * g.card_lot[c] + c for c in range(NUM_CARDS) if not holds(seen, c)]
    return np.sort(np.array(keys, np.int64)) % NUM_CARDS


@compiled
def lot_bounds(g, cards: np.ndarray) -> np.ndarray:
    """Where each lot of `cards` (laid out lot by lot) begins, and where the last one ends."""
    bounds = [0]
    for k in range(1, cards.shape[0]):
        if g.card_lot[cards[k]] != g.card_lot[cards[k - 1]]:
            bounds.append(k)
    bounds.append(cards.shape[0])
    return np.array(bounds, np.int64)


@compiled
def redraw_hidden(g, rules, seat: int) -> None:
    """Redeal the other seats' hands and the penalty pile from the cards `seat` cannot see.

    Every hand keeps its size. The cards a seat drew from a penalty pile made of shuffled tossed
    cards are known to come from that pile (its cards were public when it was made), so each
    hidden card is redealt only among the places it could be: every hand keeps how many of its
    cards come from each lot (public: draws, plays and tosses are). Each lot is shuffled, the
    other hands, clockwise from `seat`'s left, take their cards of each lot from its end, the
    rest is shuffled into the penalty pile, and the tossed pile's order is shuffled too. Every
    shuffle is the reference's (`SnailedIt.redraw_hidden`), one for one, of cards laid out in an
    order `seat` knows (by lot, then by card; the tossed pile's by card), never as they lie.
    """
    cards = unseen_by_lot(g, seat)
    bounds = lot_bounds(g, cards)
    lots = bounds.shape[0] - 1
    lot_index = np.empty(NUM_CARDS, np.int64)
    for lot in range(lots):
        start, end = bounds[lot], bounds[lot + 1]
        copy_into(cards[start:end], arranged(g, cards[start:end]))
        lot_index[cards[start:end]] = lot
    undealt_end = bounds[1:].copy()
    for k in range(1, rules.num_players):
        other = seat_after(seat, k, rules.num_players)
        held = np.zeros(lots, np.int64)
        for word in range(CARD_WORDS):
            bits = g.hand[other, word]
            while bits:
                held[lot_index[WORD_CARDS * word + lowest_bit(bits)]] += 1
                bits &= bits - 1
        g.hand[other, :] = 0
        for lot in range(lots):
            for _ in range(held[lot]):
                undealt_end[lot] -= 1
                add_card(g.hand[other], cards[undealt_end[lot]])
    remaining = [cards[k] for lot in range(lots) for k in range(bounds[lot], undealt_end[lot])]
    copy_into(g.penalty, arranged(g, np.array(remaining, np.int64)))
    copy_into(g.tossed, arranged(g, np.sort(g.tossed[: g.tossed_size].astype(np.int64))))


# --------------------------------------------------------------------------- loading a game


def card_set(cards: Iterable[int]) -> np.ndarray:
    """`cards` as a set of cards (`CARD_WORDS` words)."""
    words = np.zeros(CARD_WORDS, np.int64)
    for card in cards:
        add_card(words, card)
    return words


def cards_in(words: np.ndarray) -> list[int]:
    """The cards of a set of cards, lowest first."""
    return [card for card in range(NUM_CARDS) if holds(words, card)]


def load_game(games: np.ndarray, index: int, game: SnailedIt, seed: int) -> None:
    """Write `game`, a reference engine's game in progress, into record `index` of `games`:
    hands, piles (in order), the cards' lots, rows' tops, cards played, totals, rounds and turns
    played, the seat to play, the phase (with a toss window's fitting cards) and the previous
    colour, exactly. The record's generators are seeded from `seed`: its future chance is its
    own, not `game`'s.
    """
    record = games[index : index + 1]
    record[0] = 0
    seed_games(record, np.uint64(seed % 2**64))
    g = record[0]
    for seat, hand in enumerate(game.hands):
        g["hand"][seat] = card_set(hand)
        g["hand_size"][seat] = len(hand)
    g["penalty"][: len(game.penalty_pile)] = game.penalty_pile
    g["penalty_size"] = len(game.penalty_pile)
    g["tossed"][: len(game.tossed_pile)] = game.tossed_pile
    g["tossed_size"] = len(game.tossed_pile)
    g["tossed_cards"] = card_set(game.tossed_pile)
    g["card_lot"] = game.card_lot
    g["lots"] = len(game.lot_held[0])
    g["played"] = card_set(game.played)
    g["top"] = [[left[-1], right[-1]] for left, right in game.rows]
    g["totals"][: game.num_players] = game.totals
    g["rounds_played"] = game.rounds_played
    g["turns_played"] = game.turns_played
    g["turn"] = game.turn
    g["starter"] = game.starter
    g["phase"] = game.phase
    g["previous_colour"] = NONE if game.previous_colour is None else game.previous_colour
    g["fit_low"], g["fit_high"] = game.fit_low, game.fit_high
    g["finished"] = game.outcome is not None


# --------------------------------------------------------------------------- the engine


class SnailedItBatch(BatchedGame):
    """N games of Snailed It! (see `snail_envs.batched.core` for the arrays).

        batch = snail_envs.batched.make("snailed_it_v0", num_envs=4096, num_players=4)
        out = batch.reset(seed=0)                  # out.seats: (N, 4), −1 where a seat waits
        out = batch.step(batch.random_actions())   # actions (N, 4); waiting slots are ignored

    One acting slot per seat: the seat to play in the play phase, every other seat in a toss
    window, as in the reference parallel environment's ticks.
    """

    spec = SPEC
    game_dtype = GAME
    kernels = compile_drivers(sys.modules[__name__])
    seating_dtype = seating_record(MAX_PLAYERS)
    lowest_wins = LOWEST_WINS
    load_game = staticmethod(load_game)
    search_horizon = "round"
    unplayed_options = ("colours", "values", "starters")

    def check_compact(self) -> None:
        """A view's totals (capped at `target`) and rounds played (up to `max_rounds`)."""
        self.check_compact_bound("target", self.options.target)
        self.check_compact_bound("max_rounds", self.options.max_rounds)

    def compile_rules(self, options: SnailedItOptions) -> np.ndarray:
        return self.rules_record(
            rules_dtype(),
            hand_size=options.hand_size,
            target=options.target,
            max_rounds=options.max_rounds,
            card_points=[options.card_points[VALUE[card] - 1] for card in range(NUM_CARDS)],
            max_turns=-1 if options.max_turns is None else options.max_turns,
        )
