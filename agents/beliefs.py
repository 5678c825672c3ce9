"""What a seat believes of the hidden information, given the actions a known agent was seen to take.

A searching seat that knows how the other seats play (they are all one agent, the model) learns
from their actions: a seat that moved the blue snail likely holds a card that pays for it.
`ModelBelief` holds `hypotheses` redraws of everything hidden from the seat, each named by the
seed of its redraw (`resample_from_infostate(seat, seed)`), and weighs each by the likelihood of
the actions the model's seats were seen to take: at each of their decisions with a choice, the
model's probability of the action taken, on the observation the acting seat would have had in
that redraw. A search then draws its worlds in proportion to the weights.

The model's probabilities: an agent that gives them (`action_probabilities`, the tabular CFR
policy) by them; random play is uniform over the legal actions; any other agent is asked for its
action, which weighs 1 if it is the action taken and 0 otherwise: for a deterministic agent (the
heuristics, a trained policy playing its most likely action) this is its exact likelihood, and
the belief is rejection sampling; for a seeded random agent, a draw of it.

A hypothesis is a seed, not a world: it is redrawn from the same seed at every decision. That
names the same hidden information throughout a game where it is dealt once and kept (the
players' cards of Snail Sprint! and Pędzące Ślimaki), so the weights of its past decisions still
hold; hidden information that changes as play goes (the order of Snap's face-down stacks) is
hidden from every seat alike, so that no seat's choice depends on it and every hypothesis weighs
the same. In a window of simultaneous choices (Snap's calls) the belief is told each choice as
the AEC order makes it, before the window settles; a game with private information and such
windows would need the update held to the window's end. When every hypothesis is ruled out
(the model is not how the seats played), the belief starts again from fresh, equally weighted
ones, and counts it in `restarts`.
"""

from __future__ import annotations

import random
from typing import Any

from snail_envs.agents.base import RandomAgent, choose_action


class ModelBelief:
    """Weighted redraws of what the searching seat cannot see, from the model's play seen so
    far; the weights are kept relative to the largest (1), so that a long game's products of
    probabilities do not vanish."""

    def __init__(self, model: Any, hypotheses: int = 64) -> None:
        if hypotheses < 1:
            raise ValueError(f"hypotheses must be at least 1; got {hypotheses}")
        self.model = model
        self.hypotheses = hypotheses
        self.seeds: list[int] = []
        self.weights: list[float] = []
        self.restarts = 0
        """How many times every hypothesis was ruled out and fresh ones were drawn."""
        self._host: Any = None
        self._rng = random.Random(0)

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._host = None

    def follow(self, host: Any) -> None:
        """Start a fresh belief when `host` is a new game."""
        if host is not self._host:
            self._host = host
            self._start()

    def _start(self) -> None:
        self.seeds = [self._rng.getrandbits(31) for _ in range(self.hypotheses)]
        self.weights = [1.0] * self.hypotheses

    def update(self, host: Any, seat_agent: str, actor: str, action: int) -> None:
        """Weigh every hypothesis by the model's probability of `actor` playing `action` now,
        `actor` being another seat than `seat_agent`'s, in `host` (the game being played)."""
        self.follow(host)
        if len(host.legal_actions(actor)) < 2:
            return
        self.weights = [
            weight * self.likelihood(host.resample_from_infostate(seat_agent, seed), actor, action)
            if weight
            else 0.0
            for seed, weight in zip(self.seeds, self.weights, strict=True)
        ]
        largest = max(self.weights)
        if largest == 0:
            self.restarts += 1
            self._start()
        else:
            self.weights = [weight / largest for weight in self.weights]

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

    def draw(self, host: Any, rng: random.Random) -> int:
        """The seed of a redraw for a search in `host`, drawn in proportion to the weights."""
        self.follow(host)
        return rng.choices(self.seeds, self.weights)[0]
