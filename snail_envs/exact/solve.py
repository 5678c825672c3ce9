"""Exact values, best responses, exploitability and CFR+ on a game tree (`snail_envs.exact.tree`).

A policy is one array of probabilities, one per policy slot (an information state's legal action),
summing to 1 over each information state's slots. Every function sweeps the tree level by level:
reach probabilities from the root down, expected returns from the leaves up.

- `expected_returns(tree, policy)`: each seat's expected return when every seat plays `policy`.
- `best_response(tree, policy, seat)`: the exact best response of `seat` to the other seats
  playing `policy`, and its expected return. The seat's information states are settled from its
  last decisions to its first (its own depth, the same at every node of one information state
  by perfect recall), each on the values its later choices give.
- `nash_conv` and `exploitability` (OpenSpiel's definitions: the sum, over seats, of what a best
  response gains over the policy; exploitability is that divided by the number of seats).
- `cfr_plus(tree, ...)`: CFR+ with alternating updates and linearly weighted averaging (Tammelin
  2014), whose average policy approaches a Nash equilibrium of a two-player zero-sum game.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from snail_envs.exact.tree import DECISION, TERMINAL, GameTree


class Sweeper:
    """The index arrays that the sweeps of one tree share."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        self.levels = [
            np.flatnonzero(tree.depth == depth) for depth in range(1, int(tree.depth.max()) + 1)
        ]
        self.slot_infoset = tree.slot_infoset()
        self.slot_seat = tree.slot_seat()
        self.decision_child = np.flatnonzero(tree.edge_slot >= 0)
        """The nodes reached by an action (children of decision nodes)."""
        self.chance_child = np.flatnonzero((tree.edge_slot < 0) & (np.arange(tree.num_nodes) > 0))
        self.infoset_seat = np.array([info.seat for info in tree.infosets], dtype=np.int64)
        self.infoset_depth = np.array([info.own_depth for info in tree.infosets], dtype=np.int64)
        self.infoset_size = np.array([len(info.actions) for info in tree.infosets])
        self.representative = np.zeros(len(tree.infosets), dtype=np.int64)
        decisions = np.flatnonzero(tree.kind == DECISION)
        self.representative[tree.infoset[decisions][::-1]] = decisions[::-1]
        self.terminal = np.flatnonzero(tree.kind == TERMINAL)

    def edge_weights(self, policy: np.ndarray) -> np.ndarray:
        """Each node's probability given its parent: an outcome's, or an action's under policy."""
        weights = self.tree.edge_probability.copy()
        weights[self.decision_child] = policy[self.tree.edge_slot[self.decision_child]]
        return weights

    def reaches(self, policy: np.ndarray) -> np.ndarray:
        """Each node's reach probability, split into its factors: one column per seat (that
        seat's own actions) and a last column for chance."""
        tree = self.tree
        factors = np.ones((tree.num_nodes, tree.num_players + 1))
        children = self.decision_child
        factors[children, self.slot_seat[tree.edge_slot[children]]] = policy[
            tree.edge_slot[children]
        ]
        factors[self.chance_child, -1] = tree.edge_probability[self.chance_child]
        reach = np.ones_like(factors)
        for level in self.levels:
            reach[level] = reach[tree.parent[level]] * factors[level]
        return reach

    def values(self, policy: np.ndarray) -> np.ndarray:
        """Each node's expected returns, one column a seat, when every seat plays `policy`."""
        tree = self.tree
        weights = self.edge_weights(policy)
        values = np.zeros_like(tree.returns)
        values[self.terminal] = tree.returns[self.terminal]
        for level in reversed(self.levels):
            np.add.at(values, tree.parent[level], values[level] * weights[level, None])
        return values

    def normalise(self, totals: np.ndarray) -> np.ndarray:
        """Per information state, `totals` scaled to sum to 1 (uniform where they sum to 0)."""
        sums = np.bincount(self.slot_infoset, weights=totals, minlength=len(self.infoset_size))
        spread = sums[self.slot_infoset]
        uniform = 1.0 / self.infoset_size[self.slot_infoset]
        return np.where(spread > 0, totals / np.where(spread > 0, spread, 1.0), uniform)

    def uniform(self) -> np.ndarray:
        return 1.0 / self.infoset_size[self.slot_infoset]

    def opponents_reach(self, reach: np.ndarray, seat: int) -> np.ndarray:
        """Each node's reach without `seat`'s own factor (the counterfactual reach)."""
        others = np.delete(reach, seat, axis=1)
        return np.prod(others, axis=1)


def expected_returns(tree: GameTree, policy: np.ndarray) -> np.ndarray:
    """Each seat's expected return when every seat plays `policy`."""
    return Sweeper(tree).values(policy)[0]


def best_response(
    tree: GameTree, policy: np.ndarray, seat: int, sweeper: Sweeper | None = None
) -> tuple[np.ndarray, float]:
    """The best response of `seat` to the others playing `policy` (a policy equal to `policy`
    except at `seat`'s information states, where it is pure), and its expected return."""
    sweeper = sweeper or Sweeper(tree)
    own = sweeper.infoset_seat == seat
    counterfactual = sweeper.opponents_reach(sweeper.reaches(policy), seat)
    response = policy.copy()
    choice = np.array([info.first for info in tree.infosets], dtype=np.int64)
    children = sweeper.decision_child
    slots = tree.edge_slot[children]
    mine = sweeper.slot_seat[slots] == seat
    children, slots = children[mine], slots[mine]
    for depth in range(int(sweeper.infoset_depth[own].max(initial=-1)), -1, -1):
        _set_pure(response, tree, own, choice)
        values = sweeper.values(response)[:, seat]
        scores = np.bincount(
            slots,
            weights=counterfactual[tree.parent[children]] * values[children],
            minlength=len(policy),
        )
        for index in np.flatnonzero(own & (sweeper.infoset_depth == depth)):
            info = tree.infosets[index]
            span = scores[info.first : info.first + len(info.actions)]
            choice[index] = info.first + int(np.argmax(span))
    _set_pure(response, tree, own, choice)
    return response, float(sweeper.values(response)[0, seat])


def _set_pure(policy: np.ndarray, tree: GameTree, own: np.ndarray, choice: np.ndarray) -> None:
    for index in np.flatnonzero(own):
        info = tree.infosets[index]
        policy[info.first : info.first + len(info.actions)] = 0.0
        policy[choice[index]] = 1.0


@dataclass(frozen=True)
class Exploitability:
    """What best responses gain against a policy: per seat, the policy's own expected return
    there and the best response's; `nash_conv` their summed gains, `exploitability` that divided
    by the seats (OpenSpiel's definitions)."""

    policy_returns: tuple[float, ...]
    best_response_returns: tuple[float, ...]

    @property
    def nash_conv(self) -> float:
        return sum(
            b - p for b, p in zip(self.best_response_returns, self.policy_returns, strict=True)
        )

    @property
    def exploitability(self) -> float:
        return self.nash_conv / len(self.policy_returns)

    @property
    def best_response_rotating(self) -> float:
        """A best response's expected return against the policy, seats rotating (the mean over
        the seats it may take)."""
        return sum(self.best_response_returns) / len(self.best_response_returns)


def exploitability(
    tree: GameTree, policy: np.ndarray, sweeper: Sweeper | None = None
) -> Exploitability:
    """Best responses of every seat to `policy`."""
    sweeper = sweeper or Sweeper(tree)
    played = sweeper.values(policy)[0]
    responses = [best_response(tree, policy, seat, sweeper)[1] for seat in range(tree.num_players)]
    return Exploitability(tuple(map(float, played)), tuple(responses))


def profile(tree: GameTree, policies: list[np.ndarray]) -> np.ndarray:
    """One policy made of seat i's slots from `policies[i]`."""
    seats = Sweeper(tree).slot_seat if len(policies) > 1 else None
    if seats is None:
        return policies[0].copy()
    mixed = np.empty_like(policies[0])
    for seat, policy in enumerate(policies):
        mixed[seats == seat] = policy[seats == seat]
    return mixed


def head_to_head(tree: GameTree, first: np.ndarray, second: np.ndarray) -> float:
    """`first`'s expected return against `second` in a two-player game, seats rotating."""
    sweeper = Sweeper(tree)
    as_first = sweeper.values(profile(tree, [first, second]))[0, 0]
    as_second = sweeper.values(profile(tree, [second, first]))[0, 1]
    return float(as_first + as_second) / 2


@dataclass
class CFRRun:
    """A CFR+ run: the average policy, and (iteration, exploitability, CPU seconds) checkpoints."""

    average: np.ndarray
    iterations: int
    progress: list[tuple[int, float, float]] = field(default_factory=list)


def cfr_plus(
    tree: GameTree,
    target: float = 0.01,
    max_iterations: int = 10_000,
    max_seconds: float = 600.0,
    check_every: int = 10,
    report: Callable[[int, float, float], None] | None = None,
) -> CFRRun:
    """CFR+ until the average policy's exploitability is at most `target` (checked every
    `check_every` iterations), `max_iterations` iterations or `max_seconds` CPU seconds."""
    if tree.num_players != 2:
        raise ValueError(f"CFR+ here solves two-player games; this one has {tree.num_players}")
    sweeper = Sweeper(tree)
    regrets = np.zeros(tree.num_slots)
    policy = sweeper.uniform()
    average_totals = np.zeros(tree.num_slots)
    run = CFRRun(average=policy.copy(), iterations=0)
    start = time.process_time()
    for iteration in range(1, max_iterations + 1):
        for seat in range(2):
            policy, regrets = _cfr_plus_update(
                sweeper, policy, regrets, average_totals, seat, iteration
            )
        run.iterations = iteration
        if iteration % check_every == 0 or iteration == max_iterations:
            run.average = sweeper.normalise(average_totals)
            gap = exploitability(tree, run.average, sweeper).exploitability
            seconds = time.process_time() - start
            run.progress.append((iteration, gap, seconds))
            if report is not None:
                report(iteration, gap, seconds)
            if gap <= target or seconds >= max_seconds:
                break
    run.average = sweeper.normalise(average_totals)
    return run


def _cfr_plus_update(
    sweeper: Sweeper,
    policy: np.ndarray,
    regrets: np.ndarray,
    average_totals: np.ndarray,
    seat: int,
    iteration: int,
) -> tuple[np.ndarray, np.ndarray]:
    """One CFR+ update of `seat`'s regrets, its policy, and the weighted average."""
    tree = sweeper.tree
    reach = sweeper.reaches(policy)
    values = sweeper.values(policy)[:, seat]
    counterfactual = sweeper.opponents_reach(reach, seat)
    children = sweeper.decision_child
    slots = tree.edge_slot[children]
    mine = sweeper.slot_seat[slots] == seat
    children, slots = children[mine], slots[mine]
    parents = tree.parent[children]
    gains = np.bincount(
        slots,
        weights=counterfactual[parents] * (values[children] - values[parents]),
        minlength=len(policy),
    )
    own_slots = sweeper.slot_seat == seat
    own_reach = reach[sweeper.representative[sweeper.slot_infoset], seat]
    average_totals[own_slots] += iteration * (own_reach * policy)[own_slots]
    regrets = np.where(own_slots, np.maximum(regrets + gains, 0.0), regrets)
    updated = sweeper.normalise(np.where(own_slots, regrets, 0.0))
    return np.where(own_slots, updated, policy), regrets
