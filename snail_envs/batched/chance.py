"""Chance inside the kernels: a generator per game, outcomes recorded, and replayed by the rules.

Every game of a batch owns two generators (SplitMix64, one 64-bit state each), kept in its record
beside the table: `chance_state` rolls the dice and shuffles the cards, `agent_state` draws the
random choices of in-kernel players, so that who plays a seat never changes the game's chance. A
game's outcomes depend only on the seed and its index in the batch, never on the other games.

Integers are drawn exactly uniformly (Lemire's multiply-and-reject), shuffles are Fisher–Yates,
and an event of probability p happens when a uniform 53-bit fraction is below p (as
`random() < p` does in Python). Every outcome of a game is written to its record's `tape`, in the
order the reference engine asks for it: a `pick` among n options as the index of the chosen
option, an `arrange` of n items as the n indices of the items in their new order, an `occurs` as
1 if the event happened, else 0. The tape is a ring: it keeps the latest outcomes of the slot,
across the games the slot plays one after another. `TapeChance` hands one game's outcomes to a
reference engine (`snail_envs.<game>.rules`), which then plays exactly the game the kernel
played, step by step as the kernel records it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np

from snail_envs.batched.compiling import compiled, compiled_as, entry_point
from snail_envs.batched.records import fields, record_dtype
from snail_envs.core.chance import Chance

T = TypeVar("T")

TAPE_LENGTH = 256
"""How many of its latest chance outcomes a game keeps, unless its record says otherwise
(`game_record`): more than any one step draws."""

CHANCE_FIELDS = [
    *fields((), chance_state=np.uint64, agent_state=np.uint64),
    *fields((), recorded=np.int64, game_start=np.int64, serial=np.int64),
]


def game_record(*groups: list[tuple], tape_length: int = TAPE_LENGTH) -> np.dtype:
    """The record of one game: its generators, how many outcomes the slot has drawn since the
    batch was reset, that count when the game now in the slot began, how many games the slot
    has begun; then the game's own fields, group after group (`records.fields`); last, the ring
    of its latest `tape_length` outcomes."""
    return record_dtype(CHANCE_FIELDS, *groups, fields(tape_length, tape=np.int16), align=True)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_LOW_32 = np.uint64(0xFFFFFFFF)
_TWO_32 = np.uint64(1 << 32)
_S11, _S27, _S30 = np.uint64(11), np.uint64(27), np.uint64(30)
_S31, _S32 = np.uint64(31), np.uint64(32)
_AGENT_STREAM = np.uint64(0xA5A5A5A5A5A5A5A5)
_ULP_53 = 2.0**-53


@compiled
def _mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> _S30)) * _MIX_1
    z = (z ^ (z >> _S27)) * _MIX_2
    return z ^ (z >> _S31)


@entry_point
def seed_games(games: np.ndarray, seed: np.uint64) -> None:
    """Give game i of `games` its own generators, derived from `seed` and i."""
    base = _mix(seed)
    for i in range(games.shape[0]):
        state = _mix(base + _GOLDEN * np.uint64(i + 1))
        games[i].chance_state = state
        games[i].agent_state = _mix(state ^ _AGENT_STREAM)


@compiled_as("Tuple((uint64, int64))(uint64, int64)")
def _below(state: np.uint64, n: int) -> tuple[np.uint64, int]:
    """A uniform integer in [0, n) and the generator's next state. Its one signature keeps
    numba from compiling it again for each constant `n` (a die's faces) or counter type."""
    bound = np.uint64(n)
    state += _GOLDEN
    product = (_mix(state) >> _S32) * bound
    low = product & _LOW_32
    if low < bound:
        threshold = (_TWO_32 - bound) % bound
        while low < threshold:
            state += _GOLDEN
            product = (_mix(state) >> _S32) * bound
            low = product & _LOW_32
    return state, np.int64(product >> _S32)  # a signed index: uint64 would turn mixed sums to float


@compiled
def _record(game, outcome: int) -> None:
    game.tape[game.recorded % game.tape.shape[0]] = outcome
    game.recorded += 1


@compiled
def pick(game, n: int) -> int:
    """A chance outcome among n options (a die roll): the index of the option."""
    game.chance_state, outcome = _below(game.chance_state, n)
    _record(game, outcome)
    return outcome


@compiled
def arrange(game, order: np.ndarray) -> None:
    """Shuffle: `order` becomes a uniformly random order of 0 … len(order) − 1."""
    n = order.shape[0]
    for k in range(n):
        order[k] = k
    for k in range(n - 1, 0, -1):
        game.chance_state, j = _below(game.chance_state, k + 1)
        order[k], order[j] = order[j], order[k]
    for k in range(n):
        _record(game, order[k])


@compiled
def redeal_others(game, cards: np.ndarray, held: np.ndarray, seat: int, players: int) -> None:
    """Deal every seat but `seat` a new card (`held[other]`) from `cards` less one copy of the
    card `seat` holds, shuffled (`arrange`): each other seat in turn takes the last one left."""
    own = 0
    while cards[own] != held[seat]:
        own += 1
    unseen = np.concatenate((cards[:own], cards[own + 1 :]))
    order = np.empty(unseen.shape[0], np.int64)
    arrange(game, order)
    remaining = unseen.shape[0]
    for other in range(players):
        if other != seat:
            remaining -= 1
            held[other] = unseen[order[remaining]]


@compiled
def occurs(game, probability: float) -> bool:
    """Whether a chance event of this probability happens: a uniform fraction of 53 bits (a
    multiple of 2⁻⁵³, exact in a float64) falls below it."""
    game.chance_state += _GOLDEN
    happens = np.float64(_mix(game.chance_state) >> _S11) * _ULP_53 < probability
    _record(game, 1 if happens else 0)
    return happens


@compiled
def agent_pick(game, n: int) -> int:
    """A choice of an in-kernel player among n options, from the game's agent generator."""
    game.agent_state, outcome = _below(game.agent_state, n)
    return outcome


@compiled
def agent_pick_among(game, allowed: np.ndarray) -> int:
    """A uniformly random index k with `allowed[k]` nonzero (at least one must be)."""
    count = np.int64(0)  # a constant 0 would first compile agent_pick for that constant
    for k in range(allowed.shape[0]):
        if allowed[k]:
            count += 1
    chosen = agent_pick(game, count)
    for k in range(allowed.shape[0]):
        if allowed[k]:
            if chosen == 0:
                return k
            chosen -= 1
    return -1


@compiled
def begin_game(game) -> None:
    """A new game in this slot: its outcomes start here."""
    game.game_start = game.recorded
    game.serial += 1


class TapeChance(Chance):
    """The chance outcomes a kernel recorded for one game, handed out to a reference engine.

    `tape` is the slot's ring of outcomes, read as it grows: the kernel may append while the
    reference plays along. `start` is the position (counted since the batch's reset) of the
    game's first outcome; `window()` gives the positions available now: the oldest outcome the
    ring still keeps, and the end of this game's outcomes so far. Asking for an outcome not yet
    recorded, already overwritten, or one that does not fit the choice asked raises `ValueError`.
    """

    def __init__(self, tape: np.ndarray, start: int, window: Callable[[], tuple[int, int]]) -> None:
        self._tape = tape
        self._next = start
        self._window = window

    @property
    def remaining(self) -> int:
        """Outcomes of this game recorded but not yet used."""
        return self._window()[1] - self._next

    def _take(self, count: int) -> list[int]:
        oldest, end = self._window()
        if self._next + count > end:
            raise ValueError(
                "the recorded chance ran out: the reference engine asks for more outcomes than "
                "the kernel drew"
            )
        if self._next < oldest:
            raise ValueError(
                "the outcomes to replay were overwritten: the game record's tape (game_record's "
                "tape_length) is shorter than the outcomes drawn since the step replayed"
            )
        size = self._tape.shape[0]
        taken = [int(self._tape[(self._next + k) % size]) for k in range(count)]
        self._next += count
        return taken

    def pick(self, options: Sequence[T]) -> T:
        (index,) = self._take(1)
        if not 0 <= index < len(options):
            raise ValueError(f"recorded pick {index} is not among {len(options)} options")
        return options[index]

    def arrange(self, items: Sequence[T]) -> list[T]:
        order = self._take(len(items))
        if sorted(order) != list(range(len(items))):
            raise ValueError(f"recorded order {order} is not an order of {len(items)} items")
        return [items[index] for index in order]

    def occurs(self, probability: float) -> bool:
        (outcome,) = self._take(1)
        possible = (0,) if probability <= 0 else (1,) if probability >= 1 else (0, 1)
        if outcome not in possible:
            raise ValueError(
                f"recorded occurrence {outcome} is not among {possible}, the outcomes of "
                f"probability {probability}"
            )
        return outcome == 1
