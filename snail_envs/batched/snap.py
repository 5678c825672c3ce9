"""Snap in batches: the rules of `snail_envs.snap.rules`, compiled.

A game of reaction windows: in each tick every seat still in the game acts at once, so the batch
has one acting slot per seat (slot k for seat k, `seats[i, k]` = k while seat k acts, −1
otherwise); a seat inside its `reaction_delay`, and the last flipper with
`flipper_may_call=False`, act with `wait` as their only legal action, as in the reference. A
seat that goes out gets −1 (`reward="winlose"`) in the step it goes out and acts no more; its
slot stays −1 until the next game, as the reference environments drop its agent.

With `session` other than "single" an episode is a whole session of games, as in the reference
(`Snap._end_of_game`): a step that ends a game counts it and, unless the session is decided,
deals the next game at once (its dealer the winner, or after a game won by nobody the same
dealer; a sudden death only to the tied seats), so `terminated` comes only at the session's
end, with `winlose` paid then. Every seat acts in every tick of a session: a seat out of the
game on the table acts with `wait` alone until the next game begins. Points carry over a deal
(`point_offsets`), so that a new deal pays nothing with `points` and `margin`. In the learner's
vector env a session is one episode, and the learner's seat never leaves it before its end.

Every stack, pile and pool is a *packet*: a chain of cards through `next` (the card after each
card), with its first card, last card and size. A stack runs from its top down, a pile or a pool
from its bottom up, so that the rulebook's card order is a splice: a packet taken under a stack
goes after the stack's last card (its former bottom card nearest the top, as the rules say), a
pile turned over becomes the stack as it is, and piles moved to the centre go after the pool's
top card. Nothing is copied, so the batched engine plays every table size the reference does:
2–12 seats, one or two packs, picture decks of up to 256 cards (`MAX_CARDS`).

Chance in play (`same_tick="random"` draws, `refresh="shuffle"` shuffles, `glimpse_error`
glimpses) is drawn from the game's chance generator in the reference's order and recorded on its
tape. Every seat's glimpses of the card flipped last are kept for the window they are seen in;
a seat's observation shows its latest glimpse in place of the card's true key.

Every rule function below has the name and the behaviour of its counterpart in the reference
engine; observations are written exactly as `SnapObserver` writes them (with a session's wins,
game number and sudden-death flag). Every rule option is supported but picture decks of more
than 256 cards.

The in-kernel players are "random" and "heuristic": `snail_envs.agents.heuristics.snap.choose`, the
strategy of `SnapHeuristic` with its defaults (no delay of its own, no errors), compiled and
given the seat's own observation and mask.

For search, a game of the reference engine in progress loads into a record (`load_game`,
`SnapBatch.load`), and `redraw_hidden` (`SnapBatch.redraw`) redraws what one seat cannot know, as
the reference's `Snap.redraw_hidden` does: with `glimpse_error`, the card flipped last by the
seat's own glimpses and the other seats' glimpses of it; then the order of every group of
interchangeable cards over the stack positions they hold. To that end every game keeps each
card's group (`hidden_group`), as the reference does. A redraw reads nothing hidden from the
seat: the cards a draw is among are taken by their ids, the positions stack by stack.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
from numba.extending import overload

from snail_envs.agents.heuristics import snap as strategy
from snail_envs.batched import core
from snail_envs.batched.chance import (
    agent_pick,
    arrange,
    begin_game,
    game_record,
    occurs,
    pick,
    seed_games,
)
from snail_envs.batched.compiling import (
    by_type,
    compiled,
    entry_point,
    inlined,
    jitable,
    where_rules_have,
)
from snail_envs.batched.core import (
    MARGIN,
    POINTS,
    BatchedGame,
    capped_fraction,
    fraction,
    mark_action,
    next_seat,
    pay_margin,
    pieces_dtype,
    seat_after,
    seating_record,
    seats_after,
    unsigned,
)
from snail_envs.batched.drivers import compile_drivers
from snail_envs.batched.records import fields
from snail_envs.snap.env import SPEC
from snail_envs.snap.rules import (
    CALLS,
    JACK,
    MAX_PLAYERS,
    MAX_REACTION_TICKS,
    NEVER_SEEN,
    SEEN,
    SLAP,
    SNAP,
    SNAP_POOL,
    WAIT,
    WINS_NEEDED,
    Snap,
    SnapOptions,
)

NONE = -1
NOBODY = np.int64(0)
"""The empty bit set (of seats, piles, pools or keys), typed as the sets that the kernels build,
so that the rule functions given it compile once."""
NO_KEY = np.int64(NONE)
"""No key yet, typed as the keys the kernels read (as `NOBODY`)."""
JACK_KEY = np.int64(JACK)
"""The jack's key, typed as the keys the kernels read (as `NOBODY`)."""
MAX_CARDS = 256
"""The largest deck the batched engine deals (its shuffle is recorded whole, for the replays)."""
MAX_KEYS = 52
"""The most ranks or pictures a deck has (so the most pots, each showing its own key)."""
MAX_PILES = MAX_PLAYERS + 1
"""A pile per seat, and the central pile of `single_pile`."""
STACKS = 0
PILES = STACKS + MAX_PLAYERS
POOLS = PILES + MAX_PILES
NUM_PACKETS = POOLS + MAX_KEYS
"""Packet p: the stack of seat p, the pile p − `PILES` (seat or centre), the pool p − `POOLS`."""
WAITS = 2
"""`acts` of a seat out of the game on the table that acts, in a session: with `wait` alone."""
SHARED_WIN = SPEC.info.shared_win
"""What `reward="winlose"` pays each seat of a shared result (the game's facts)."""
for helper in strategy.HELPERS:
    jitable(helper)
SNAP_TAPE = 2 * (MAX_CARDS + 2 * MAX_PLAYERS) + len(CALLS)
"""How many of its latest chance outcomes a game keeps: all that one step may draw. A step that
ends a game plays a tick (a random order of the callers of each kind, shuffled refreshes of at
most the whole deck, a glimpse and a false key a seat) and deals one game: the session's next,
or the next episode's first (the deck's shuffle, then the first glimpses). A deal never ends
its game, so no step deals twice."""

GAME = game_record(
    fields((), flippers=np.int64, turn=np.int64, flips=np.int64, ticks=np.int64),
    fields((), window_tick=np.int64, window_length=np.int64, reopened=np.uint8, pool_call=np.uint8),
    fields(MAX_PLAYERS, in_game=np.uint8, acts=np.uint8, flipped=np.int16),
    fields(MAX_PLAYERS, last_calls=np.int8, last_correct=np.uint8, last_gain=np.int64),
    fields((), moved=np.uint8, gone_out=np.int64, winners=np.int64, finished=np.uint8),
    fields((), truncated=np.uint8, glimpsed=np.int64),
    fields((), num_pools=np.int64, groups=np.int64, glimpsed_group=np.int64, dealer=np.int64),
    fields(NUM_PACKETS, first=np.int16, last=np.int16, size=np.int16),
    fields(MAX_PILES, below=np.int16),
    fields(MAX_CARDS, next=np.int16),
    fields(MAX_CARDS, hidden_group=np.int32),
    fields((MAX_PLAYERS, MAX_REACTION_TICKS), glimpses=np.int8),
    fields(MAX_PLAYERS, session_wins=np.int64),
    fields((), games_played=np.int64, sudden_deaths=np.int64, tied=np.int64),
    fields(MAX_PLAYERS, point_offsets=np.float64),
    tape_length=SNAP_TAPE,
)
"""One game, the fields a flip reads and writes first, beside the generators' states, so that a
step touches few lines of the record (docs/speed.md): the seats that turned a card in the last
flip (`flippers`, a bit set) and the last flipper (`turn`); the flips and ticks so far; the
window's tick and length, whether it reopened and whether `snap_pool` is legal in it; which
seats are in the game and which act in this tick (`acts`: 1 for a seat in the game, `WAITS` for
one out of it, in a session; 0 for a seat that does not act), and the card each seat turned in
the last flip (−1 if none); every seat's call at the last resolution, whether it was right and
its change in cards; whether the resolution being applied has moved a card; the seats that went
out last and the winners (bit sets); whether the game is over or stopped (in a session: the
session is over; a game that ends within it is dealt anew at once); with `glimpse_error`, for
how many ticks of the window every seat has glimpsed the card flipped last (0 when sight is
exact); how many pools there are (pool 0 made first), the highest group number given so far, the
group the card flipped last came from, and who dealt the game on the table. Then the packets
(each packet's first and last card and size, −1 where none; the card under each pile's top;
`next`, the card after each card in its packet); every card's group of interchangeable cards
(`Snap.hidden_group`: `SEEN`, `NEVER_SEEN`, or from `NEVER_SEEN + 1` on the cards of one
shuffled refresh, not flipped since); the key each seat saw at each tick of its glimpses; the
session's score: every seat's wins, the games played, the sudden deaths begun, the seats tied
for the most wins (a bit set) who play them, and what is added to every seat's points so that a
new deal pays nothing."""

PIECES = pieces_dtype(
    (
        "pile_tops",
        "pile_sizes",
        "stack_sizes",
        "in_game",
        "just_flipped",
        "flipped_showing",
        "next_flippers",
        "reaction_delays",
        "last_calls",
        "last_correct",
        "last_gain",
        "pool_sizes",
        "centre_top",
        "centre_below",
        "centre_size",
        "window_tick",
        "window_full",
        "reopened",
        "progress",
        "session_wins",
        "game_number",
        "sudden_death",
        "may_call",
        "glimpses",
        "flipped_recall",
        "call_odds",
        "stack_tops",
        "stack_keys",
    )
)
"""Where each piece of an observation (or of the state) starts; −1 for a piece it lacks."""


def rules_dtype(noisy: bool, variant: bool) -> np.dtype:
    """The rule options as the kernels read them: `key_share` counts one card of a key in a
    stack (in `stack_keys`); `max_flips` and `max_ticks` are −1 for no limit, and
    `most_cards_at_limit` says that reaching one ends the game (`at_limit="most_cards"`);
    `wrong_call_from_stack` that a wrong call from an empty pile (or in `single_pile`) costs the
    top card of the stack (`wrong_call_cost="pile_or_stack"`); `glimpse_error` is a tick's
    error, 0 past its end; `heuristic_setup` is what the heuristic reads; `session` is 1 unless
    `session="single"`, and `wins_needed` the wins that decide the session at once. With
    `noisy` (`glimpse_error` is given: windows are full, seats glimpse) the record has one more
    field, `noisy`: the kernels know noisy sight by the record's type (`sees_noisily`), so that
    those of exact sight compile none of the glimpses' code. With `variant` (`is_variant`) it
    has the field `variant`, and only then do the kernels compile the variants' code
    (`variants_only`)."""
    return core.rules_dtype(
        PIECES,
        fields((), num_piles=np.int64, num_keys=np.int64, deck_size=np.int64),
        fields(MAX_CARDS, card_keys=np.int64),
        fields((), key_share=np.float32, classic=np.uint8, reaction_ticks=np.int64),
        fields(MAX_PLAYERS, delays=np.int64),
        fields((), flipper_may_call=np.uint8, speed=np.uint8, double=np.uint8),
        fields((), single_pile=np.uint8, slapjack=np.uint8, max_flips=np.int64, max_ticks=np.int64),
        fields((), most_cards_at_limit=np.uint8, wrong_call_from_stack=np.uint8),
        fields((), same_tick_random=np.uint8, refresh_shuffle=np.uint8),
        *([fields((), noisy=np.uint8)] if noisy else []),
        *([fields((), variant=np.uint8)] if variant else []),
        fields(MAX_REACTION_TICKS, glimpse_error=np.float64),
        fields(strategy.SETUP_SIZE, heuristic_setup=np.int64),
        fields((), session=np.int64, wins_needed=np.int64, session_games=np.int64),
        fields((), max_sudden_deaths=np.int64),
    )


NOISY = "noisy"
"""The field of the rules' record that noisy sight adds (`rules_dtype`)."""


@by_type
def sees_noisily(rules) -> bool:  # type: ignore[empty-body]
    """Whether the rules give `glimpse_error`, known from their record's type (`rules_dtype`)."""


@overload(sees_noisily)
def sees_noisily_of(rules: Any) -> Any:
    """`sees_noisily` compiled for the type of `rules`: a constant."""
    noisy = NOISY in rules.fields

    def constant(rules: Any) -> Any:
        return noisy

    return constant


@by_type
def glimpse_errors(rules) -> np.ndarray | None:
    """The chance of a false glimpse at each tick where the rules see noisily, None where they
    see exactly (known from the record's type, as `strategy.glimpse_errors` gives them)."""


@overload(glimpse_errors)
def glimpse_errors_of(rules: Any) -> Any:
    """`glimpse_errors` compiled for the type of `rules`."""
    if NOISY in rules.fields:

        def errors(rules: Any) -> Any:
            return rules.glimpse_error

        return errors

    def none(rules: Any) -> Any:
        return None

    return none


noisy_sight_only = where_rules_have(NOISY)
"""Decorator: a function of the glimpses that returns nothing, compiled where the rules see
noisily (`sees_noisily`) and to nothing where they see exactly."""

VARIANT = "variant"
"""The field of the rules' record of a variant (`is_variant`, `rules_dtype`)."""

VARIANT_OPTIONS = (
    "ruleset",
    "speed",
    "double",
    "single_pile",
    "slapjack",
    "same_tick",
    "refresh",
    "at_limit",
    "session",
    "glimpse_error",
)
"""The options of Snap's variants: one off its default makes the rules a variant's, whose
kernels compile the variants' code (`variants_only`); the standard game's compile none of it."""

OPTION_DEFAULTS = {option.name: option.default for option in dataclasses.fields(SnapOptions)}


def is_variant(options: SnapOptions) -> bool:
    """Whether the options play a variant: one of `VARIANT_OPTIONS` off its default."""
    return any(getattr(options, name) != OPTION_DEFAULTS[name] for name in VARIANT_OPTIONS)


def variants_only(
    standard: Callable[..., Any] | None = None,
) -> Callable[[Callable[..., Any]], Any]:
    """Decorator: `function(g, rules, ...)`, the rule as the variants play it, compiled for a
    variant's rules; in the standard game's kernels `standard` (what the standard game does, a
    compiled function of the same arguments) in its place, or nothing where only a variant
    calls it. A first step of the standard game compiles none of the variants' code."""
    return where_rules_have(VARIANT, standard)


# --------------------------------------------------------------------------- packets and sets


@compiled
def put_last(g, packet: int, card: int) -> None:
    """`card` after the last card of `packet`: on top of a pile, under a stack."""
    g.next[card] = NONE
    if g.size[packet] == 0:
        g.first[packet] = card
    else:
        g.next[g.last[packet]] = card
    g.last[packet] = card
    g.size[packet] += 1


@compiled
def put_first(g, packet: int, card: int) -> None:
    """`card` before the first card of `packet`: under a pile."""
    if g.size[packet] == 0:
        g.next[card] = NONE
        g.last[packet] = card
    else:
        g.next[card] = g.first[packet]
    g.first[packet] = card
    g.size[packet] += 1


@compiled
def take_first(g, packet: int) -> int:
    """The first card of `packet` (a stack's top), taken off it (an int64, as every card passed
    on: a card of another type would compile its callees again)."""
    card = np.int64(g.first[packet])
    g.first[packet] = g.next[card]
    g.size[packet] -= 1
    if g.size[packet] == 0:
        g.last[packet] = NONE
    return card


@compiled
def move_packet(g, source: int, target: int) -> None:
    """Every card of `source`, in its order, after the last card of `target`."""
    if g.size[source] == 0:
        return
    if g.size[target] == 0:
        g.first[target] = g.first[source]
    else:
        g.next[g.last[target]] = g.first[source]
    g.last[target] = g.last[source]
    g.size[target] += g.size[source]
    g.first[source] = g.last[source] = NONE
    g.size[source] = 0


@compiled
def lowest(bits: int) -> int:
    """The lowest member of a nonempty bit set."""
    member = 0
    while not bits >> member & 1:
        member += 1
    return member


@compiled
def members(bits: int) -> int:
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


# --------------------------------------------------------------------------- the table


@compiled
def held(g, seat: int) -> int:
    """The cards a seat holds: its stack and its pile (pools are held by nobody)."""
    return g.size[STACKS + seat] + g.size[PILES + seat]


@compiled
def top_key(g, rules, pile: int) -> int:
    if g.size[PILES + pile] == 0:
        return NONE
    return rules.card_keys[g.last[PILES + pile]]


@compiled
def lay_on_pile(g, pile: int, card: int) -> None:
    g.below[pile] = g.last[PILES + pile]
    put_last(g, PILES + pile, card)


@compiled
def move_pile(g, pile: int, target: int) -> None:
    move_packet(g, PILES + pile, target)
    g.below[pile] = NONE


@compiled
def matched_keys(g, rules) -> int:
    """The keys showing on two or more piles (a bit set), or with `single_pile` the key of the
    central pile's top card when the card below shares it."""
    if rules.single_pile:
        centre = rules.num_players
        if g.size[PILES + centre] >= 2:
            key = top_key(g, rules, centre)
            if key == rules.card_keys[g.below[centre]]:
                return 1 << key
        return 0
    seen = matched = NOBODY
    for pile in range(rules.num_piles):
        if g.size[PILES + pile]:
            bit = 1 << top_key(g, rules, pile)
            matched |= seen & bit
            seen |= bit
    return matched


@compiled
def flipped_pile(rules, seat: int) -> int:
    return rules.num_players if rules.single_pile else seat


@compiled
def is_showing(g, rules, seat: int) -> bool:
    """Whether the card `seat` turned in the last flip still tops its pile."""
    card = g.flipped[seat]
    packet = PILES + flipped_pile(rules, seat)
    return card != NONE and g.size[packet] > 0 and g.last[packet] == card


@compiled
def flipped_showing(g, rules) -> int:
    """The keys of the cards of the last flip that still top their piles (a bit set)."""
    keys = NOBODY
    for seat in range(rules.num_players):
        if is_showing(g, rules, seat):
            keys |= 1 << rules.card_keys[g.flipped[seat]]
    return keys


@compiled
def snap_key(g, rules, matched: int) -> int:
    """A snap is for the key of the card just flipped if it still shows and is matched,
    otherwise for the lowest matched key."""
    flipped = flipped_showing(g, rules) & matched
    return lowest(flipped if flipped else matched)


@compiled
def claimable_pool(g, rules) -> int:
    """`classic`: the pool (bit 0), when a card flipped and showing has the key of its top."""
    if g.num_pools == 0:
        return 0
    return flipped_showing(g, rules) >> rules.card_keys[g.last[POOLS]] & 1


@variants_only(standard=claimable_pool)
def claimable_pools(g, rules) -> int:
    """The pools a correct `snap_pool` wins now (a bit set of pool indices): `classic`'s pool
    (`claimable_pool`), or in `snap_pot` every pot whose top's key shows on a pile."""
    if rules.classic or g.num_pools == 0:
        return claimable_pool(g, rules)
    tops = NOBODY
    for pile in range(rules.num_piles):
        if g.size[PILES + pile]:
            tops |= 1 << top_key(g, rules, pile)
    pools = NOBODY
    for pool in range(g.num_pools):
        if tops >> rules.card_keys[g.last[POOLS + pool]] & 1:
            pools |= 1 << pool
    return pools


@compiled
def piles_showing(g, rules, key: int) -> int:
    piles = NOBODY
    for pile in range(rules.num_piles):
        if top_key(g, rules, pile) == key:
            piles |= 1 << pile
    return piles


@compiled
def jack_showing(g, rules) -> bool:
    return rules.slapjack == 1 and piles_showing(g, rules, JACK_KEY) != 0


@compiled
def claimable(g, rules) -> bool:
    """Whether any call could be right now."""
    return matched_keys(g, rules) != 0 or claimable_pools(g, rules) != 0 or jack_showing(g, rules)


@compiled
def in_game_seats(g, rules) -> int:
    seats = NOBODY
    for seat in range(rules.num_players):
        if g.in_game[seat]:
            seats |= 1 << seat
    return seats


@compiled
def is_in_game(g, rules, seat: int) -> bool:
    """In one game, until the seat goes out; in a session, until the session ends (a seat out
    of one game waits until the next begins)."""
    return rules.session == 1 or g.in_game[seat] == 1


@compiled
def is_out(g, rules, seat: int) -> bool:
    """The seat went out of the game (in one game; in a session no seat goes out)."""
    return not is_in_game(g, rules, seat)


@compiled
def is_acting(g, rules, seat: int) -> bool:
    """The seat acts in this tick (every seat in the game, in a window)."""
    return g.acts[seat] != 0


@compiled
def may_call(g, rules, seat: int) -> bool:
    """Whether `seat` acts in this tick and may call (it is in the game, its reaction delay has
    passed, and it is not the last flipper kept from calling)."""
    return (
        g.acts[seat] == 1
        and g.window_tick >= rules.delays[seat]
        and (rules.flipper_may_call or not g.flippers >> seat & 1)
    )


# --------------------------------------------------------------------------- flips and windows


@compiled
def flip(g, rules) -> None:
    """The next flip (every seat's at once with `speed`), then its window."""
    if rules.max_flips >= 0 and g.flips >= rules.max_flips:
        at_limit(g, rules)
        return
    if rules.speed:
        if not rules.classic:
            going = NOBODY
            for seat in range(rules.num_players):
                if out_at_turn(g, rules, seat):
                    going |= 1 << seat
            go_out(g, rules, going)
            if g.finished:
                return
        flippers = in_game_seats(g, rules)
    else:
        seat = next_flipper(g, rules, g.turn)
        while out_at_turn(g, rules, seat):
            go_out(g, rules, 1 << seat)
            if g.finished:
                return
            seat = next_flipper(g, rules, seat)
        flippers = 1 << seat
        g.turn = seat
    for seat in range(rules.num_players):
        g.flipped[seat] = NONE
        if flippers >> seat & 1:
            if g.size[STACKS + seat] == 0:
                refresh(g, rules, seat)
            card = take_first(g, STACKS + seat)
            lay_on_pile(g, flipped_pile(rules, seat), card)
            g.flipped[seat] = card
            g.glimpsed_group = g.hidden_group[card]
            g.hidden_group[card] = SEEN
    g.flippers = flippers
    g.flips += members(flippers)
    g.reopened = 0
    open_window(g, rules)


@compiled
def next_flipper(g, rules, after: int) -> int:
    """The next seat still in the game clockwise after `after`."""
    seat = after
    for _ in range(rules.num_players):
        seat = next_seat(seat, rules.num_players)
        if g.in_game[seat]:
            return seat
    return NONE


@compiled
def out_at_turn(g, rules, seat: int) -> bool:
    """`snap_pot`: a seat with nothing to flip at its turn is out."""
    return g.in_game[seat] == 1 and not rules.classic and held(g, seat) == 0


@compiled
def turn_over(g, rules, seat: int) -> None:
    """Turn the pile over, as it is, to become the (empty) stack (`refresh="turn_over"`)."""
    move_pile(g, seat, STACKS + seat)


@variants_only(standard=turn_over)
def refresh(g, rules, seat: int) -> None:
    """Turn the pile over to become the (empty) stack: as it is (`turn_over`), or shuffled
    (`refresh="shuffle"`: the pile's cards, bottom card first, are arranged in a random order,
    which is the stack's from its top down; they then form a new group of interchangeable
    cards)."""
    pile = PILES + seat
    count = g.size[pile]
    if not rules.refresh_shuffle or count < 2:
        turn_over(g, rules, seat)
        return
    cards = np.empty(count, np.int64)
    card = g.first[pile]
    for k in range(count):
        cards[k] = card
        card = g.next[card]
    order = np.empty(count, np.int64)
    arrange(g, order)
    g.first[pile] = g.last[pile] = g.below[seat] = NONE
    g.size[pile] = 0
    g.groups += 1
    for k in range(count):
        put_last(g, STACKS + seat, cards[order[k]])
        g.hidden_group[cards[k]] = g.groups


@compiled
def open_window(g, rules) -> None:
    """A window of `reaction_ticks` ticks when something is claimable, or always with
    `glimpse_error`, else of one tick. Every seat in the game acts in it, and in a session every
    seat (one out of this game with `wait` alone). After a flip with `glimpse_error`, every seat
    glimpses the flipped card (the caller sets `g.reopened`: a window opened again, no flip)."""
    g.window_tick = 0
    g.window_length = rules.reaction_ticks if sees_noisily(rules) or claimable(g, rules) else 1
    for seat in range(rules.num_players):
        g.acts[seat] = 1 if g.in_game[seat] else WAITS if rules.session else 0
    g.pool_call = g.num_pools > 0
    if sees_noisily(rules) and not g.reopened:
        glimpse(g, rules)


@noisy_sight_only
def glimpse(g, rules) -> None:
    """Every seat glimpses the card flipped last, at this tick of the window."""
    true_key = rules.card_keys[g.flipped[g.turn]]
    for seat in range(rules.num_players):
        g.glimpses[seat, g.window_tick] = glimpse_of(g, rules, true_key, g.window_tick)
    g.glimpsed = g.window_tick + 1


@compiled
def glimpse_of(g, rules, true_key: int, tick: int) -> int:
    """What one seat sees a card of `true_key` show at `tick`: the true key, or with the tick's
    error chance a key drawn uniformly from the others."""
    error = rules.glimpse_error[tick]
    if error and occurs(g, error):
        key = pick(g, rules.num_keys - 1)
        return key + 1 if key >= true_key else key
    return true_key


@inlined
def close_window(g, rules, resolved: bool | np.bool_) -> None:
    """The window ends: seats with nothing left go out (`classic`), then a new window opens
    without a flip if the resolution moved cards and a pile-to-pile match still shows, or else
    the next flip follows."""
    g.window_tick = 0
    g.glimpsed = 0
    if rules.classic:
        empty = NOBODY
        for seat in range(rules.num_players):
            if g.in_game[seat] and held(g, seat) == 0:
                empty |= 1 << seat
        go_out(g, rules, empty)
    elif resolved:
        check_end(g, rules)
    if g.finished:
        return
    if resolved and g.moved and matched_keys(g, rules):
        g.reopened = 1
        open_window(g, rules)
    else:
        flip(g, rules)


@compiled
def stop(g, rules) -> None:
    """The game is truncated at a length limit (`at_limit="truncate"`)."""
    g.truncated = 1
    g.acts[:] = 0
    g.glimpsed = 0


@variants_only(standard=stop)
def at_limit(g, rules) -> None:
    """A length limit is reached: the game is truncated (`at_limit="truncate"`), or it ends
    there, won by the seat or seats in the game holding the most cards (`"most_cards"`)."""
    if not rules.most_cards_at_limit:
        stop(g, rules)
        return
    most = -1
    winners = NOBODY
    for seat in range(rules.num_players):
        if g.in_game[seat]:
            cards = held(g, seat)
            if cards > most:
                most, winners = cards, NOBODY
            if cards == most:
                winners |= 1 << seat
    finish(g, winners)


@inlined
def apply(g, rules, actions: np.ndarray) -> None:
    """One tick: the actions of the acting seats (the others' entries are ignored)."""
    g.ticks += 1
    called = np.bool_(False)  # not the constant False: close_window compiles for bool once
    for seat in range(rules.num_players):
        called |= g.acts[seat] == 1 and actions[seat] != WAIT
    if called:
        resolve(g, rules, actions)
    else:
        g.window_tick += 1
    if called or g.window_tick >= g.window_length:
        close_window(g, rules, called)
    elif g.glimpsed:
        glimpse(g, rules)
    if not g.finished and rules.max_ticks >= 0 and g.ticks >= rules.max_ticks:
        at_limit(g, rules)
    if rules.session and (g.finished or g.truncated):
        end_of_game(g, rules)


# --------------------------------------------------------------------------- resolution


@compiled
def resolve(g, rules, actions: np.ndarray) -> None:
    """Judge every call against the table at the start of the tick, then apply the effects:
    a correct snap_pool, correct snaps, a correct slap, wrong calls. With
    `same_tick="random"`, of two or more correct calls of one kind the first in a random order
    is the one correct call, and the others lapse (neither right nor wrong)."""
    n = rules.num_players
    for seat in range(n):
        g.last_gain[seat] = -held(g, seat)
    matched = matched_keys(g, rules)
    key = snap_key(g, rules, matched) if matched else NONE
    pools = claimable_pools(g, rules)
    jack = jack_showing(g, rules)
    snaps = pool_calls = slaps = wrong = NOBODY
    for seat in range(n):
        g.last_calls[seat] = WAIT
        g.last_correct[seat] = 0
        action = actions[seat]
        if not g.acts[seat] or action == WAIT:
            continue
        g.last_calls[seat] = action
        if action == SNAP and matched:
            snaps |= 1 << seat
        elif action == SNAP_POOL and pools:
            pool_calls |= 1 << seat
        elif action == SLAP and jack:
            slaps |= 1 << seat
        else:
            wrong |= 1 << seat
            continue
        g.last_correct[seat] = 1
    g.moved = 0
    if rules.same_tick_random:
        pool_calls = first_of(g, rules, pool_calls)
        snaps = first_of(g, rules, snaps)
        slaps = first_of(g, rules, slaps)
    if members(pool_calls) == 1:
        win_pools(g, rules, lowest(pool_calls), pools)
    if members(snaps) == 1:
        win_snap(g, rules, lowest(snaps), key)
    elif snaps:
        tie(g, rules, snaps, key)
    if members(slaps) == 1:
        take(g, rules, lowest(slaps), NOBODY, piles_showing(g, rules, JACK_KEY))
    for seat in range(n):
        if wrong >> seat & 1:
            pay_for_wrong_call(g, rules, seat)
    for seat in range(n):
        g.last_gain[seat] += held(g, seat)


@compiled
def every_caller(g, rules, callers: int) -> int:
    """Correct callers of one kind at one tick (a bit set) all count (`same_tick="tie"`)."""
    return callers


@variants_only(standard=every_caller)
def first_of(g, rules, callers: int) -> int:
    """Of several callers of one kind (a bit set), the first in a random order; the others
    lapse (`same_tick="random"`)."""
    count = members(callers)
    if count < 2:
        return callers
    later = callers
    for _ in range(pick(g, count)):
        later &= later - 1
    first = later & -later
    for seat in range(rules.num_players):
        if (callers ^ first) >> seat & 1:
            g.last_correct[seat] = 0
    return first


@compiled
def take(g, rules, seat: int, pools: int, piles: int) -> None:
    """Put pools (in order), then piles (ascending seats) face down under `seat`'s stack."""
    stack = STACKS + seat
    kept = 0
    for pool in range(g.num_pools):
        if pools >> pool & 1:
            move_packet(g, POOLS + pool, stack)
            g.moved = 1
            continue
        if kept < pool:
            move_packet(g, POOLS + pool, POOLS + kept)
        kept += 1
    g.num_pools = kept
    for pile in range(rules.num_piles):
        if piles >> pile & 1 and g.size[PILES + pile]:
            move_pile(g, pile, stack)
            g.moved = 1


@compiled
def win_pool(g, rules, seat: int, pools: int) -> None:
    """`classic`: the caller takes the pool."""
    take(g, rules, seat, pools, NOBODY)


@variants_only(standard=win_pool)
def win_pools(g, rules, seat: int, pools: int) -> None:
    """`classic`: the caller takes the pool (`win_pool`). `snap_pot`: every claimable pot, each
    with the piles matching its top."""
    if rules.classic:
        win_pool(g, rules, seat, pools)
        return
    keys = NOBODY
    for pool in range(g.num_pools):
        if pools >> pool & 1:
            keys |= 1 << rules.card_keys[g.last[POOLS + pool]]
    piles = NOBODY
    for pile in range(rules.num_piles):
        key = top_key(g, rules, pile)
        if key != NONE and keys >> key & 1:
            piles |= 1 << pile
    take(g, rules, seat, pools, piles)


@compiled
def win_snap(g, rules, seat: int, key: int) -> None:
    piles = piles_showing(g, rules, key)
    take(g, rules, seat, NOBODY, piles)
    if rules.double:
        take_stack_tops(g, rules, seat, piles)


@variants_only()
def take_stack_tops(g, rules, seat: int, piles: int) -> None:
    """`double`: the winner of a snap also takes the top card of each other matched seat's
    stack."""
    for owner in range(rules.num_players):
        if piles >> owner & 1 and owner != seat and g.size[STACKS + owner]:
            put_last(g, STACKS + seat, take_first(g, STACKS + owner))
            g.moved = 1


@compiled
def tie(g, rules, callers: int, key: int) -> None:
    """`classic`: the matched piles go to the pool; `snap_pot`: the callers' piles form a pot."""
    to_centre(g, rules, piles_showing(g, rules, key) if rules.classic else callers)


@compiled
def pay_for_wrong_call(g, rules, seat: int) -> None:
    """A wrong call costs the caller cards: its pile goes to the centre; from an empty pile
    (`wrong_call_cost="pile_or_stack"`), the top card of its stack, face up, as its pool or pot;
    with `single_pile`, that card goes face up under the central pile. A seat with no card pays
    nothing."""
    from_stack = rules.wrong_call_from_stack and g.size[STACKS + seat] > 0
    if rules.single_pile:
        if from_stack:
            burn(g, rules, turn_up(g, seat))
    elif g.size[PILES + seat] or not from_stack:
        to_centre(g, rules, 1 << seat)
    else:
        card = turn_up(g, seat)
        put_last(g, POOLS + centre_pool(g, rules, rules.card_keys[card]), card)


@compiled
def turn_up(g, seat: int) -> int:
    """The top card of `seat`'s stack, taken off and turned face up: every seat follows it from
    now on."""
    card = take_first(g, STACKS + seat)
    g.hidden_group[card] = SEEN
    return card


@variants_only()
def burn(g, rules, card: int) -> None:
    """`card`, face up, under the central pile (the card just below its top, when it holds one
    card)."""
    centre = rules.num_players
    if g.size[PILES + centre] == 1:
        g.below[centre] = card
    put_first(g, PILES + centre, card)
    g.moved = 1


@compiled
def to_centre(g, rules, piles: int) -> None:
    """Move piles (ascending seats, the highest on top) to the centre as one set."""
    top = NO_KEY
    for pile in range(rules.num_piles):
        if piles >> pile & 1 and g.size[PILES + pile]:
            top = top_key(g, rules, pile)
    if top == NONE:
        return
    pool = centre_pool(g, rules, top)
    for pile in range(rules.num_piles):
        if piles >> pile & 1:
            move_pile(g, pile, POOLS + pool)


@compiled
def centre_pool(g, rules, top: int) -> int:
    """The pool a set of cards whose top has key `top` goes on (`classic`: the pool; `snap_pot`:
    the pot showing that key), made if there is none; a card moves."""
    g.moved = 1
    pool = 0
    if not rules.classic:
        while pool < g.num_pools and rules.card_keys[g.last[POOLS + pool]] != top:
            pool += 1
    if pool == g.num_pools:
        g.num_pools += 1
    return pool


# --------------------------------------------------------------------------- the end


@compiled
def go_out(g, rules, seats: int) -> None:
    if not seats:
        return
    for seat in range(rules.num_players):
        if seats >> seat & 1:
            g.in_game[seat] = 0
    g.gone_out = seats
    check_end(g, rules)


@compiled
def check_end(g, rules) -> None:
    """At most one seat left: it wins. None left, or none left holds a card: a draw."""
    left = in_game_seats(g, rules)
    if members(left) == 1:
        finish(g, left)
    elif not left:
        finish(g, g.gone_out)
    else:
        for seat in range(rules.num_players):
            if left >> seat & 1 and held(g, seat):
                return
        finish(g, left)


@compiled
def finish(g, winners: int) -> None:
    g.winners = winners
    g.finished = 1
    g.acts[:] = 0


# --------------------------------------------------------------------------- games


@compiled
def is_over(g) -> bool:
    """The game (in a session, the session) is over."""
    return g.finished == 1


@compiled
def is_truncated(g, rules) -> bool:
    """The game (in a session, the session) was stopped by `max_flips` or `max_ticks`."""
    return g.truncated == 1


@inlined
def start_game(g, rules) -> None:
    """A new episode (one game, or a session of games): the session's score cleared, and the
    first game dealt by the last seat, so that seat 0 flips first."""
    begin_game(g)
    g.session_wins[:] = 0
    g.games_played = g.sudden_deaths = g.tied = 0
    g.point_offsets[:] = 0.0
    n = rules.num_players
    deal_game(g, rules, (1 << n) - 1, n - 1)


@compiled
def deal_game(g, rules, seats: int, dealer: int) -> None:
    """Shuffle and deal the whole deck one card at a time clockwise to `seats` (a bit set) from
    the dealer's left (first dealt card on top of each stack), and flip the first card: the
    seat left of the dealer flips first, and play starts in a window, never at an end."""
    size, n = rules.deck_size, rules.num_players
    deck = np.empty(size, np.int64)
    arrange(g, deck)
    g.first[:] = NONE
    g.last[:] = NONE
    g.size[:] = 0
    g.below[:] = NONE
    g.num_pools = 0
    g.hidden_group[:size] = NEVER_SEEN
    g.groups = NEVER_SEEN
    g.glimpsed_group = SEEN
    seat = dealer
    for dealt in range(size):
        seat = seat + 1 if seat + 1 < n else 0
        while not seats >> seat & 1:
            seat = seat + 1 if seat + 1 < n else 0
        put_last(g, STACKS + seat, deck[size - 1 - dealt])
    g.in_game[:] = 0
    for seat in range(n):
        g.in_game[seat] = seats >> seat & 1
    g.acts[:] = 0
    g.flipped[:] = NONE
    g.flippers = 0
    g.dealer = g.turn = dealer
    g.flips = g.ticks = g.window_tick = 0
    g.window_length = 1
    g.reopened = g.pool_call = 0
    g.last_calls[:] = WAIT
    g.last_correct[:] = 0
    g.last_gain[:] = 0
    g.moved = 0
    g.glimpsed = 0
    g.gone_out = g.winners = 0
    g.finished = g.truncated = 0
    flip(g, rules)


# --------------------------------------------------------------------------- sessions


@variants_only()
def end_of_game(g, rules) -> None:
    """A game of a session is over (won, drawn or truncated): it counts, and the session ends
    or the next game is dealt by the winner (after a game won by nobody, by the same dealer).
    A game is won when it finished with one winner (seats that go out together are two or
    more, so a draw never has one)."""
    winner = NONE
    if g.finished and members(g.winners) == 1:
        winner = lowest(g.winners)
        g.session_wins[winner] += 1
    g.games_played += 1
    if session_decided(g, rules, winner):
        g.finished = 1
        g.truncated = 0
        return
    n = rules.num_players
    points = np.empty(n)
    playing = NOBODY
    for seat in range(n):
        points[seat] = seat_points(g, rules, seat)
        if plays_next(g, seat):
            playing |= 1 << seat
    deal_game(g, rules, playing, g.dealer if winner == NONE else winner)
    for seat in range(n):
        g.point_offsets[seat] = points[seat] - held(g, seat) / rules.deck_size


@compiled
def session_decided(g, rules, winner: int) -> bool:
    """Whether the session is decided, its winners then in `winners`; while it goes on,
    `sudden_deaths` tells whether the next game is a sudden death among the `tied` seats.
    `best_of_N` ends at more than N/2 wins, `first_to_3` at three; after the session's games a
    tie for the most wins goes to a sudden death, replayed while won by nobody, at most
    `max_sudden_deaths` games in all, after which the tied seats share the win."""
    if g.sudden_deaths:
        if winner != NONE:
            g.winners = 1 << winner
            return True
        if g.sudden_deaths < rules.max_sudden_deaths:
            g.sudden_deaths += 1
            return False
        g.winners = g.tied
        return True
    best = 0
    for seat in range(rules.num_players):
        best = max(best, g.session_wins[seat])
    tied = NOBODY
    for seat in range(rules.num_players):
        if g.session_wins[seat] == best:
            tied |= 1 << seat
    if best >= rules.wins_needed:
        g.winners = tied & -tied
        return True
    if g.games_played < rules.session_games:
        return False
    if members(tied) == 1 or not rules.max_sudden_deaths:
        g.winners = tied
        return True
    g.tied = tied
    g.sudden_deaths = 1
    return False


@compiled
def plays_next(g, seat: int) -> bool:
    """Every seat plays every game of a session but a sudden death, which only the seats tied
    for the most wins play."""
    return g.sudden_deaths == 0 or (g.tied >> seat & 1) == 1


@compiled
def seat_points(g, rules, seat: int) -> float:
    """A seat's share of the deck in its stack and pile (the `reward="points"` signal); in a
    session a new deal pays nothing: the points carry over, changed only by play."""
    return held(g, seat) / rules.deck_size + g.point_offsets[seat]


@inlined
def take_stock(g, rules, stock: np.ndarray) -> None:
    """Each seat's points (`stock[0]`), and whether it is in the game (`stock[1]`,
    `is_in_game`): `pay` pays from here."""
    for seat in range(rules.num_players):
        stock[0, seat] = seat_points(g, rules, seat)
        stock[1, seat] = rules.session | g.in_game[seat]  # is_in_game, without a branch


@compiled
def pays_each_tick(rules) -> bool:
    """With `reward="margin"` the learner is paid tick by tick: the mean runs over the seats in
    the game in each tick."""
    return rules.reward == MARGIN


@compiled
def pay(g, rules, stock: np.ndarray, rewards: np.ndarray) -> None:
    """The rewards of the tick just played to the seats live before it (`take_stock`; the others
    get 0), given each seat's points before it: the change in its points (`reward="points"`),
    that change less the mean change of the other seats live (`"margin"`), or +1 to a lone
    winner (`SHARED_WIN` to each seat of a shared result) and −1 to the others when the episode
    ends, −1 to a seat that goes out while it goes on (in
    one game; in a session every seat stays to its end)."""
    if rules.reward == MARGIN:
        changes = np.empty(rules.num_players)  # points: float64, as the reference's
        paid = NOBODY
        for seat in range(rules.num_players):
            changes[seat] = seat_points(g, rules, seat) - stock[0, seat]
            if stock[1, seat]:
                paid |= 1 << seat
        pay_margin(changes, paid, rules.num_players, rewards)
        return
    for seat in range(rules.num_players):
        reward = 0.0
        if stock[1, seat]:  # live before the tick
            if rules.reward == POINTS:
                reward = seat_points(g, rules, seat) - stock[0, seat]
            elif g.finished:
                reward = -1.0
                if g.winners >> seat & 1:
                    reward = SHARED_WIN if members(g.winners) > 1 else 1.0
            elif not is_in_game(g, rules, seat):
                reward = -1.0
        rewards[seat] = reward


# --------------------------------------------------------------------------- players


RANDOM_READS = ("agent_state", "acts", "window_tick", "flippers", "pool_call")
"""The fields of a game's record that `random_action` reads (`drivers`)."""


@compiled
def random_action(g, rules, seat: int) -> int:
    """A uniformly random legal action of an acting seat."""
    if not may_call(g, rules, seat):
        return WAIT
    chosen = np.int64(agent_pick(g, 2 + g.pool_call + rules.slapjack))
    if chosen == 2 and not g.pool_call:
        return SLAP
    return chosen


choose = compiled(strategy.choose)
"""The heuristic's strategy (`snail_envs.agents.heuristics.snap.choose`), compiled."""


@inlined
def heuristic_choice(rules, observation: np.ndarray, mask: np.ndarray) -> int:
    """`snail_envs.agents.heuristics.snap.SnapHeuristic` with its defaults (no delay of its own, no
    errors)."""
    return choose(
        observation,
        mask,
        rules.heuristic_setup,
        glimpse_errors(rules),
        strategy.DEFAULT_BELIEF_THRESHOLD,
        0,
        0.0,
        1.0,
    )


# --------------------------------------------------------------------------- observations


@compiled
def write_table(g, rules, at, out: np.ndarray, viewer: int) -> None:
    """The public table, seat i being the i-th seat clockwise from `viewer` (0: absolute),
    everything but `may_call`."""
    n, k, size = rules.num_players, rules.num_keys, rules.deck_size
    out.fill(0)
    for i in range(n):
        seat = seat_after(viewer, i, n)
        pile = PILES + seat
        if g.size[pile]:
            out[unsigned(at.pile_tops + k * i + top_key(g, rules, seat))] = 1
        out[unsigned(at.pile_sizes + i)] = fraction(out, g.size[pile], size)
        out[unsigned(at.stack_sizes + i)] = fraction(out, g.size[STACKS + seat], size)
        out[unsigned(at.in_game + i)] = g.in_game[seat]
        if g.flipped[seat] != NONE:
            out[unsigned(at.just_flipped + i)] = 1
            out[unsigned(at.flipped_showing + i)] = is_showing(g, rules, seat)
        out[unsigned(at.reaction_delays + i)] = fraction(
            out, rules.delays[seat], rules.reaction_ticks
        )
        call = g.last_calls[seat]
        if call != WAIT:
            out[unsigned(at.last_calls + len(CALLS) * i + call - 1)] = 1
            out[unsigned(at.last_correct + i)] = g.last_correct[seat]
        out[unsigned(at.last_gain + i)] = fraction(out, g.last_gain[seat], size)
    if not g.finished and not g.truncated:
        if rules.speed:
            for i in range(n):
                out[at.next_flippers + i] = g.in_game[seat_after(viewer, i, n)]
        else:
            following = next_flipper(g, rules, g.turn)
            out[at.next_flippers + seats_after(viewer, following, n)] = 1
    for pool in range(g.num_pools):
        packet = POOLS + pool
        out[at.pool_sizes + rules.card_keys[g.last[packet]]] = fraction(out, g.size[packet], size)
    if rules.single_pile:
        write_centre(g, rules, at, out)
    if rules.session:
        write_session(g, rules, at, out, viewer)
    out[at.window_tick + g.window_tick] = 1
    out[at.window_full] = g.window_length > 1
    out[at.reopened] = g.reopened
    if rules.max_flips >= 0:
        out[at.progress] = capped_fraction(out, g.flips, rules.max_flips)
    if rules.max_ticks >= 0:
        out[at.progress + 1] = fraction(out, g.ticks, rules.max_ticks)


@variants_only()
def write_centre(g, rules, at, out: np.ndarray) -> None:
    """`single_pile`: the central pile's top, size and the card below its top."""
    n = rules.num_players
    centre = PILES + n
    if g.size[centre]:
        out[at.centre_top + top_key(g, rules, n)] = 1
        out[at.centre_size] = fraction(out, g.size[centre], rules.deck_size)
    if g.size[centre] > 1:
        out[at.centre_below + rules.card_keys[g.below[n]]] = 1


@variants_only()
def write_session(g, rules, at, out: np.ndarray, viewer: int) -> None:
    """`session`: each seat's wins, the game's number and whether it is a sudden death."""
    n = rules.num_players
    for i in range(n):
        wins = g.session_wins[seat_after(viewer, i, n)]
        out[at.session_wins + i] = fraction(out, wins, rules.wins_needed)
    games = rules.session_games + rules.max_sudden_deaths
    out[at.game_number] = capped_fraction(out, g.games_played + 1, games)
    out[at.sudden_death] = g.sudden_deaths > 0


@inlined
def write_observation(g, rules, seat: int, out: np.ndarray) -> None:
    """What `seat` sees: the public table, seats relative to it, whether it may call, and its
    glimpses."""
    at = rules.observation
    write_table(g, rules, at, out, seat)
    out[at.may_call] = may_call(g, rules, seat)
    show_glimpsed(g, rules, seat, out)


@noisy_sight_only
def show_glimpsed(g, rules, seat: int, out: np.ndarray) -> None:
    """`seat`'s glimpses (`show_glimpses`) and, with `call_odds`, the chance each call would be
    right (`show_call_odds`)."""
    at = rules.observation
    if g.glimpsed:
        show_glimpses(g, rules, seat, out)
    if at.call_odds >= 0:
        show_call_odds(g, rules, seat, out[at.call_odds : at.call_odds + len(CALLS)])


@compiled
def show_glimpses(g, rules, seat: int, out: np.ndarray) -> None:
    """The card flipped last shows the key `seat` glimpsed now, not its true key; the
    `glimpses` piece holds every glimpse of this window, and `flipped_recall` (with
    `recall="perfect"`) what the seat remembers of the cards that card may be."""
    at = rules.observation
    n, k = rules.num_players, rules.num_keys
    top = at.centre_top if rules.single_pile else at.pile_tops + k * seats_after(seat, g.turn, n)
    out[top + rules.card_keys[g.flipped[g.turn]]] = 0
    out[top + g.glimpses[seat, g.glimpsed - 1]] = 1
    for tick in range(g.glimpsed):
        out[at.glimpses + k * tick + g.glimpses[seat, tick]] = 1
    if at.flipped_recall >= 0:
        show_recall(g, rules, out[at.flipped_recall : at.flipped_recall + k])


@compiled
def recalled_keys(g, rules) -> np.ndarray:
    """`Snap.recalled_keys`: for every key, how many of the cards the card flipped last may be
    by every card seen (itself, and the stack cards of the group it came from) have that key."""
    counts = np.zeros(rules.num_keys, np.int64)
    counts[rules.card_keys[g.flipped[g.turn]]] = 1
    if g.glimpsed_group != SEEN:
        for card in range(rules.deck_size):
            if g.hidden_group[card] == g.glimpsed_group:
                counts[rules.card_keys[card]] += 1
    return counts


@compiled
def show_recall(g, rules, out: np.ndarray) -> None:
    """`Snap.recalled_keys` as shares of the cards the card flipped last may be."""
    counts = recalled_keys(g, rules)
    out[:] = counts / counts.sum()


@compiled
def show_call_odds(g, rules, seat: int, out: np.ndarray) -> None:
    """`Snap.call_odds`: the chance each call would be right in this tick, by every card `seat`
    has seen and its glimpses (each key the card flipped last may have weighted by the chance of
    those glimpses of it); 1 or 0 while the table is seen as it is."""
    if not g.glimpsed:
        out[0] = matched_keys(g, rules) != 0
        out[1] = claimable_pools(g, rules) != 0
        out[2] = jack_showing(g, rules)
        return
    likelihood = glimpse_likelihood(g, rules, seat)
    counts = recalled_keys(g, rules)
    odds = np.zeros(len(CALLS))
    total = 0.0
    for key in range(rules.num_keys):
        weight = counts[key] * likelihood[key]
        if weight > 0:
            right = calls_right_if_flipped(g, rules, key)
            for index in range(len(CALLS)):
                if right >> index & 1:
                    odds[index] += weight
            total += weight
    for index in range(len(CALLS)):
        out[index] = odds[index] / total


@compiled
def calls_right_if_flipped(g, rules, key: int) -> int:
    """`Snap.right_calls` (a bit set over `CALLS`) judged as if the card flipped last, on top of
    its pile, had `key`."""
    flipped = flipped_pile(rules, g.turn)
    tops = matched = NOBODY
    for pile in range(rules.num_piles):
        top = key if pile == flipped else top_key(g, rules, pile)
        if top != NONE:
            bit = 1 << top
            matched |= tops & bit
            tops |= bit
    if rules.single_pile:
        centre = rules.num_players
        snap = g.size[PILES + centre] >= 2 and key == rules.card_keys[g.below[centre]]
    else:
        snap = matched != 0
    pool = False
    if g.num_pools and rules.classic:
        pool_key = rules.card_keys[g.last[POOLS]]
        for seat in range(rules.num_players):
            if is_showing(g, rules, seat):
                shown = key if seat == g.turn else rules.card_keys[g.flipped[seat]]
                pool = pool or shown == pool_key
    elif g.num_pools:
        for index in range(g.num_pools):
            pool = pool or tops >> rules.card_keys[g.last[POOLS + index]] & 1 == 1
    slap = rules.slapjack == 1 and tops >> JACK_KEY & 1 == 1
    return int(snap) | int(pool) << 1 | int(slap) << 2


@compiled
def write_state(g, rules, out: np.ndarray) -> None:
    """The public table with seats absolute, and every stack's top card and keys."""
    at = rules.state
    n, k = rules.num_players, rules.num_keys
    write_table(g, rules, at, out, 0)
    for seat in range(n):
        out[at.may_call + seat] = may_call(g, rules, seat)
        card = g.first[STACKS + seat]
        if card != NONE:
            out[at.stack_tops + k * seat + rules.card_keys[card]] = 1
        while card != NONE:
            out[at.stack_keys + k * seat + rules.card_keys[card]] += rules.key_share
            card = g.next[card]


@compiled
def write_mask(g, rules, seat: int, mask: np.ndarray) -> None:
    """`wait` and `snap` always, `snap_pool` while a pool exists, `slap` with `slapjack`; only
    `wait` inside the seat's reaction delay; all zero when the seat does not act."""
    mask.fill(0)
    if not g.acts[seat]:
        return
    mark_action(mask, WAIT, 1)
    if may_call(g, rules, seat):
        mark_action(mask, SNAP, 1)
        mark_action(mask, SNAP_POOL, g.pool_call)
        mark_action(mask, SLAP, rules.slapjack)


# --------------------------------------------------------------------------- search


@entry_point
def round_of(g) -> int:
    """The flips made (in a session, counted on from game to game): a search may stop at the
    next flip, once the windows of this one are played out."""
    return g.games_played * 2**32 + g.flips


@inlined
def redraw_hidden(g, rules, seat: int) -> None:
    """Redraw what `seat` cannot know: with `glimpse_error`, first the card flipped last by the
    seat's own glimpses of it, then the other seats' glimpses; then, in each group of
    interchangeable cards (never seen; one shuffled refresh), the order of its cards over the
    stack positions they hold. Apart from the glimpses, every seat knows the same. Nothing
    hidden from `seat` is read: the cards a draw is among are taken in the order of their ids,
    the positions stack by stack."""
    stacked = stacked_cards(g, rules)
    redraw_glimpses(g, rules, seat, stacked)
    redraw_groups(g, stacked)
    restack(g, rules, stacked)


@compiled
def stacked_cards(g, rules) -> np.ndarray:
    """The card at every stack position: seat 0's stack first, each stack from its top down."""
    stacked = np.empty(rules.deck_size, np.int64)
    count = 0
    for seat in range(rules.num_players):
        card = g.first[STACKS + seat]
        while card != NONE:
            stacked[count] = card
            count += 1
            card = g.next[card]
    return stacked[:count]


@compiled
def restack(g, rules, stacked: np.ndarray) -> None:
    """Every stack holds the cards at its positions in `stacked` (`stacked_cards`)."""
    top = 0
    for seat in range(rules.num_players):
        size = g.size[STACKS + seat]
        if size:
            bottom = top + size - 1
            g.first[STACKS + seat] = stacked[top]
            for position in range(top, bottom):
                g.next[stacked[position]] = stacked[position + 1]
            g.last[STACKS + seat] = stacked[bottom]
            g.next[stacked[bottom]] = NONE
        top += size


@compiled
def redraw_glimpsed(g, rules, seat: int, stacked: np.ndarray) -> None:
    """Draw the card flipped last from the cards it may be (itself and the stack cards of the
    group it came from), each weighted by the chance of `seat`'s glimpses were it that card;
    swap it into place; then draw the other seats' glimpses of it anew."""
    flipped = g.flipped[g.turn]
    likelihood = glimpse_likelihood(g, rules, seat)
    weights = np.zeros(rules.deck_size)  # by card id
    weights[flipped] = likelihood[rules.card_keys[flipped]]
    if g.glimpsed_group != SEEN:
        for card in stacked:
            if g.hidden_group[card] == g.glimpsed_group:
                weights[card] = likelihood[rules.card_keys[card]]
    card = pick_weighted(g, weights)
    if card != flipped:
        swap_flipped(g, rules, card, stacked)
    true_key = rules.card_keys[card]
    for other in range(rules.num_players):
        if other != seat:
            for tick in range(g.glimpsed):
                g.glimpses[other, tick] = glimpse_of(g, rules, true_key, tick)


@noisy_sight_only
def redraw_glimpses(g, rules, seat: int, stacked: np.ndarray) -> None:
    """Once the seats have glimpsed the card flipped last, `redraw_glimpsed`."""
    if g.glimpsed:
        redraw_glimpsed(g, rules, seat, stacked)


@compiled
def glimpse_likelihood(g, rules, seat: int) -> np.ndarray:
    """For every key, the chance of `seat`'s glimpses (one a tick) of a card of that key."""
    k = rules.num_keys
    likelihood = np.ones(k)
    for tick in range(g.glimpsed):
        error = rules.glimpse_error[tick]
        seen = g.glimpses[seat, tick]
        for key in range(k):
            likelihood[key] *= 1 - error if key == seen else error / (k - 1)
    return likelihood


@compiled
def pick_weighted(g, weights: np.ndarray) -> int:
    """A chance outcome among options of these weights (some positive), each as likely as its
    weight: option by option, each is drawn with its share of the weight of the options from
    it on."""
    from_here = np.cumsum(weights[::-1])[::-1]
    last = weights.shape[0] - 1
    while weights[last] == 0:
        last -= 1
    for option in range(last):
        if weights[option] and occurs(g, weights[option] / from_here[option]):
            return option
    return last


@compiled
def swap_flipped(g, rules, card: int, stacked: np.ndarray) -> None:
    """`card`, a stack card, and the card flipped last change places: `card` tops the pile and
    is seen; the flipped card takes its stack position and its group."""
    flipped = g.flipped[g.turn]
    position = 0
    while stacked[position] != card:
        position += 1
    stacked[position] = flipped
    g.hidden_group[flipped] = g.glimpsed_group
    g.hidden_group[card] = SEEN
    pile = flipped_pile(rules, g.turn)
    under = g.below[pile]
    if under == NONE:
        g.first[PILES + pile] = card
    else:
        g.next[under] = card
    g.next[card] = NONE
    g.last[PILES + pile] = card
    g.flipped[g.turn] = card


@compiled
def redraw_groups(g, stacked: np.ndarray) -> None:
    """In each group of interchangeable cards, its cards (in the order of their ids) arranged
    at random over the stack positions the group holds (in stack order)."""
    hidden = np.flatnonzero(g.hidden_group[stacked] != SEEN)
    groups = g.hidden_group[stacked[hidden]].astype(np.int64)
    positions = by_group(groups, hidden)
    cards = by_group(groups, stacked[hidden])
    groups.sort()
    order = np.empty(groups.shape[0], np.int64)
    start = 0
    while start < groups.shape[0]:
        end = start + 1
        while end < groups.shape[0] and groups[end] == groups[start]:
            end += 1
        arrange(g, order[start:end])
        for k in range(start, end):
            stacked[positions[k]] = cards[start + order[k]]
        start = end


@compiled
def by_group(groups: np.ndarray, items: np.ndarray) -> np.ndarray:
    """`items` (numbers below `MAX_CARDS`, one a group) in the order of their groups, and in
    their own order within a group."""
    keys = groups * MAX_CARDS + items
    keys.sort()
    return keys % MAX_CARDS


def load_game(games: np.ndarray, index: int, game: Snap, seed: int) -> None:
    """Write `game`, a reference engine's game in progress, into record `index` of `games`:
    every stack, pile and pool in its order, every card's group, the last flip, the window and
    its glimpses, the last resolution, the seats in the game and acting, the end, and the
    session's score and point offsets, exactly. The record's generators are seeded from `seed`:
    its future chance is its own, not `game`'s."""
    record = games[index : index + 1]
    record[0] = 0
    seed_games(record, np.uint64(seed % 2**64))
    g = record[0]
    n = game.num_players
    g["first"][:] = g["last"][:] = g["below"][:] = NONE
    for seat, stack in enumerate(game.stacks):
        lay_out(g, STACKS + seat, list(reversed(stack)))
    for pile, cards in enumerate(game.piles):
        lay_out(g, PILES + pile, cards)
        g["below"][pile] = cards[-2] if len(cards) > 1 else NONE
    for pool, cards in enumerate(game.pools):
        lay_out(g, POOLS + pool, cards)
    g["num_pools"] = len(game.pools)
    g["hidden_group"][: len(game.hidden_group)] = game.hidden_group
    g["groups"] = game.groups
    g["glimpsed_group"] = game.glimpsed_group
    g["in_game"][:n] = game.in_game
    for seat in game.acting_seats():
        g["acts"][seat] = 1 if game.in_game[seat] else WAITS
    g["flipped"][:] = NONE
    for seat, _, card in game.just_flipped:
        g["flipped"][seat] = card
    g["flippers"] = bit_set(game.flippers)
    g["turn"] = game.turn
    g["flips"] = game.flips
    g["ticks"] = game.ticks
    g["window_tick"] = game.window_tick
    g["window_length"] = game.window_length
    g["reopened"] = game.reopened
    g["pool_call"] = SNAP_POOL in game._calls
    g["last_calls"][:n] = game.last_calls
    g["last_correct"][:n] = game.last_correct
    g["last_gain"][:n] = game.last_gain
    g["moved"] = game._moved
    g["gone_out"] = bit_set(game.gone_out)
    g["winners"] = bit_set(game.outcome.winners) if game.outcome is not None else 0
    g["finished"] = game.outcome is not None
    g["truncated"] = game.truncated
    g["glimpsed"] = len(game.glimpses[0])
    for seat, glimpses in enumerate(game.glimpses):
        g["glimpses"][seat, : len(glimpses)] = glimpses
    g["dealer"] = game.dealer
    g["session_wins"][:n] = game.session_wins
    g["games_played"] = game.games_played
    g["sudden_deaths"] = game.sudden_deaths
    g["tied"] = bit_set(seat for seat in range(n) if game._tied[seat])
    g["point_offsets"][:n] = game._point_offsets


def lay_out(g: np.void, packet: int, cards: list[int]) -> None:
    """`packet` holds `cards`, in their order (a stack's from its top down, a pile's or a
    pool's from its bottom up)."""
    g["size"][packet] = len(cards)
    if cards:
        g["first"][packet] = cards[0]
        g["last"][packet] = cards[-1]
        g["next"][cards[:-1]] = cards[1:]
        g["next"][cards[-1]] = NONE


def bit_set(seats: Iterable[int]) -> int:
    return sum(1 << seat for seat in seats)


# --------------------------------------------------------------------------- the engine


class SnapBatch(BatchedGame):
    """N games of Snap (see `snail_envs.batched.core` for the arrays).

        batch = snail_envs.batched.make("snap_v2", num_envs=4096, num_players=3)
        out = batch.reset(seed=0)                  # out.seats: (N, 3), −1 where a seat is out
        out = batch.step(batch.random_actions())   # actions (N, 3); empty slots are ignored

    One acting slot per seat: every seat still in the game acts in every tick of a window, as
    in the reference parallel environment (with `flipper_may_call=False`, the last flipper's
    only action is `wait`); in a session every seat acts in every tick, and a seat out of the
    game on the table only waits.
    """

    spec = SPEC
    game_dtype = GAME
    kernels = compile_drivers(sys.modules[__name__])
    seating_dtype = seating_record(MAX_PLAYERS)
    load_game = staticmethod(load_game)
    search_horizon = "round"

    compact_dtype = np.dtype(np.int16)

    def check_compact(self) -> None:
        """A view's flips and ticks (up to `max_flips` and `max_ticks`) and game number; the
        chances that `recall` and `call_odds` show are not integers."""
        options = self.options
        if options.recall != "none" or options.call_odds:
            raise ValueError(
                f"{self.env_name} (batched): compact views hold integers, not the chances that "
                "recall and call_odds show: compact_views=True needs recall='none' and "
                "call_odds=False"
            )
        for name in ("max_flips", "max_ticks"):
            if getattr(options, name) is not None:
                self.check_compact_bound(name, getattr(options, name))
        games = options.session_games + options.max_sudden_deaths
        self.check_compact_bound("session_games + max_sudden_deaths", games)

    def compile_rules(self, options: SnapOptions) -> np.ndarray:
        if options.deck_size > MAX_CARDS:
            raise ValueError(
                f"{self.env_name} (batched): decks of at most {MAX_CARDS} cards are supported "
                f"(every option of the reference otherwise); got pictures × copies "
                f"= {options.deck_size}"
            )
        card_keys = np.zeros(MAX_CARDS, np.int64)
        card_keys[: options.deck_size] = options.card_keys
        delays = np.zeros(MAX_PLAYERS, np.int64)
        delays[: options.num_players] = options.delays
        glimpse_error = np.zeros(MAX_REACTION_TICKS)
        glimpse_error[: len(options.glimpse_error)] = options.glimpse_error
        noisy, variant = bool(options.glimpse_error), is_variant(options)
        return self.rules_record(
            rules_dtype(noisy, variant),
            num_piles=options.num_players + options.single_pile,
            num_keys=options.num_keys,
            deck_size=options.deck_size,
            card_keys=card_keys,
            key_share=1 / options.copies_per_key,
            classic=options.ruleset == "classic",
            reaction_ticks=options.reaction_ticks,
            delays=delays,
            flipper_may_call=options.flipper_may_call,
            speed=options.speed,
            double=options.double,
            single_pile=options.single_pile,
            slapjack=options.slapjack,
            max_flips=NONE if options.max_flips is None else options.max_flips,
            max_ticks=NONE if options.max_ticks is None else options.max_ticks,
            most_cards_at_limit=options.at_limit == "most_cards",
            wrong_call_from_stack=options.wrong_call_cost == "pile_or_stack",
            same_tick_random=options.same_tick == "random",
            refresh_shuffle=options.refresh == "shuffle",
            glimpse_error=glimpse_error,
            session=options.session != "single",
            wins_needed=WINS_NEEDED[options.session],
            session_games=options.session_games,
            max_sudden_deaths=options.max_sudden_deaths,
            heuristic_setup=strategy.setup(options),
            **({NOISY: True} if noisy else {}),
            **({VARIANT: True} if variant else {}),
        )
