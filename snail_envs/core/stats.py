"""Confidence intervals for win rates and mean scores, and how a game counts towards a rate."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z95 = 1.959964


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (a win rate); (0, 1) with no trials."""
    if trials == 0:
        return 0.0, 1.0
    rate = successes / trials
    denominator = 1 + z * z / trials
    centre = (rate + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(rate * (1 - rate) / trials + z * z / (4 * trials * trials))
    return max(0.0, centre - spread / denominator), min(1.0, centre + spread / denominator)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of `values` and its 95% normal-approximation interval (mean, low, high)."""
    count = len(values)
    if count == 0:
        return math.nan, math.nan, math.nan
    mean = sum(values) / count
    if count == 1:
        return mean, -math.inf, math.inf
    variance = sum((v - mean) ** 2 for v in values) / (count - 1)
    half = z * math.sqrt(variance / count)
    return mean, mean - half, mean + half


def side_scores(returns: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """For each row of seat returns (float (n, P)): 1 if only the side's seats (`mine`) hold the
    best return, ½ if other seats do too, else 0: how a game counts towards a score rate."""
    best = returns.max(axis=1, keepdims=True)
    ours = (returns[:, mine] == best).any(axis=1)
    others = (returns[:, ~mine] == best).any(axis=1)
    return np.where(ours & ~others, 1.0, np.where(ours, 0.5, 0.0))
