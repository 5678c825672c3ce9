"""Exact tools on the games small enough to solve (the `mini` presets): any agent's exact best
response and exploitability, and CFR+ to a near-Nash policy saved as an agent (`cfr:PATH`).

    from snail_envs.exact import analyse
    report = analyse("snap", preset="mini", agents=["heuristic", "random"], solve_to=0.01)
    print(report.table())

An agent is tabulated over the game's information states by asking it, at each, for its action on
that seat's observation (one call; an agent with `action_probabilities`, like the `cfr:PATH` and
`random` agents, gives its mixed policy exactly). Planning agents, which need a live table, are
not tabulated. A best response is computed exactly against the tabulated policy, seat by seat.
Needs the `openspiel` extra. The command is `snail-exact` (`snail_envs.exact.cli`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from snail_envs.core.openspiel import SnailGame
from snail_envs.exact.solve import (
    CFRRun,
    Exploitability,
    Sweeper,
    cfr_plus,
    exploitability,
    head_to_head,
)
from snail_envs.exact.tree import DECISION, DEFAULT_MAX_NODES, GameTree, TreeTooLarge, build_tree

__all__ = [
    "AgentResult",
    "ExactReport",
    "TreeTooLarge",
    "analyse",
    "load_game",
    "observation_policy",
    "tabulate",
]


def load_game(
    env_name: str, preset: str = "", options: Mapping[str, Any] | None = None
) -> SnailGame:
    """The OpenSpiel game of `env_name` (an env name such as the registry's, or a game folder)
    with a preset and options (env keywords)."""
    import pyspiel

    from snail_envs.openspiel import REGISTRATIONS

    for name, registration in REGISTRATIONS.items():
        if env_name in (registration.spec.info.env_name, registration.folder, name):
            break
    else:
        known = [r.spec.info.env_name for r in REGISTRATIONS.values()]
        raise ValueError(f"unknown environment {env_name!r}; environments: {', '.join(known)}")
    defaults = registration.game_type().parameter_specification
    params: dict[str, Any] = {"preset": preset}
    for option, value in (options or {}).items():
        if option not in defaults:
            raise ValueError(
                f"{env_name}: unknown option {option!r}; options: {', '.join(sorted(defaults))}"
            )
        params[option] = value if isinstance(value, type(defaults[option])) else _json(value)
    game = pyspiel.load_game(name, params)
    assert isinstance(game, SnailGame)
    return game


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


def tabulate(tree: GameTree, game: SnailGame, agent: Any) -> np.ndarray:
    """`agent`'s policy over every information state of `tree`, asked at each on the seat's
    observation and legal actions; an information state of one legal action needs no call."""
    from snail_envs.agents import RandomAgent

    check_tabulable(agent)
    num_actions = game.registration.spec.info.num_actions
    policy = np.zeros(tree.num_slots)
    for info in tree.infosets:
        if len(info.actions) == 1:
            policy[info.first] = 1.0
            continue
        mask = np.zeros(num_actions, dtype=np.int8)
        mask[info.actions] = 1
        if isinstance(agent, RandomAgent):
            chances = dict.fromkeys(info.actions, 1.0 / len(info.actions))
        elif hasattr(agent, "action_probabilities"):
            chances = agent.action_probabilities(info.observation, mask)
        else:
            chances = {int(agent.act(info.observation, mask)): 1.0}
        for action, chance in chances.items():
            if action not in info.actions:
                raise ValueError(
                    f"{type(agent).__name__} chose action {action}, illegal here; legal: "
                    f"{info.actions}"
                )
            policy[info.first + info.actions.index(action)] = chance
    return policy


def check_tabulable(agent: Any) -> None:
    """Refuse an agent that cannot be asked at an information state: a planning agent, which
    needs a live table rather than an observation."""
    from snail_envs.agents import PlanningAgent

    if isinstance(agent, PlanningAgent) and not hasattr(agent, "act"):
        raise ValueError(
            f"{type(agent).__name__} plans on a live table; only agents that act on an "
            "observation can be tabulated"
        )


def observation_policy(
    tree: GameTree, game: SnailGame, policy: np.ndarray
) -> dict[str, dict[int, float]]:
    """`policy` projected on observations (what an agent sees): the policies of the information
    states that show one observation, mixed by how often `policy` reaches each."""
    sweeper = Sweeper(tree)
    reach = np.prod(sweeper.reaches(policy), axis=1)
    decisions = np.flatnonzero(tree.kind == DECISION)
    weight = np.bincount(
        tree.infoset[decisions], weights=reach[decisions], minlength=len(tree.infosets)
    )
    layout = game.setup.observation_layout
    totals: dict[str, dict[int, float]] = {}
    for info in tree.infosets:
        if len(info.actions) == 1 and info.actions[0] == game.setup.not_acting:
            continue
        key = layout.text(info.observation)
        mix = totals.setdefault(key, {})
        scale = weight[info.index] if weight[info.index] > 0 else 1e-12
        for position, action in enumerate(info.actions):
            mix[action] = mix.get(action, 0.0) + scale * policy[info.first + position]
    return {
        key: {action: chance / sum(mix.values()) for action, chance in mix.items()}
        for key, mix in totals.items()
    }


@dataclass(frozen=True)
class AgentResult:
    """One agent's exact numbers: what best responses win against it, and its expected return
    against the CFR policy (seats rotating), when a solve ran."""

    spec: str
    exploitability: Exploitability
    seconds: float
    against_cfr: float | None = None


@dataclass
class ExactReport:
    """The tree's size, each agent's exact numbers, and the CFR+ run."""

    game: str
    options: dict[str, Any]
    nodes: int
    infosets: int
    build_seconds: float
    agents: list[AgentResult] = field(default_factory=list)
    cfr: CFRRun | None = None
    cfr_exploitability: Exploitability | None = None
    cfr_seconds: float = 0.0

    def table(self) -> str:
        lines = [
            f"{self.game} {self.options}",
            f"tree: {self.nodes:,} nodes, {self.infosets:,} information states "
            f"(built in {self.build_seconds:.1f} CPU s)",
            "| policy | exploitability | best response (seats rotating) | vs CFR | CPU s |",
            "|---|---|---|---|---|",
        ]
        for result in self.agents:
            vs = "" if result.against_cfr is None else f"{result.against_cfr:+.4f}"
            lines.append(
                f"| {result.spec} | {result.exploitability.exploitability:.4f} | "
                f"{result.exploitability.best_response_rotating:+.4f} | {vs} | "
                f"{result.seconds:.1f} |"
            )
        if self.cfr is not None and self.cfr_exploitability is not None:
            lines.append(
                f"| CFR+ ({self.cfr.iterations} iterations) | "
                f"{self.cfr_exploitability.exploitability:.4f} | "
                f"{self.cfr_exploitability.best_response_rotating:+.4f} | +0.0000 | "
                f"{self.cfr_seconds:.1f} |"
            )
        return "\n".join(lines)


def analyse(
    env_name: str,
    preset: str = "mini",
    agents: Sequence[str] = ("heuristic", "random"),
    options: Mapping[str, Any] | None = None,
    solve_to: float | None = 0.01,
    max_seconds: float = 600.0,
    max_iterations: int = 100_000,
    max_nodes: int = DEFAULT_MAX_NODES,
    seed: int = 0,
) -> tuple[ExactReport, GameTree, SnailGame]:
    """Build the tree of `env_name` under the preset and options, then the exact numbers of each
    agent spec, and (unless `solve_to` is None) CFR+ to that exploitability or `max_seconds`."""
    from snail_envs.agents import make_agent

    game = load_game(env_name, preset, options)
    env = game.registration.spec.info.env_name
    players = {
        spec: make_agent(spec, env, seed=seed, options=game.setup.env_options) for spec in agents
    }
    start = time.process_time()
    tree = build_tree(game, max_nodes)
    if tree.num_players != 2:
        raise ValueError(f"the exact tools take two-player games; this one has {tree.num_players}")
    report = ExactReport(
        game=env,
        options=dict(game.setup.env_options),
        nodes=tree.num_nodes,
        infosets=len(tree.infosets),
        build_seconds=time.process_time() - start,
    )
    sweeper = Sweeper(tree)
    if solve_to is not None:
        start = time.process_time()
        report.cfr = cfr_plus(tree, solve_to, max_iterations, max_seconds)
        report.cfr_exploitability = exploitability(tree, report.cfr.average, sweeper)
        report.cfr_seconds = time.process_time() - start
    for spec, agent in players.items():
        start = time.process_time()
        policy = tabulate(tree, game, agent)
        result = exploitability(tree, policy, sweeper)
        against = None if report.cfr is None else head_to_head(tree, policy, report.cfr.average)
        report.agents.append(
            AgentResult(spec, result, time.process_time() - start, against_cfr=against)
        )
    return report, tree, game
