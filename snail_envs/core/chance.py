"""Chance: the only way randomness enters a game.

Every random event of a game (a die roll, a shuffle, a deal, a tie-break) is asked of a `Chance`
source. In play it is a `SeededChance`, reproducible from one integer seed in any process; in tests
it is a `ScriptedChance` that returns the outcomes a scenario names ("the dice show star, flower"),
so that a rule can be checked on the exact situation the rulebook describes. A `ChanceNodes`
script answers with outcomes chosen one chance event at a time, and stops the transition at an
event it has no outcome for (`ChanceNeeded`, with the event's outcomes and their probabilities):
the OpenSpiel adapter makes chance nodes of them, and a search's belief plays every outcome of a
step (`snail_envs.agents.beliefs`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")


class Chance:
    """A source of chance outcomes."""

    def pick(self, options: Sequence[T]) -> T:
        """One outcome, uniformly among `options` (a die roll, a random card)."""
        raise NotImplementedError

    def arrange(self, items: Sequence[T]) -> list[T]:
        """The items in a uniformly random order (a shuffle)."""
        raise NotImplementedError

    def occurs(self, probability: float) -> bool:
        """Whether an event of this probability happens (a glimpse that is wrong)."""
        raise NotImplementedError

    def pick_weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability proportional to its weight (weights ≥ 0, some > 0)."""
        raise NotImplementedError

    def show(self, options: Sequence[T]) -> T:
        """One outcome, uniformly among `options`, that every seat sees drawn (a die rolled in the
        open): a `pick`, from the same stream. A belief replays the real game's (`Shown`)."""
        return self.pick(options)


class SeededChance(Chance):
    """Outcomes from a seeded generator: the same seed gives the same outcomes in every process.

    `seed=None` draws a fresh seed from the operating system.
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise ValueError(f"seed must be an int or None, got {seed!r}")
        self._generator = random.Random(seed)
        self.shown: list[Any] = []
        """The outcomes of `show` since the game's host last cleared them: those every seat saw
        drawn in the transition just played (`GameHost.shown_outcomes`)."""

    def pick(self, options: Sequence[T]) -> T:
        # _randbelow is what randrange(n) returns for n > 0, without its argument checks: the
        # same outcomes (a test holds them equal), at a fraction of the cost on the hot path
        return options[self._generator._randbelow(len(options))]  # type: ignore[attr-defined]

    def state(self) -> object:
        """The generator's state, opaque: a transition drew chance exactly when it changed."""
        return self._generator.getstate()

    def __deepcopy__(self, memo: dict) -> SeededChance:
        # the generator's own deep copy goes through 625 boxed integers; its state is one tuple
        twin = SeededChance.__new__(SeededChance)
        twin._generator = random.Random()
        twin._generator.setstate(self._generator.getstate())
        twin.shown = list(self.shown)
        return twin

    def arrange(self, items: Sequence[T]) -> list[T]:
        arranged = list(items)
        self._generator.shuffle(arranged)
        return arranged

    def occurs(self, probability: float) -> bool:
        return self._generator.random() < probability

    def pick_weighted(self, weights: Sequence[float]) -> int:
        return self._generator.choices(range(len(weights)), weights)[0]

    def show(self, options: Sequence[T]) -> T:
        outcome = self.pick(options)
        self.shown.append(outcome)
        return outcome


def shown_log(chance: Chance | None) -> list[Any] | None:
    """The outcomes of `show` that `chance` keeps a log of (a `SeededChance`'s), or None."""
    return chance.shown if isinstance(chance, SeededChance) else None


class ScriptedChance(Chance):
    """Outcomes read, in order, from a script written by a test.

    Each `pick` takes the next outcome, which must be one of the options offered; each `arrange`
    takes the next outcome, which must be a reordering of the items offered; each `occurs` takes
    the next outcome, True or False (True only for a probability above 0, False only below 1);
    each `pick_weighted` the next outcome, an index of positive weight. A script that runs out,
    or names an impossible outcome, raises `ValueError`: a scenario never silently falls back to
    randomness.
    """

    def __init__(self, outcomes: Iterable[object]) -> None:
        self._outcomes = list(outcomes)
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many scripted outcomes have not been used yet."""
        return len(self._outcomes) - self._next

    def extend(self, outcomes: Iterable[object]) -> None:
        """Append more outcomes to the script."""
        self._outcomes.extend(outcomes)

    def _take(self) -> object:
        if self._next >= len(self._outcomes):
            raise ValueError(
                f"the chance script ran out after {len(self._outcomes)} outcomes; "
                "the scenario needs more"
            )
        outcome = self._outcomes[self._next]
        self._next += 1
        return outcome

    def pick(self, options: Sequence[T]) -> T:
        outcome = self._take()
        if outcome not in options:
            raise ValueError(
                f"scripted outcome {outcome!r} is not possible here; options: {list(options)}"
            )
        return outcome  # type: ignore[return-value]

    def arrange(self, items: Sequence[T]) -> list[T]:
        outcome = list(self._take())  # type: ignore[call-overload]
        if Counter(map(repr, outcome)) != Counter(map(repr, items)):
            raise ValueError(f"scripted order {outcome!r} is not a reordering of {list(items)!r}")
        return outcome

    def occurs(self, probability: float) -> bool:
        outcome = self._take()
        if outcome not in (True, False) or not isinstance(outcome, bool):
            raise ValueError(f"scripted outcome {outcome!r} is not True or False")
        if (outcome and probability <= 0) or (not outcome and probability >= 1):
            raise ValueError(
                f"scripted outcome {outcome!r} is impossible for probability {probability}"
            )
        return outcome

    def pick_weighted(self, weights: Sequence[float]) -> int:
        outcome = self._take()
        if not isinstance(outcome, int) or not 0 <= outcome < len(weights) or weights[outcome] <= 0:
            raise ValueError(
                f"scripted outcome {outcome!r} is not an index of positive weight in "
                f"{list(weights)}"
            )
        return outcome


# ------------------------------------------------ chance nodes (the OpenSpiel adapter, beliefs)


@dataclass(frozen=True)
class ChanceRequest:
    """One chance event the rules asked for: its outcomes (values as the rules receive them, or
    card by card for a shuffle) and their probabilities."""

    kind: str
    values: tuple[Any, ...]
    probabilities: tuple[float, ...]


class ChanceNeeded(Exception):
    """Raised inside a transition when its chance script has run out."""

    def __init__(self, request: ChanceRequest) -> None:
        super().__init__(f"a chance node: {request.kind} among {len(request.values)} outcomes")
        self.request = request


class ChanceNodes(Chance):
    """A chance source that answers each request with the next outcome chosen at a chance node
    (an index into the request's distinct outcomes), and stops the transition with
    `ChanceNeeded` when none is left. Requests with one possible outcome consume nothing."""

    def __init__(self, choices: Sequence[int]) -> None:
        self._choices = list(choices)
        self._next = 0

    def _choose(self, kind: str, values: list[Any], weights: list[float]) -> Any:
        if len(values) == 1:
            return values[0]
        if self._next == len(self._choices):
            total = sum(weights)
            raise ChanceNeeded(
                ChanceRequest(kind, tuple(values), tuple(weight / total for weight in weights))
            )
        index = self._choices[self._next]
        self._next += 1
        return values[index]

    def pick(self, options: Sequence[T]) -> T:
        values, counts = distinct(options)
        return self._choose("pick", values, counts)

    def arrange(self, items: Sequence[T]) -> list[T]:
        remaining = list(items)
        arranged: list[T] = []
        while remaining:
            values, counts = distinct(remaining)
            card = self._choose("deal", values, counts)
            remaining.remove(card)
            arranged.append(card)
        return arranged

    def occurs(self, probability: float) -> bool:
        if probability <= 0 or probability >= 1:
            return probability >= 1
        return bool(self._choose("occurs", [False, True], [1 - probability, probability]))

    def pick_weighted(self, weights: Sequence[float]) -> int:
        indices = [index for index, weight in enumerate(weights) if weight > 0]
        return int(self._choose("weighted", indices, [weights[index] for index in indices]))


class ShownImpossible(Exception):
    """Raised inside a transition when an outcome `Shown` must replay is not among the options."""


class Shown(Chance):
    """The chance of a copy of a game that must show what the real game showed: its events that
    every seat sees (`show`) take, in order, the real transition's outcomes (`outcomes`, from
    `GameHost.shown_outcomes`); every other event, and any `show` past them, comes from `inner`.
    `likelihood` is the product of the replayed outcomes' probabilities; an outcome the copy's
    options do not hold raises `ShownImpossible`. A belief steps its tables this way, so that a
    roll of five dice, seen by all, is one outcome of a table, not 7,776 to try."""

    def __init__(self, inner: Chance, outcomes: Sequence[Any]) -> None:
        self.inner = inner
        self._outcomes = list(outcomes)
        self._next = 0
        self.likelihood = 1.0

    def pick(self, options: Sequence[T]) -> T:
        return self.inner.pick(options)

    def arrange(self, items: Sequence[T]) -> list[T]:
        return self.inner.arrange(items)

    def occurs(self, probability: float) -> bool:
        return self.inner.occurs(probability)

    def pick_weighted(self, weights: Sequence[float]) -> int:
        return self.inner.pick_weighted(weights)

    def show(self, options: Sequence[T]) -> T:
        if self._next == len(self._outcomes):
            return self.inner.show(options)
        outcome = self._outcomes[self._next]
        self._next += 1
        count = sum(1 for option in options if option == outcome)
        if not count:
            raise ShownImpossible(f"{outcome!r} is not among {list(options)!r}")
        self.likelihood *= count / len(options)
        return outcome


def distinct(items: Sequence[T]) -> tuple[list[T], list[float]]:
    """The distinct items in order of first appearance, and how often each appears."""
    counts: dict[Any, int] = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return list(counts), [float(count) for count in counts.values()]
