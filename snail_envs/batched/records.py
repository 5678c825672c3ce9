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
