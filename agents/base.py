"""The agent protocol: an agent chooses an action for the seat it plays, from that seat's view.

An `Agent` sees only its seat's observation vector and action mask. A `PlanningAgent` plans with
the environment itself, through the public API only: copies in which everything hidden from its
seat is redrawn (`resample_from_infostate`), legal actions, steps and rewards — never the hidden
state of the real game.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from snail_envs.core.single_agent import RandomOpponent


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action to take, one the mask allows."""
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
