"""Slow test cases: the full suite runs them, the inner loop (`pytest -m "not slow"`) does not."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest


def slow(*values: Any) -> Any:
    """One case of a parametrized test (the values of its parameters), marked slow."""
    return pytest.param(*values, marks=pytest.mark.slow)


def slow_cases(cases: Iterable[Sequence[Any]]) -> list[Any]:
    """Every case of `cases` (each the tuple of its parameter values), marked slow."""
    return [slow(*case) for case in cases]
