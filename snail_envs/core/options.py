"""Validation of constructor options: every bad input is a `ValueError` naming what is allowed.

Each game keeps its rule options in one frozen dataclass whose `__post_init__` calls the checks
below; `parse_options` builds it from keyword arguments and rejects unknown names.

An integer is an `int` or a NumPy integer (`np.int64(3)` is 3), never a bool: `True` is no seat
and no count. A choice is one of the allowed values itself, never an array that holds one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any, TypeGuard, TypeVar

import numpy as np

OptionsT = TypeVar("OptionsT")

MAX_DEALS = 1000
"""How many deals in a row may end before a seat's first decision (the learner's, in a
single-agent view) before the options are taken to leave it none: then `no_decision_error`.
Options where a decision is merely rare (one deal in 50) still pass: 1000 such deals in a row
all end without one with probability below 1e-8."""


def parse_options(
    options_class: type[OptionsT], given: Mapping[str, Any], env_name: str
) -> OptionsT:
    """Build `options_class` from `given`, rejecting option names it does not define. A NumPy
    integer given is kept as the `int` it stands for."""
    fields = dataclasses.fields(options_class)  # type: ignore[arg-type]
    allowed = [field.name for field in fields if field.init]
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(
            f"{env_name}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; allowed options: {', '.join(allowed)}"
        )
    return options_class(
        **{name: int(value) if is_int(value) else value for name, value in given.items()}
    )


def is_int(value: object) -> TypeGuard[int | np.integer]:
    """Whether `value` is an integer: an `int` or a NumPy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_choice(name: str, value: object, allowed: Collection[object]) -> None:
    """`value` must be one of `allowed` itself: not a bool standing in for 0 or 1, nor an array
    holding one of them."""
    try:
        chosen = not isinstance(value, (bool, np.bool_)) and value in frozenset(allowed)
    except TypeError:  # unhashable, such as an array: not one of the values
        chosen = False
    if not chosen:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """`value` must be an integer in [low, high] (no upper bound when `high` is None)."""
    in_range = is_int(value) and value >= low and (high is None or value <= high)
    if not in_range:
        allowed = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{name} must be an integer {allowed}; got {value!r}")


def check_optional_int(name: str, value: object, low: int) -> None:
    """`value` must be None (no limit) or an integer of at least `low`."""
    if value is not None:
        try:
            check_int(name, value, low)
        except ValueError:
            raise ValueError(
                f"{name} must be None (no limit) or an integer of at least {low}; got {value!r}"
            ) from None


def check_bool(name: str, value: object) -> None:
    """`value` must be True or False."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def check_seat(seat: object, num_players: int) -> int | None:
    """The learner's seat of a single-agent view: None (drawn each episode) or an integer from 0
    to `num_players` − 1, returned as an `int`."""
    if seat is None:
        return None
    if not (is_int(seat) and 0 <= seat < num_players):
        raise ValueError(
            f"seat must be None (drawn each episode) or an integer from 0 to {num_players - 1}; "
            f"got {seat!r}"
        )
    return int(seat)


def rule_keywords(options: object) -> dict[str, Any]:
    """The keywords that build these options again (the fields an options class derives from
    them left out)."""
    return {
        field.name: getattr(options, field.name)
        for field in dataclasses.fields(options)  # type: ignore[arg-type]
        if field.init
    }


def no_decision_error(
    env_name: str, decision: str, options: object, **settings: object
) -> ValueError:
    """The error for options under which `decision` (such as "the learner's first decision")
    never comes: `MAX_DEALS` deals in a row ended before it. It names `settings` (a view's own,
    such as the learner's `seat`) and every rule option that differs from its default."""
    default = type(options)()
    changed = {
        **settings,
        **{
            field.name: getattr(options, field.name)
            for field in dataclasses.fields(options)  # type: ignore[arg-type]
            if field.init and getattr(options, field.name) != getattr(default, field.name)
        },
    }
    named = ", ".join(f"{name}={value!r}" for name, value in changed.items())
    return ValueError(
        f"{env_name}: {MAX_DEALS} deals in a row ended before {decision}: under these options "
        f"({named or 'the defaults'}) it may never come; choose options under which the game "
        "lasts until it does"
    )
