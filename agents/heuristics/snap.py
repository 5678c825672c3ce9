"""A rule-of-thumb player for Snap: call on a visible match, never falsely, as fast as it may.

The strategy is `choose`, written once in the part of Python that numba compiles: the agent
calls it, and the batched engine compiles it for its in-kernel heuristic. It reads only the
seat's observation, through the pieces named in `setup` (where each starts in an observation
of the given rule options, and the rule options it needs), and weighs calls on a small table of
what the observation shows (`read_table`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.rules import (
    CALLS,
    JACK,
    MAX_PLAYERS,
    MAX_REACTION_TICKS,
    NO_KEY,
    NUM_ACTIONS,
    SLAP,
    SNAP,
    SNAP_POOL,
    WAIT,
    SnapOptions,
)

DEFAULT_BELIEF_THRESHOLD = 0.1
"""Under `glimpse_error`, the belief that a call is right at which the heuristic makes it. Low by
measurement under `snap_v1` and its preset (docs/results.md): a wrong call's pile goes to the
pool, which the fastest caller wins back, so calling on the first glimpse that shows a claim beat
waiting to see better. Under `snap_v2`'s `noisy_sight` preset a seat that waits for a belief of
0.5 beats it (docs/snap_v2.md): the heuristic stays the simple baseline that calls at once."""
RULED_OUT = 1e-12
"""A key whose posterior weight is at most this is not weighed at all."""

PIECES = (
    "pile_tops",
    "pile_sizes",
    "stack_sizes",
    "in_game",
    "just_flipped",
    "flipped_showing",
    "reaction_delays",
    "pool_sizes",
    "centre_top",
    "centre_below",
    "centre_size",
    "window_tick",
    "window_full",
    "glimpses",
)
"""The observation's pieces the heuristic reads."""
(
    PILE_TOPS,
    PILE_SIZES,
    STACK_SIZES,
    IN_GAME,
    JUST_FLIPPED,
    FLIPPED_SHOWING,
    REACTION_DELAYS,
    POOL_SIZES,
    CENTRE_TOP,
    CENTRE_BELOW,
    CENTRE_SIZE,
    WINDOW_TICK,
    WINDOW_FULL,
    GLIMPSES,
) = range(len(PIECES))
RULES = (
    "num_players",
    "num_keys",
    "deck_size",
    "reaction_ticks",
    "single_pile",
    "classic",
    "double",
    "slapjack",
    "observation_size",
)
"""The rule options the heuristic needs, as whole numbers (`classic`: the ruleset is classic),
and the observation's size."""
(
    NUM_PLAYERS,
    NUM_KEYS,
    DECK_SIZE,
    REACTION_TICKS,
    SINGLE_PILE,
    CLASSIC,
    DOUBLE,
    SLAPJACK,
    OBSERVATION_SIZE,
) = range(len(PIECES), len(PIECES) + len(RULES))
SETUP_SIZE = len(PIECES) + len(RULES)


def setup(options: SnapOptions) -> np.ndarray:
    """What `choose` is told of the rule options: where each piece of `PIECES` starts in an
    observation (`setup[PILE_TOPS]`; −1 for a piece the observation lacks), then the numbers of
    `RULES` (`setup[NUM_KEYS]`: the deck's keys)."""
    layout = SnapObserver(options).observation_layout
    names = {piece.name for piece in layout.pieces}
    rules = (
        options.num_players,
        options.num_keys,
        options.deck_size,
        options.reaction_ticks,
        options.single_pile,
        options.ruleset == "classic",
        options.double,
        options.slapjack,
        layout.size,
    )
    pieces = [layout.offset(name) if name in names else -1 for name in PIECES]
    return np.array([*pieces, *rules], np.int64)


def glimpse_errors(options: SnapOptions) -> np.ndarray | None:
    """The chance of a false glimpse at each tick of a window (0 past `glimpse_error`'s end);
    None where seats see exactly (no `glimpse_error`)."""
    if not options.glimpse_error:
        return None
    return np.array([options.error_at(tick) for tick in range(MAX_REACTION_TICKS)])


class SnapHeuristic:
    """Call on a visible match, never call falsely, as soon as the reaction delay allows.

    In every tick of a window in which it may call (its seat's `reaction_delay` has passed), once
    `delay` ticks of the window have gone by:
    - nothing claimable (the window is one tick long): it waits, never calling falsely;
    - something claimable: it reads the public table off its observation and works out which
      of its legal calls would be right if it alone made it: `snap` for a pile-to-pile match,
      `snap_pool` (the snap pot call) when a pile top matches a pool's (pot's) top, `slap` on a
      Jack with `slapjack`. It makes the right call at once: waiting only lets another seat
      take the cards, and even a right call that wins nothing (slapping a Jack on its own pile)
      keeps them from being taken.
    - When several calls are right, it picks the one that leaves it best off: the cards the call
      wins, less its own cards that the next seat in the game could then take with one call (a
      match, pot or Jack still showing). Equal values: `snap`, then `snap_pool`, then `slap`.

    Noisy sight (`glimpse_error`): while it glimpses the card flipped last, it weighs every key
    that card may truly show by Bayes' rule, from a uniform prior and the chance of each of its
    glimpses so far under the error schedule (1 − e_t for the key seen at tick t, e_t / (K − 1)
    for each other key). The belief that a call is right is the posterior weight of the keys
    under which the table would make it right. It makes the call of highest belief once that
    belief reaches `belief_threshold`, and otherwise waits, seeing better each tick. Once sight
    is exact (after a resolution) it plays as above. The default threshold, 0.1, was chosen by
    measurement (docs/results.md): under `glimpse_error=(0.6, 0.3, 0.0)` a glimpse showing a
    match at tick 0 is right 40% of the time, and calling on it beats waiting for a belief of
    0.5 in 83.5% of 200 games; 0.1 calls on any glimpse that shows a claim up to an error of
    0.9, and never on one that does not.

    Modelling people of different speeds and accuracy:
    - `delay`: it waits that many ticks of every window before calling (0 = at once). The rules'
      own `reaction_delay` also holds: it calls from tick max(delay, reaction_delay) on. Unlike
      `reaction_delay`, this delay is the bot's habit and does not show in any observation.
    - `error_rate`: the chance that it misses what is claimable in a window (it waits the whole
      window), and the chance that it calls `snap` falsely in a window with nothing to claim it
      may call in (such a window is one tick long, so only with delay 0). Each decision draws
      one uniform number from a generator seeded by `seed` (`reset(seed)` reseeds); with
      `error_rate=0` the player draws nothing and is deterministic. Not under `glimpse_error`.

    The rule options are given as keywords (`SnapHeuristic(num_players=4, ruleset="snap_pot")`,
    or `SnapHeuristic.for_rules(options)`); without them it plays the default rules. The
    observation's layout follows from them; an observation of another size is refused.
    """

    def __init__(
        self,
        delay: int = 0,
        error_rate: float = 0.0,
        seed: int | None = None,
        belief_threshold: float = DEFAULT_BELIEF_THRESHOLD,
        **rule_options: object,
    ) -> None:
        if isinstance(delay, bool) or not isinstance(delay, int) or delay < 0:
            raise ValueError(f"delay must be a whole number of ticks, 0 or more; got {delay!r}")
        if not 0.0 <= error_rate <= 1.0:
            raise ValueError(f"error_rate must be a probability from 0 to 1; got {error_rate!r}")
        if not 0.0 < belief_threshold <= 1.0:
            raise ValueError(
                "belief_threshold must be a probability above 0, at most 1; "
                f"got {belief_threshold!r}"
            )
        self.delay = delay
        self.error_rate = float(error_rate)
        self.belief_threshold = float(belief_threshold)
        self.options = SnapOptions(**rule_options)  # type: ignore[arg-type]
        self.setup = setup(self.options)
        self.errors = glimpse_errors(self.options)
        self._rng = random.Random(seed)

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> SnapHeuristic:
        """The heuristic, with its defaults, playing by these rule options."""
        return cls(**rule_options)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        size = self.setup[OBSERVATION_SIZE]
        if observation.shape != (size,):
            raise ValueError(
                f"an observation of Snap with {self.options} has {size} floats; "
                f"got shape {observation.shape}"
            )
        draw = self._rng.random() if self.error_rate else 1.0
        return int(
            choose(
                observation,
                action_mask,
                self.setup,
                self.errors,
                self.belief_threshold,
                self.delay,
                self.error_rate,
                draw,
            )
        )

    __call__ = act


def choose(
    observation: np.ndarray,
    action_mask: np.ndarray,
    setup: np.ndarray,
    errors: np.ndarray | None,
    belief_threshold: float,
    delay: int,
    error_rate: float,
    draw: float,
) -> int:
    """The heuristic's action for a seat's observation and mask (see `SnapHeuristic`), under the
    rule options of `setup` and the glimpse `errors` a tick (None where seats see exactly: then
    a compiled `choose` compiles none of `believed_call`); `draw`, uniform in [0, 1), decides
    its error of this decision (an error when below `error_rate`)."""
    if not action_mask[SNAP]:  # its reaction delay has not passed: wait is all it may do
        for action in range(NUM_ACTIONS):
            if action_mask[action]:
                return action
        raise ValueError("no legal action: the mask is all zero")
    tick = int(
        np.argmax(observation[setup[WINDOW_TICK] : setup[WINDOW_TICK] + setup[REACTION_TICKS]])
    )
    if tick < delay:
        return WAIT
    if errors is not None:
        return believed_call(observation, action_mask, setup, errors, belief_threshold, tick)
    if observation[setup[WINDOW_FULL]] < 0.5:  # nothing claimable: a one-tick window
        return SNAP if draw < error_rate else WAIT  # a false call, or none
    if error_rate > 0:
        own_delay = count(observation[setup[REACTION_DELAYS]], setup[REACTION_TICKS])
        if tick > max(delay, own_delay):
            return WAIT  # it missed this window at its first chance to call
        if draw < error_rate:
            return WAIT
    return best_call(read_table(observation, setup), action_mask, setup)


def believed_call(
    observation: np.ndarray,
    action_mask: np.ndarray,
    setup: np.ndarray,
    errors: np.ndarray,
    belief_threshold: float,
    tick: int,
) -> int:
    """While it glimpses the card flipped last: the legal call of highest belief (`snap`,
    `snap_pool`, `slap` among equals) if it reaches the threshold, else `wait`. Once sight is
    exact, `best_call`."""
    k, at = setup[NUM_KEYS], setup[GLIMPSES]
    seen = observation[at : at + k * (tick + 1)]
    table = read_table(observation, setup)
    if not np.any(seen):  # sight is exact
        return best_call(table, action_mask, setup)
    likelihood = np.ones(k)
    for t in range(tick + 1):
        error = errors[t]
        for key in range(k):
            likelihood[key] *= 1.0 - error if seen[k * t + key] > 0.5 else error / (k - 1)
    total = 0.0
    for key in range(k):
        total += likelihood[key]
    flipped = setup[NUM_PLAYERS]  # the central pile, with single_pile
    if not setup[SINGLE_PILE]:
        flipped = np.argmax(observation[setup[JUST_FLIPPED] : setup[JUST_FLIPPED] + flipped])
    belief = np.zeros(NUM_ACTIONS)
    for key in range(k):
        posterior = likelihood[key] / total
        if posterior > RULED_OUT:
            table[TOP + flipped] = key
            right = right_calls(table, setup)
            for call in CALLS:
                if right >> call & 1:
                    belief[call] += posterior
    best = WAIT
    for call in CALLS:
        if action_mask[call] and (best == WAIT or belief[call] > belief[best]):
            best = call
    return best if best != WAIT and belief[best] >= belief_threshold else WAIT


# --------------------------------------------------------------------------- the table seen

MAX_PILES = MAX_PLAYERS + 1
MAX_KEYS = 52
TOP = 0
"""`table[TOP + p]`: the key on top of pile p (seats' piles, then the central pile), or −1."""
SIZE = TOP + MAX_PILES
"""`table[SIZE + p]`: the cards in pile p."""
STACK = SIZE + MAX_PILES
"""`table[STACK + s]`: the cards in seat s's stack."""
POOL = STACK + MAX_PLAYERS
"""`table[POOL + k]`: the cards in the pool (pot) whose top shows key k (0: none)."""
SHOWING = POOL + MAX_KEYS
"""`table[SHOWING + p]`: 1 while the card flipped last onto pile p still tops it."""
PLAYING = SHOWING + MAX_PILES
"""`table[PLAYING + s]`: 1 while seat s is in the game."""
BELOW = PLAYING + MAX_PLAYERS
"""`table[BELOW]`: the key of the card under the central pile's top, or −1."""
TABLE_SIZE = BELOW + 1


def count(share: float, whole: int) -> int:
    """A count the observation shows as a share of `whole`."""
    return int(np.rint(float(share) * whole))


def shown_key(observation: np.ndarray, start: int, keys: int) -> int:
    """The key marked in the one-hot piece of `keys` floats starting at `start`."""
    for key in range(keys):
        if observation[start + key] == 1.0:
            return key
    return NO_KEY


def read_table(observation: np.ndarray, setup: np.ndarray) -> np.ndarray:
    """The public table an observation shows (seats relative to the observer), as whole numbers
    laid out by `TOP`, `SIZE`, `STACK`, `POOL`, `SHOWING`, `PLAYING` and `BELOW`."""
    n, k, deck = setup[NUM_PLAYERS], setup[NUM_KEYS], setup[DECK_SIZE]
    table = np.zeros(TABLE_SIZE, np.int64)
    table[TOP : TOP + MAX_PILES] = NO_KEY
    table[BELOW] = NO_KEY
    for seat in range(n):
        cards = count(observation[setup[PILE_SIZES] + seat], deck)
        table[SIZE + seat] = cards
        if cards:
            table[TOP + seat] = shown_key(observation, setup[PILE_TOPS] + k * seat, k)
        table[STACK + seat] = count(observation[setup[STACK_SIZES] + seat], deck)
        table[PLAYING + seat] = observation[setup[IN_GAME] + seat] == 1.0
        flipped = observation[setup[JUST_FLIPPED] + seat] == 1.0
        if flipped and observation[setup[FLIPPED_SHOWING] + seat] == 1.0:
            table[SHOWING + (n if setup[SINGLE_PILE] else seat)] = 1
    if setup[SINGLE_PILE]:
        cards = count(observation[setup[CENTRE_SIZE]], deck)
        table[SIZE + n] = cards
        if cards:
            table[TOP + n] = shown_key(observation, setup[CENTRE_TOP], k)
        if cards > 1:
            table[BELOW] = shown_key(observation, setup[CENTRE_BELOW], k)
    for key in range(k):
        table[POOL + key] = count(observation[setup[POOL_SIZES] + key], deck)
    return table


def num_piles(setup: np.ndarray) -> int:
    return setup[NUM_PLAYERS] + setup[SINGLE_PILE]


def held(table: np.ndarray, seat: int) -> int:
    """The cards a seat holds: its stack and its pile (pools are held by nobody)."""
    return table[STACK + seat] + table[SIZE + seat]


def lowest(bits: int) -> int:
    """The lowest member of a nonempty bit set."""
    member = 0
    while not bits >> member & 1:
        member += 1
    return member


def matched_keys(table: np.ndarray, setup: np.ndarray) -> int:
    """The keys showing on two or more piles (a bit set), or with `single_pile` the key of the
    central pile's top card when the card below shares it."""
    if setup[SINGLE_PILE]:
        centre = setup[NUM_PLAYERS]
        if table[SIZE + centre] >= 2 and table[TOP + centre] == table[BELOW]:
            return 1 << table[TOP + centre]
        return 0
    seen = matched = 0
    for pile in range(num_piles(setup)):
        if table[SIZE + pile]:
            bit = 1 << table[TOP + pile]
            matched |= seen & bit
            seen |= bit
    return matched


def piles_showing(table: np.ndarray, setup: np.ndarray, keys: int) -> int:
    """The piles whose top shows one of `keys` (bit sets)."""
    piles = 0
    for pile in range(num_piles(setup)):
        if table[SIZE + pile] and keys >> table[TOP + pile] & 1:
            piles |= 1 << pile
    return piles


def flipped_showing(table: np.ndarray, setup: np.ndarray) -> int:
    """The keys of the cards of the last flip that still top their piles (a bit set)."""
    keys = 0
    for pile in range(num_piles(setup)):
        if table[SHOWING + pile] and table[SIZE + pile]:
            keys |= 1 << table[TOP + pile]
    return keys


def snap_key(table: np.ndarray, setup: np.ndarray, matched: int) -> int:
    """A snap is for the key of the card just flipped if it still shows and is matched,
    otherwise for the lowest matched key."""
    flipped = flipped_showing(table, setup) & matched
    return lowest(flipped if flipped else matched)


def claimable_pools(table: np.ndarray, setup: np.ndarray) -> int:
    """The keys of the pools a right `snap_pool` wins now (a bit set): in `classic` the pool,
    if the card just flipped shows its key; in `snap_pot` every pot a pile top matches."""
    tops = flipped_showing(table, setup)
    if not setup[CLASSIC]:
        tops = 0
        for pile in range(num_piles(setup)):
            if table[SIZE + pile]:
                tops |= 1 << table[TOP + pile]
    pools = 0
    for key in range(setup[NUM_KEYS]):
        if table[POOL + key] and tops >> key & 1:
            pools |= 1 << key
    return pools


def jack_showing(table: np.ndarray, setup: np.ndarray) -> bool:
    return setup[SLAPJACK] == 1 and piles_showing(table, setup, 1 << JACK) != 0


def right_calls(table: np.ndarray, setup: np.ndarray) -> int:
    """The calls that would be right now (a bit set of actions): `snap` while a match shows,
    `snap_pool` while a pool is claimable, `slap` while a Jack shows."""
    right = 0
    if matched_keys(table, setup):
        right |= 1 << SNAP
    if claimable_pools(table, setup):
        right |= 1 << SNAP_POOL
    if jack_showing(table, setup):
        right |= 1 << SLAP
    return right


def take(table: np.ndarray, setup: np.ndarray, seat: int, pools: int, piles: int) -> None:
    """Pools (by key) and piles (bit sets) go under `seat`'s stack."""
    for key in range(setup[NUM_KEYS]):
        if pools >> key & 1:
            table[STACK + seat] += table[POOL + key]
            table[POOL + key] = 0
    for pile in range(num_piles(setup)):
        if piles >> pile & 1:
            table[STACK + seat] += table[SIZE + pile]
            table[SIZE + pile] = table[SHOWING + pile] = 0
            table[TOP + pile] = NO_KEY
    if piles >> setup[NUM_PLAYERS] & 1:
        table[BELOW] = NO_KEY


def resolve(table: np.ndarray, setup: np.ndarray, seat: int, call: int) -> None:
    """The table after `seat` alone makes `call`, a right call: `snap_pool` takes the pool
    (`snap_pot`: every claimable pot, each with the piles matching its top); `snap` takes every
    pile showing the snap's key (with `double`, every other owner of a taken pile gives the
    caller its stack's top card); `slap` takes every pile showing a Jack."""
    if call == SNAP_POOL:
        pools = claimable_pools(table, setup)
        take(table, setup, seat, pools, 0 if setup[CLASSIC] else piles_showing(table, setup, pools))
    elif call == SNAP:
        key = snap_key(table, setup, matched_keys(table, setup))
        piles = piles_showing(table, setup, 1 << key)
        take(table, setup, seat, 0, piles)
        if setup[DOUBLE]:
            for owner in range(setup[NUM_PLAYERS]):
                if piles >> owner & 1 and owner != seat and table[STACK + owner]:
                    table[STACK + owner] -= 1
                    table[STACK + seat] += 1
    else:
        take(table, setup, seat, 0, piles_showing(table, setup, 1 << JACK))


def best_call(table: np.ndarray, action_mask: np.ndarray, setup: np.ndarray) -> int:
    """The right legal call that leaves the observer (seat 0) best off (`call_value`; `snap`,
    `snap_pool`, `slap` among equals), or `wait` if no call is right."""
    right = right_calls(table, setup)
    calls = 0
    for call in CALLS:
        if action_mask[call] and right >> call & 1:
            calls |= 1 << call
    if (calls & (calls - 1)) == 0:  # one right call, or none
        return lowest(calls) if calls else WAIT
    best = WAIT
    best_value = 0
    for call in CALLS:
        if calls >> call & 1:
            value = call_value(table, action_mask, setup, call)
            if best == WAIT or value > best_value:
                best, best_value = call, value
    return best


def call_value(table: np.ndarray, action_mask: np.ndarray, setup: np.ndarray, call: int) -> int:
    """The cards `call` wins the observer, less the most that the next seat in the game could
    then take from it with one right call (a right call never gives a seat's cards to another
    caller's rival)."""
    after = table.copy()
    resolve(after, setup, 0, call)
    gain = held(after, 0) - held(table, 0)
    rival = 1
    while rival < setup[NUM_PLAYERS] and not after[PLAYING + rival]:
        rival += 1
    if rival == setup[NUM_PLAYERS]:
        return gain
    right = right_calls(after, setup)
    worst = 0
    for answer in CALLS:
        if action_mask[answer] and right >> answer & 1:
            answered = after.copy()
            resolve(answered, setup, rival, answer)
            worst = max(worst, held(after, 0) - held(answered, 0))
    return gain - worst


HELPERS = (
    believed_call,
    count,
    shown_key,
    read_table,
    num_piles,
    held,
    lowest,
    matched_keys,
    piles_showing,
    flipped_showing,
    snap_key,
    claimable_pools,
    jack_showing,
    right_calls,
    take,
    resolve,
    best_call,
    call_value,
)
"""The functions `choose` calls, for a compiler to compile with it."""
