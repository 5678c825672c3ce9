"""What a seat believes of the hidden information, given the actions a known agent was seen to take.

A searching seat that knows how the other seats play (they are all one agent, the model) learns
from their actions: a seat that moved the blue snail likely holds a card that pays for it.
`ModelBelief` is a particle filter over whole tables. It holds up to `hypotheses` copies of the
game, each a table the searching seat cannot tell from the real one, with a weight, and follows
the game action by action (the search is told each action before it is played, `watch`):

1. each table plays the action, through every chance outcome the step can draw (`ChanceNodes`:
   a card drawn, a glimpse), and keeps the outcomes after which the seat would see what it sees
   in the real game (the same observation, the same seat to act). Outcomes every seat sees drawn
   (`Chance.show`: the dice rolled) are not branched on: each table is shown the real game's
   (`Shown`), times their probability. Each outcome kept goes on as a table of its own, weighed
   by the table's weight times its probability (the likelihood of what the seat saw). A step
   of more than `branches` outcome sequences is sampled instead: `branches` seeded tries, each
   that matches weighing its share;
2. each action of another seat is weighed by the model's probability of it, on the observation
   the acting seat has at that table: the table's weight is multiplied by it once the seat can
   see the action. In a window of simultaneous choices (Snap's calls, Snailed It!'s tosses) the
   belief is told each choice as the AEC order makes it, before the window settles; the choices
   of the window are held (`held`) until it settles, so that they weigh nothing the seat may not
   know yet, and a world drawn in the window has them chosen again by the model there.

A search then draws its worlds in proportion to the weights: a copy of a table, with its own
future chance (`GameHost.fork_for`); the compiled search takes every table at once (`worlds`)
and draws its batch's worlds among them. The hidden information a table holds is its own from the
deal on, so hidden cards that change hands, a deck drawn from and the model's past choices stay
consistent with each other. Past `hypotheses` tables, `hypotheses` of them are drawn in
proportion to their weights (one drawn k times weighing k). Where the game is small enough that
every redraw and every outcome fits in `hypotheses` tables (the minis), none is drawn: the
belief is the exact posterior, as the searching seat's information state and the model give it.

The model's probabilities: an agent that gives them (`action_probabilities`, the tabular CFR
policy) by them; random play is uniform over the legal actions; any other agent is asked for its
action, which weighs 1 if it is the action taken and 0 otherwise: for a deterministic agent (the
heuristics, a trained policy playing its most likely action) this is its exact likelihood, and
the belief is rejection sampling; for a seeded random agent, a draw of it.

The tables start as the redraws of what the seat cannot see where the belief first sees the
game: every one with its probability (`GameHost.redrawn_by` with a chance script) where there
are at most `hypotheses`, else `hypotheses` seeded redraws (`resample_from_infostate`), equally
weighted. When every table is ruled out (the model is not how the seats played, or what the
seat sees was never a chance outcome of a table, as the order of Snap's face-down stacks,
hidden from every seat, shown card by card), the belief starts again from fresh redraws of the
real table and counts it in `restarts`.
"""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import numpy as np

from snail_envs.agents.base import RandomAgent, choose_action
from snail_envs.core.chance import (
    Chance,
    ChanceNeeded,
    ChanceNodes,
    SeededChance,
    Shown,
    ShownImpossible,
)

Outcome = tuple[float, Any]
"""A probability (or a share of tries) and the table after the step with that outcome."""


class ModelBelief:
    """Weighted tables the searching seat cannot tell from the real one, from the model's play
    seen so far; the weights are kept relative to the largest (1), so that a long game's products
    of probabilities do not vanish."""

    def __init__(self, model: Any, hypotheses: int = 64, branches: int = 256) -> None:
        if hypotheses < 1:
            raise ValueError(f"hypotheses must be at least 1; got {hypotheses}")
        if branches < 1:
            raise ValueError(f"branches must be at least 1; got {branches}")
        self.model = model
        self.hypotheses = hypotheses
        self.branches = branches
        self.tables: list[Any] = []
        self.weights: list[float] = []
        self.held: list[float] = []
        """Each table's likelihood of the other seats' choices made in the tick in progress,
        which the searching seat sees only once the tick settles: kept out of the weights until
        then, so that they weigh nothing the seat may not know."""
        self.restarts = 0
        """How many times every table was ruled out and fresh ones were drawn."""
        self._game: Any = None
        self._pending: tuple[int | None] | None = None
        """The last action told, not yet played at the tables (in a tuple: it may be None, the
        step of a seat that is done)."""
        self._rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._game = None

    def update(self, host: Any, seat_agent: str, actor: str, action: int | None) -> None:
        """`actor` plays `action` now in `host` (the game being played), `seat_agent` searching:
        bring the tables to the real table's point, weigh them by the model's probability of
        `action` if `actor` is another seat, and hold the action to play at them next."""
        self._follow(host, seat_agent)
        if actor != seat_agent and action is not None and len(host.legal_actions(actor)) > 1:
            self.held = [
                held * self.likelihood(table, actor, action)
                for table, held in zip(self.tables, self.held, strict=True)
            ]
        self._pending = (action,)

    def world(self, host: Any, seat_agent: str, seed: int, reward: str | None = None) -> Any:
        """A world for one iteration of a search by `seat_agent` in `host`: a copy of a table drawn
        in proportion to the weights, playing on with chance from `seed`."""
        self._follow(host, seat_agent)
        table = self._rng.choices(self.tables, self.weights)[0]
        return table.fork_for(seat_agent, seed, reward=reward, choose=self._choose)

    def worlds(self, host: Any, seat_agent: str, seed: int) -> tuple[list[Any], list[float]]:
        """Every table as a world of a search by `seat_agent` in `host` (a copy, as `world` makes
        one, its future chance from `seed` and its index), with its weight: for a search that
        draws its worlds itself (`snail_envs.agents.search`)."""
        self._follow(host, seat_agent)
        worlds = [
            table.fork_for(seat_agent, seed + index, choose=self._choose)
            for index, table in enumerate(self.tables)
        ]
        return worlds, list(self.weights)

    def _choose(self, world: Any, agent: str) -> int:
        """The model's choice for `agent` in `world` (a choice of the tick hidden from the
        searching seat, chosen again in each world)."""
        return int(choose_action(self.model, world, agent))

    def likelihood(self, world: Any, actor: str, action: int) -> float:
        """The model's probability of `actor` playing `action` in `world`."""
        model = self.model
        if hasattr(model, "action_probabilities"):
            view = world.observe(actor)
            return float(
                model.action_probabilities(view["observation"], view["action_mask"]).get(action, 0)
            )
        if isinstance(model, RandomAgent):
            return 1.0 / len(world.legal_actions(actor))
        return float(choose_action(model, world, actor) == action)

    # ----------------------------------------------------------------- following the game

    def _follow(self, host: Any, seat_agent: str) -> None:
        """Start afresh on a new game; otherwise play the pending action at every table."""
        if host.game is not self._game:
            self._game = host.game
            self._pending = None
            self._start(host, seat_agent)
        elif self._pending is not None:
            (action,) = self._pending
            self._pending = None
            self._step_tables(host, seat_agent, action)

    def _start(self, host: Any, seat_agent: str) -> None:
        """Tables of every redraw of what the seat cannot see, each weighed by its probability,
        where there are at most `hypotheses` of them; else `hypotheses` seeded redraws alike."""
        listed = self._redraws(host, seat_agent)
        if listed is None:
            listed = [
                (1.0, host.resample_from_infostate(seat_agent, self._rng.getrandbits(31)))
                for _ in range(self.hypotheses)
            ]
        self.tables = [table for _, table in listed]
        self.weights = [chance for chance, _ in listed]
        self.held = [1.0] * len(listed)
        self._settle(host, seat_agent)

    def _redraws(self, host: Any, seat_agent: str) -> list[Outcome] | None:
        """Every redraw of what `seat_agent` cannot see in `host`, with its probability (one per
        chance outcome sequence of `GameHost.redrawn_by`); None where there are more than
        `hypotheses`."""
        found: list[Outcome] = []
        scripts: list[tuple[list[int], float]] = [([], 1.0)]
        while scripts:
            script, chance = scripts.pop()
            if len(found) + len(scripts) >= self.hypotheses:
                return None
            try:
                found.append((chance, host.redrawn_by(seat_agent, ChanceNodes(script))))
            except ChanceNeeded as needed:
                probabilities = needed.request.probabilities
                scripts += [([*script, i], chance * p) for i, p in enumerate(probabilities)]
        return found

    def _step_tables(self, host: Any, seat_agent: str, action: int | None) -> None:
        """Every table plays `action` through each chance outcome that leaves `seat_agent`'s view
        as it is in `host` now, each outcome a table of its own, weighed by its probability."""
        seen = host.observe(seat_agent)
        tables, weights, helds = [], [], []
        for table, weight, held in zip(self.tables, self.weights, self.held, strict=True):
            played = action
            if action is not None and action not in table.legal_actions(table.agent_selection):
                # another seat's choice this table rules out (its held likelihood is 0, and the
                # table goes once the seat sees it): kept in step meanwhile
                played = self._choose(table, table.agent_selection)
            for chance, after in self._outcomes(table, played, host, seat_agent, seen):
                tables.append(after)
                weights.append(weight * chance)
                helds.append(held)
        self.tables, self.weights, self.held = tables, weights, helds
        if not host.window_open:  # the tick settled: its choices are seen, and weigh
            self.weights = [w * h for w, h in zip(self.weights, self.held, strict=True)]
            self.held = [1.0] * len(self.tables)
        self._settle(host, seat_agent)

    def _outcomes(
        self, table: Any, action: int | None, host: Any, seat_agent: str, seen: dict[str, Any]
    ) -> list[Outcome]:
        """The tables after `table` plays `action`, one per chance outcome sequence of the step
        after which `seat_agent` sees `seen` in `host`, with its probability."""
        found: list[Outcome] = []
        scripts: list[tuple[list[int], float]] = [([], 1.0)]
        shown = host.shown_outcomes() or []
        played = 0
        while scripts:
            script, chance = scripts.pop()
            played += 1
            if played > self.branches:
                return self._sampled(table, action, host, seat_agent, seen)
            source = Shown(ChanceNodes(script), shown)
            try:
                after = _played(table, action, source)
            except ChanceNeeded as needed:
                probabilities = needed.request.probabilities
                scripts += [([*script, i], chance * p) for i, p in enumerate(probabilities)]
                continue
            except ShownImpossible:
                continue
            if _agrees(after, host, seat_agent, seen):
                found.append((chance * source.likelihood, after))
        return found

    def _sampled(
        self, table: Any, action: int | None, host: Any, seat_agent: str, seen: dict[str, Any]
    ) -> list[Outcome]:
        """`_outcomes` estimated by `branches` seeded tries, each matching one weighing its
        share."""
        found: list[Outcome] = []
        shown = host.shown_outcomes() or []
        for _ in range(self.branches):
            source = Shown(SeededChance(self._rng.getrandbits(31)), shown)
            try:
                after = _played(table, action, source)
            except ShownImpossible:
                continue
            if _agrees(after, host, seat_agent, seen):
                found.append((source.likelihood / self.branches, after))
        return found

    def _settle(self, host: Any, seat_agent: str) -> None:
        """Drop ruled-out tables, restart if none is left, keep the weights relative to the
        largest, and, past `hypotheses` tables, draw `hypotheses` of them in proportion to the
        weights (a table drawn k times weighing k)."""
        kept = [
            (t, w, h) for t, w, h in zip(self.tables, self.weights, self.held, strict=True) if w > 0
        ]
        if not kept:
            self.restarts += 1
            self._start(host, seat_agent)
            return
        if len(kept) > self.hypotheses:
            drawn = Counter(
                self._rng.choices(range(len(kept)), [w for _, w, _ in kept], k=self.hypotheses)
            )
            kept = [(kept[i][0], float(count), kept[i][2]) for i, count in sorted(drawn.items())]
        largest = max(w for _, w, _ in kept)
        self.tables = [t for t, _, _ in kept]
        self.weights = [w / largest for _, w, _ in kept]
        self.held = [h for _, _, h in kept]


def _played(table: Any, action: int | None, chance: Chance) -> Any:
    """A copy of `table` after it plays `action`, its chance events drawn from `chance`."""
    after = copy.deepcopy(table)
    after.use_chance(chance)
    after.step(action)
    return after


def _agrees(table: Any, host: Any, seat_agent: str, seen: dict[str, Any]) -> bool:
    """Whether `seat_agent` sees at `table` what it sees in `host` (`seen`), with the same seat
    to act."""
    if table.agent_selection != host.agent_selection or table.agents != host.agents:
        return False
    view = table.observe(seat_agent)
    return bool(
        np.array_equal(view["observation"], seen["observation"])
        and np.array_equal(view["action_mask"], seen["action_mask"])
    )
