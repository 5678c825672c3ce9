"""A rule-of-thumb player for Snap: call on a visible match, never falsely, as fast as it may."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from snail_envs.snap.observer import SnapObserver, public_table
from snail_envs.snap.rules import (
    CALLS,
    MAX_PLAYERS,
    MAX_REACTION_TICKS,
    SLAP,
    SNAP,
    WAIT,
    Snap,
    SnapOptions,
)

DEFAULT_BELIEF_THRESHOLD = 0.1
"""Under `glimpse_error`, the belief that a call is right at which the heuristic makes it. Low by
measurement (docs/results.md): a wrong call's pile goes to the pool, which the fastest caller
wins back, so calling on the first glimpse that shows a claim beats waiting to see better."""


class SnapHeuristic:
    """Call on a visible match, never call falsely, as soon as the reaction delay allows.

    In every tick of a window in which it may call (its seat's `reaction_delay` has passed), once
    `delay` ticks of the window have gone by:
    - nothing claimable (the window is one tick long): it waits, never calling falsely;
    - something claimable: it rebuilds the public table from its observation and asks the rules
      engine which of its legal calls would be right if it alone made it: `snap` for a
      pile-to-pile match, `snap_pool` (the snap pot call) when a pile top matches a pool's (pot's)
      top, `slap` on a Jack with `slapjack`. It makes the right call at once: waiting only lets
      another seat take the cards, and even a right call that wins nothing (slapping a Jack on its
      own pile) keeps them from being taken.
    - When several calls are right, it picks the one that leaves it best off: the cards the call
      wins, less its own cards that another seat could then take with one call (a match, pot or
      Jack still showing). Equal values: `snap`, then `snap_pool`, then `slap`.

    Noisy sight (`glimpse_error`; the rule options must then be given): while it glimpses the card
    flipped last, it weighs every key that card may truly show by Bayes' rule, from a uniform
    prior and the chance of each of its glimpses so far under the error schedule (1 − e_t for
    the key seen at tick t, e_t / (K − 1) for each other key). The belief that a call is right
    is the posterior weight of the keys under which the table would make it right. It makes the
    call of highest belief once that belief reaches `belief_threshold`, and otherwise waits,
    seeing better each tick. Once sight is exact (after a resolution) it plays as above. The
    default threshold, 0.1, was chosen by measurement (docs/results.md): under
    `glimpse_error=(0.6, 0.3, 0.0)` a glimpse showing a match at tick 0 is right 40% of the time,
    and calling on it beats waiting for a belief of 0.5 in 83.5% of 200 games; 0.1 calls on any
    glimpse that shows a claim up to an error of 0.9, and never on one that does not.

    Modelling people of different speeds and accuracy:
    - `delay`: it waits that many ticks of every window before calling (0 = at once). The rules'
      own `reaction_delay` also holds: it calls from tick max(delay, reaction_delay) on. Unlike
      `reaction_delay`, this delay is the bot's habit and does not show in any observation.
    - `error_rate`: the chance that it misses what is claimable in a window (it waits the whole
      window), and the chance that it calls `snap` falsely in a window with nothing to claim it
      may call in (such a window is one tick long, so only with delay 0). The draws come from a
      generator seeded by `seed` (`reset(seed)` reseeds); with `error_rate=0` the player is
      deterministic.

    Reading the observation: its layout depends on the rule options. Give them
    (`SnapHeuristic(num_players=4, ruleset="snap_pot")`) to read exactly. Without them (as
    `make_agent("heuristic", "snap_v1")` builds it) it reads the number of players,
    `reaction_ticks` and `single_pile` from the observation's size for a 13-key deck (any rank
    deck, and the default picture deck); `slapjack` from the action mask; and the ruleset from the
    table: several pots, or a full window with nothing claimable under `classic` rules, mean
    `snap_pot`. `double` is then unknown, so its gift cards do not count in comparing two right
    calls (rare: both must be right at once).
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
        self.error_rate = error_rate
        self.belief_threshold = belief_threshold
        self.options = SnapOptions(**rule_options) if rule_options else None  # type: ignore[arg-type]
        """The rule options, when given; else they are read from each observation."""
        self._rng = random.Random(seed)

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> SnapHeuristic:
        """The heuristic, with its defaults, reading the observations of these rule options."""
        return cls(**rule_options)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if not action_mask[SNAP]:  # its reaction delay has not passed: wait is all it may do
            legal = np.flatnonzero(action_mask)
            if legal.size == 0:
                raise ValueError("no legal action: the mask is all zero")
            return int(legal[0])
        reading = _reading(observation, self.options)
        tick = int(np.argmax(observation[reading.window_tick]))
        if tick < self.delay:
            return WAIT
        if reading.glimpses is not None:
            return self._noisy_call(reading, observation, action_mask, tick)
        if observation[reading.window_full] < 0.5:  # nothing claimable: a one-tick window
            if self.error_rate and self._rng.random() < self.error_rate:
                return SNAP  # a false call
            return WAIT
        if self.error_rate:
            own_delay = round(float(observation[reading.own_delay]) * reading.ticks)
            if tick > max(self.delay, own_delay):
                return WAIT  # it missed this window at its first chance to call
            if self._rng.random() < self.error_rate:
                return WAIT
        return _best_call(self._table(reading, observation, action_mask), action_mask)

    __call__ = act

    def _noisy_call(
        self, reading: _Reading, observation: np.ndarray, action_mask: np.ndarray, tick: int
    ) -> int:
        """The call of highest belief if it reaches the threshold, else `wait`."""
        options = reading.options
        assert self.options is not None
        k = options.num_keys
        glimpses = observation[reading.glimpses].reshape(options.reaction_ticks, k)[: tick + 1]
        if not glimpses.any():  # sight is exact
            return _best_call(public_table(observation, self.options), action_mask)
        likelihood = np.ones(k)
        for t, row in enumerate(glimpses):
            error = options.error_at(t)
            likelihood *= np.where(row > 0.5, 1.0 - error, error / (k - 1))
        posterior = likelihood / likelihood.sum()
        top = reading.flipped_top(observation)
        belief = dict.fromkeys(CALLS, 0.0)
        seen = observation.copy()
        for key in np.flatnonzero(posterior > 1e-12):
            seen[top : top + k] = 0.0
            seen[top + key] = 1.0
            for call in public_table(seen, self.options).right_calls():
                belief[call] += float(posterior[key])
        call = max((c for c in CALLS if action_mask[c]), key=lambda c: belief[c], default=WAIT)
        return call if call != WAIT and belief[call] >= self.belief_threshold else WAIT

    def _table(self, reading: _Reading, observation: np.ndarray, action_mask: np.ndarray) -> Snap:
        """The public table under the given rule options, or else under the rules it shows."""
        if self.options is not None:
            return public_table(observation, self.options)
        slapjack = bool(action_mask[SLAP])
        if reading.options.single_pile:  # played by classic rules only
            return public_table(observation, reading.variant(slapjack, snap_pot=False))
        if np.count_nonzero(observation[reading.pool_sizes]) > 1:  # classic keeps one pool
            return public_table(observation, reading.variant(slapjack, snap_pot=True))
        table = public_table(observation, reading.variant(slapjack, snap_pot=False))
        if table.claimable():
            return table
        # The window is full, so something is claimable: by snap_pot's rules only.
        return public_table(observation, reading.variant(slapjack, snap_pot=True))


def _best_call(table: Snap, action_mask: np.ndarray) -> int:
    """The right call (seat 0's) that leaves it best off, or `wait` if no call is right."""
    right = table.right_calls()
    calls = [call for call in CALLS if action_mask[call] and call in right]
    if len(calls) < 2:
        return calls[0] if calls else WAIT
    return max(calls, key=lambda call: _value(table.after_calls({0: call}), action_mask))


def _value(after: Snap, action_mask: np.ndarray) -> int:
    """Cards won by a call, less the most that another seat could take from it next with one
    call (`after` is the table once the call resolved)."""
    rivals = [seat for seat in range(1, after.num_players) if after.in_game[seat]]
    if not rivals:
        return after.last_gain[0]
    right = after.right_calls()
    losses = [
        -after.after_calls({rivals[0]: call}).last_gain[0]
        for call in CALLS
        if action_mask[call] and call in right
    ]
    return after.last_gain[0] - max(losses, default=0)


@dataclasses.dataclass(frozen=True)
class _Reading:
    """How to read the observations of one rule setup."""

    options: SnapOptions
    size: int
    window_tick: slice
    window_full: int
    own_delay: int
    in_game: int
    pool_sizes: slice
    ticks: int
    glimpses: slice | None
    """The `glimpses` piece, with `glimpse_error`."""
    pile_tops: int
    just_flipped: int
    centre_top: int | None

    def flipped_top(self, observation: np.ndarray) -> int:
        """Where the one-hot top key of the card flipped last starts in an observation."""
        if self.centre_top is not None:
            return self.centre_top
        n = self.options.num_players
        flipper = int(np.argmax(observation[self.just_flipped : self.just_flipped + n]))
        return self.pile_tops + self.options.num_keys * flipper

    @classmethod
    def of(cls, options: SnapOptions) -> _Reading:
        layout = SnapObserver(options).observation_layout
        return cls(
            options=options,
            size=layout.size,
            window_tick=layout["window_tick"],
            window_full=layout.offset("window_full"),
            own_delay=layout.offset("reaction_delays"),
            in_game=layout.offset("in_game"),
            pool_sizes=layout["pool_sizes"],
            ticks=options.reaction_ticks,
            glimpses=layout["glimpses"] if options.glimpse_error else None,
            pile_tops=layout.offset("pile_tops"),
            just_flipped=layout.offset("just_flipped"),
            centre_top=layout.offset("centre_top") if options.single_pile else None,
        )

    def variant(self, slapjack: bool, snap_pot: bool) -> SnapOptions:
        """These options with `slapjack` and the ruleset set (for read-off setups)."""
        return _variant(self.options, slapjack, snap_pot)

    def fits(self, observation: np.ndarray) -> bool:
        """Whether an observation reads sensibly under this setup: exactly one tick of the window
        marked, and the observer in the game. (Only a setup with `single_pile` and one without,
        with a seat and two ticks more, share a size; read the second way, an observation of the
        first has the central pile's size, never 0 or 1, among the window's ticks.)"""
        ticks = observation[self.window_tick].tolist()
        return (
            ticks.count(1.0) == 1
            and ticks.count(0.0) == len(ticks) - 1
            and observation[self.in_game] == 1.0
        )


@cache
def _variant(options: SnapOptions, slapjack: bool, snap_pot: bool) -> SnapOptions:
    return dataclasses.replace(
        options, slapjack=slapjack, ruleset="snap_pot" if snap_pot else "classic"
    )


@cache
def _given_reading(options: SnapOptions) -> _Reading:
    return _Reading.of(options)


@cache
def _readings_of_size(size: int) -> tuple[_Reading, ...]:
    """Every setup with a 13-key deck whose observations have `size` floats (`num_players`,
    `reaction_ticks` and `single_pile` vary), setups without `single_pile` first."""
    found = []
    for single_pile in (False, True):
        for players in range(2, MAX_PLAYERS + 1):
            one_tick = SnapOptions(num_players=players, reaction_ticks=1, single_pile=single_pile)
            ticks = size - SnapObserver(one_tick).observation_layout.size + 1
            if 1 <= ticks <= MAX_REACTION_TICKS:
                reading = _Reading.of(dataclasses.replace(one_tick, reaction_ticks=ticks))
                if reading.size == size:
                    found.append(reading)
    return tuple(found)


def _reading(observation: np.ndarray, options: SnapOptions | None) -> _Reading:
    """How to read `observation`: by the given options, else by the setup its size and contents
    fit (a misread observation most likely fits none, and is refused rather than misplayed)."""
    if options is not None:
        reading = _given_reading(options)
        if observation.shape != (reading.size,):
            raise ValueError(
                f"an observation of Snap with {options} has {reading.size} floats; "
                f"got shape {observation.shape}"
            )
        return reading
    for reading in _readings_of_size(observation.shape[0]):
        if reading.fits(observation):
            return reading
    raise ValueError(
        f"cannot read a Snap observation of {observation.shape[0]} floats without the rule "
        "options (a picture deck of other than 13 pictures?): give them, e.g. "
        "SnapHeuristic(num_players=3, match_key='picture', pictures=8)"
    )
