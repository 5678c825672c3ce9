"""Observation layouts: a flat float32 vector described as a list of named pieces.

An observer declares its pieces (`own_race_card`, `snail_spaces`, ...) once; the layout gives each
piece its index range, the Gymnasium `Box` of the whole vector, a dict view by piece name for
debugging, and the rows of the spec table printed in each env's docstring.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

import numpy as np
from gymnasium import spaces

_Item = TypeVar("_Item")

Vector: TypeAlias = Sequence[_Item] | np.ndarray
"""A flat vector read by index (an observation, a mask, a strategy's parameters) as a strategy
written once for the interpreter and for numba meets it: a list in the interpreter, which indexes
lists faster than arrays, or an array in a kernel. `Vector[float]`, `Vector[int]`."""


@dataclass(frozen=True)
class Piece:
    """One named part of an observation: `size` floats, each within [low, high]."""

    name: str
    size: int
    description: str
    low: float = 0.0
    high: float = 1.0


class Layout:
    """Pieces laid end to end in one float32 vector."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        names = [piece.name for piece in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"piece names repeat: {names}")
        self.pieces = tuple(pieces)
        self._slices: dict[str, slice] = {}
        start = 0
        for piece in pieces:
            self._slices[piece.name] = slice(start, start + piece.size)
            start += piece.size
        self.size = start
        self.low = np.concatenate([np.full(piece.size, piece.low, np.float32) for piece in pieces])
        self.high = np.concatenate(
            [np.full(piece.size, piece.high, np.float32) for piece in pieces]
        )

    def __deepcopy__(self, memo: dict) -> Layout:
        """A layout never changes once made: copies of observers (search agents copy whole
        environments) share it."""
        return self

    def __getitem__(self, name: str) -> slice:
        """The index range of piece `name`."""
        return self._slices[name]

    def offset(self, name: str) -> int:
        """The first index of piece `name`."""
        return self._slices[name].start

    def box(self) -> spaces.Box:
        return spaces.Box(self.low, self.high, dtype=np.float32)

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def as_dict(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """The vector split into its named pieces (for reading and debugging)."""
        return {name: vector[piece] for name, piece in self._slices.items()}

    def text(self, vector: np.ndarray) -> str:
        """The vector as one line: each piece with a nonzero entry, then its nonzero entries
        (`index` for a 1, `index=value` otherwise). Equal vectors give equal lines; it keys
        tabular policies (`snail_envs.agents.cfr`) and OpenSpiel's observation strings."""
        parts = []
        for name, values in self.as_dict(vector).items():
            entries = [
                str(index) if value == 1 else f"{index}={value:g}"
                for index, value in enumerate(values.tolist())
                if value
            ]
            if entries:
                parts.append(f"{name}: {' '.join(entries)}")
        return " | ".join(parts)

    def table(self) -> str:
        """The pieces as a Markdown table: name, index range, bounds, meaning."""
        rows = ["| piece | indices | range | meaning |", "|---|---|---|---|"]
        for piece in self.pieces:
            where = self._slices[piece.name]
            rows.append(
                f"| `{piece.name}` | {where.start}–{where.stop - 1} | "
                f"[{piece.low:g}, {piece.high:g}] | {piece.description} |"
            )
        return "\n".join(rows)
