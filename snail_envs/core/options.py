"""Validation of constructor options: every bad input is a `ValueError` naming what is allowed.

Each game keeps its rule options in one frozen dataclass whose `__post_init__` calls the checks
below; `parse_options` builds it from keyword arguments and rejects unknown names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from typing import Any, TypeVar

OptionsT = TypeVar("OptionsT")


def parse_options(
    options_class: type[OptionsT], given: Mapping[str, Any], env_name: str
) -> OptionsT:
    """Build `options_class` from `given`, rejecting option names it does not define."""
    fields = dataclasses.fields(options_class)  # type: ignore[arg-type]
    allowed = [field.name for field in fields if field.init]
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(
            f"{env_name}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; allowed options: {', '.join(allowed)}"
        )
    return options_class(**given)


def check_choice(name: str, value: object, allowed: Collection[object]) -> None:
    """`value` must be one of `allowed`."""
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """`value` must be an integer in [low, high] (no upper bound when `high` is None)."""
    in_range = (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value >= low
        and (high is None or value <= high)
    )
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
