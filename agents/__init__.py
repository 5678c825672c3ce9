"""Agents that play the games of snail_envs: random, heuristic, IS-MCTS search, and you.

    from agents import make_agent
    bot = make_agent("heuristic", "snail_sprint_v0")
    action = bot.act(observation["observation"], observation["action_mask"])

`make_agent` understands: `random`, `heuristic`, `ismcts` (or `ismcts:ITERATIONS`) and `human`.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent, PlanningAgent, RandomAgent, choose_action
from agents.heuristics import HEURISTICS
from agents.human import HumanAgent
from agents.ismcts import ISMCTSAgent

__all__ = [
    "HEURISTICS",
    "Agent",
    "HumanAgent",
    "ISMCTSAgent",
    "PlanningAgent",
    "RandomAgent",
    "choose_action",
    "make_agent",
]

AGENT_KINDS = ("random", "heuristic", "ismcts", "human")


def make_agent(kind: str, env_name: str, seed: int | None = None) -> Any:
    """An agent of `kind` for environment `env_name`."""
    name, _, argument = kind.partition(":")
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic":
        if env_name not in HEURISTICS:
            raise ValueError(
                f"no heuristic agent for {env_name!r}; heuristics exist for {sorted(HEURISTICS)}"
            )
        return HEURISTICS[env_name]()
    if name == "ismcts":
        if argument and not argument.isdigit():
            raise ValueError(f"ismcts takes a number of iterations (ismcts:500); got {kind!r}")
        return ISMCTSAgent(iterations=int(argument) if argument else 200, seed=seed)
    if name == "human":
        return HumanAgent()
    raise ValueError(f"unknown agent {kind!r}; agents: {', '.join(AGENT_KINDS)}")
