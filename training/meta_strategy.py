"""The league's meta-strategies: how much each member of the population is played as the
opponent of the next member trained, from the population's payoff matrix.

The payoff matrix is zero-sum: `payoff[i, j]` is what member i gains from member j (its score
rate alone against j less j's alone against it, halved), `payoff[j, i] = -payoff[i, j]`.

    nash_mixture(payoff)           the row player's maximin mixture (the Nash mixture of the
                                   symmetric zero-sum game), by linear programming (SciPy's HiGHS)
    pfsp_weights(scores, best, 2)  prioritised fictitious self-play (AlphaStar): each member
                                   weighed by (1 - the best member's score rate against it)^2
"""

from __future__ import annotations

import numpy as np

SOLVED = 1e-9
"""Weights below this are a solver's rounding: they count as 0."""


def nash_mixture(payoff: np.ndarray) -> np.ndarray:
    """The mixture x over the rows that maximises its worst payoff min_j (x @ payoff)[j]: the
    linear program max v subject to payoffᵀx ≥ v, Σx = 1, x ≥ 0. A `ValueError` for a matrix
    that is not square and finite."""
    from scipy.optimize import linprog  # type: ignore[import-untyped]

    matrix = np.asarray(payoff, np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or not np.isfinite(matrix).all():
        raise ValueError(f"a payoff matrix is square and finite; got shape {matrix.shape}")
    members = matrix.shape[0]
    # variables: x_1..x_n, v; minimise -v
    cost = np.zeros(members + 1)
    cost[-1] = -1.0
    at_most = np.hstack([-matrix.T, np.ones((members, 1))])  # v - (payoffᵀx)_j <= 0
    total = np.append(np.ones(members), 0.0)[None, :]
    bounds = [(0.0, None)] * members + [(None, None)]
    solved = linprog(
        cost,
        A_ub=at_most,
        b_ub=np.zeros(members),
        A_eq=total,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
    )
    if not solved.success:
        raise ValueError(f"the payoff matrix's linear program failed: {solved.message}")
    return normalised(solved.x[:members])


def pfsp_weights(scores: np.ndarray, best: int, exponent: float) -> np.ndarray:
    """PFSP's weights of the members as opponents of a learner that starts as member `best`:
    (1 - scores[best, j])^exponent, where `scores[i, j]` is member i's score rate alone against
    member j (in [0, 1]); uniform where the best member wins every game against every member."""
    rates = np.clip(np.asarray(scores, np.float64)[best], 0.0, 1.0)
    weights = (1.0 - rates) ** exponent
    if weights.sum() <= SOLVED:
        return np.full(rates.size, 1.0 / rates.size)
    return normalised(weights)


def normalised(weights: np.ndarray) -> np.ndarray:
    """`weights` with rounding below `SOLVED` set to 0, summing to 1."""
    kept = np.where(weights > SOLVED, weights, 0.0)
    return kept / kept.sum()


def zero_sum(scores: np.ndarray) -> np.ndarray:
    """The zero-sum payoff matrix of a matrix of score rates (`scores[i, j]`: member i alone
    against member j): (scores - scoresᵀ) / 2."""
    rates = np.asarray(scores, np.float64)
    return (rates - rates.T) / 2.0


def meta_payoffs(payoff: np.ndarray, mixture: np.ndarray) -> np.ndarray:
    """Each member's expected payoff against the population played by `mixture`."""
    return np.asarray(payoff, np.float64) @ np.asarray(mixture, np.float64)
