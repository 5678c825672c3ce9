"""Records: the numpy structured types in which the kernels keep each game's state and options,
declared as groups of fields that share a shape."""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

Shape = int | tuple[int, ...]


def fields(shape: Shape, **dtypes: DTypeLike) -> list[tuple[str, DTypeLike, Shape]]:
    """Fields each of `shape` (`()`: a single value), named and typed as `dtypes` gives them, in
    that order."""
    return [(name, dtype, shape) for name, dtype in dtypes.items()]


def record_dtype(*groups: list[tuple[str, DTypeLike, Shape]], align: bool = False) -> np.dtype:
    """The record of the fields of `groups`, group after group; with `align`, each field is
    padded to its natural alignment, as a C compiler lays out a struct."""
    return np.dtype([field for group in groups for field in group], align=align)


_INTERNED: dict[np.dtype, np.dtype] = {}


def interned(dtype: np.dtype) -> np.dtype:
    """One object for every record type equal to `dtype`: the first one asked for. numba knows
    a record type by its object, so an equal type built again (a game's options record, for each
    engine) would make it work out the array's type anew at every call of a kernel."""
    return _INTERNED.setdefault(dtype, dtype)
