"""The agent protocol: an agent chooses an action for the seat it plays, from that seat's view.

An `Agent` sees only its seat's observation vector and action mask. A `PlanningAgent` plans with
the environment itself, through the public API only: copies in which everything hidden from its
seat is redrawn (`resample_from_infostate`), legal actions, steps and rewards — never the hidden
state of the real game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from snail_envs.core.single_agent import RandomOpponent


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action to take, one the mask allows."""
        ...


class Heuristic(Protocol):
    """A game's hand-written player: made for a table's rule options, it then plays any seat."""

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> Agent:
        """The heuristic for a table of these rule options."""
        ...


@runtime_checkable
class PlanningAgent(Protocol):
    def act_in(self, env: Any, agent: str) -> int:
        """The action for `agent`, who is to act in `env` (an AEC environment)."""
        ...


def choose_action(player: Agent | PlanningAgent, env: Any, agent: str) -> int:
    """Ask `player` for `agent`'s action in `env`, giving it only what it is entitled to."""
    if isinstance(player, PlanningAgent):
        return int(player.act_in(env, agent))
    observation = env.observe(agent)
    return int(player.act(observation["observation"], observation["action_mask"]))


class RandomAgent(RandomOpponent):
    """Uniformly random among the legal actions; seeded for reproducible games."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self(observation, action_mask)


class SearchAgent:
    """A seeded planning agent that searches only when its seat has a choice: a single legal
    action is played at once. A subclass writes `search`. With a `belief` (a
    `snail_envs.agents.beliefs.ModelBelief`), the agent is told every action of the game as it
    is played (`watch`), and its belief follows the game."""

    def __init__(self, seed: int | None = None, belief: Any = None) -> None:
        self._rng = random.Random(seed)
        self.belief = belief
        """What the seat believes of the hidden information from the other seats' actions seen;
        None: every world consistent with its view alike."""

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        if self.belief is not None:
            self.belief.reset(seed)

    def watch(self, env: Any, seat_agent: str, agent: str, action: int | None) -> None:
        """Be told, playing `seat_agent` in `env`, that `agent` plays `action` now."""
        if self.belief is not None:
            self.belief.update(env.unwrapped, seat_agent, agent, action)

    def act_in(self, env: Any, agent: str) -> int:
        host = env.unwrapped
        legal = host.legal_actions(agent)
        if not legal:
            raise ValueError(f"{agent} has no legal action now")
        if len(legal) == 1:
            return legal[0]
        return self.search(host, agent, legal)

    def search(self, host: Any, agent: str, legal: list[int]) -> int:
        """The action for `agent` among `legal` (at least two), searched in `host`."""
        raise NotImplementedError
