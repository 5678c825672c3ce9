"""Records: the numpy structured types in which the kernels keep each game's state and options,
declared as groups of fields that share a shape."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
from numpy.typing import DTypeLike

Shape = int | tuple[int, ...]
LINE = 64
"""Bytes in a cache line."""


def fields(shape: Shape, **dtypes: DTypeLike) -> list[tuple[str, DTypeLike, Shape]]:
    """Fields each of `shape` (`()`: a single value), named and typed as `dtypes` gives them, in
    that order."""
    return [(name, dtype, shape) for name, dtype in dtypes.items()]


def record_dtype(*groups: list[tuple[str, DTypeLike, Shape]], align: bool = False) -> np.dtype:
    """The record of the fields of `groups`, group after group; with `align`, each field is
    padded to its natural alignment, as a C compiler lays out a struct."""
    return np.dtype([field for group in groups for field in group], align=align)


def field_lines(dtype: np.dtype, names: Iterable[str]) -> tuple[int, ...]:
    """Byte offsets in a record of `dtype` that fall on every cache line the fields `names` lie
    on, wherever the record starts, and on no other: the fields' bytes joined into spans where
    less than a line lies between them, then one offset every `LINE` bytes of each span and its
    last byte."""
    layout: Mapping[str, tuple[Any, ...]] = dtype.fields or {}
    spans: list[list[int]] = []
    for start, stop in sorted(
        (offset, offset + field.itemsize) for field, offset in (layout[name][:2] for name in names)
    ):
        if spans and start - spans[-1][1] < LINE:
            spans[-1][1] = max(spans[-1][1], stop)
        else:
            spans.append([start, stop])
    return tuple(
        offset for start, stop in spans for offset in (*range(start, stop - 1, LINE), stop - 1)
    )


_INTERNED: dict[np.dtype, np.dtype] = {}


def interned(dtype: np.dtype) -> np.dtype:
    """One object for every record type equal to `dtype`: the first one asked for. numba knows
    a record type by its object, so an equal type built again (a game's options record, for each
    engine) would make it work out the array's type anew at every call of a kernel."""
    return _INTERNED.setdefault(dtype, dtype)
