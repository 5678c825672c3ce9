"""Search speed: the compiled search against the Python IS-MCTS, at equal settings, per game.

    pip install -e ".[bench]"
    python benchmarks/search_speed.py            # every game
    python benchmarks/search_speed.py --quick    # a few minutes; last line: worst speed-up xN
    python benchmarks/search_speed.py --quick --out search_speed.json   # also as JSON

Both searches run IS-MCTS with the same settings: the game's heuristic as the opponent model and
as the rollout player, the margin as the value, to the end of the game. The Python one
(`ismcts:N:heuristic:model:margin`, `snail_envs.agents.ismcts`) draws each world with
`resample_from_infostate` and plays it through copies of the reference environment; the
compiled one (`search:N:horizon=game`, `snail_envs.agents.search`) draws and plays its worlds in
the batched engine.
Each searches the same decisions, taken from games of heuristic play. Rates are per second of
the process's own CPU time; a simulated decision is one seat's action in a world (in the tree or
in a rollout). The kernels are compiled before the clock starts. With `--out FILE` the run is
also written as JSON (`snail_envs.speed_tables.search_speed_markdown`'s record, with its
provenance), from which the docs site renders the same table.

With `open_spiel` installed (never required) one more row gives OpenSpiel's Python
`ISMCTSBot` on its C++ leduc poker, random rollouts, for scale: it is another game, so it gets no
speed-up column.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import time
from collections.abc import Callable
from typing import Any

import snail_envs
from snail_envs.agents import ISMCTSAgent, choose_action, make_agent
from snail_envs.core.testing import deciding_agents
from snail_envs.snap.rules import FACTS as SNAP_FACTS
from snail_envs.speed_tables import add_out_arguments, check_out, provenance, search_speed_markdown

GAMES = {
    "snail_sprint_v0": {"num_players": 3},
    "pedzace_slimaki_v0": {"num_players": 3},
    "snailed_it_v0": {"num_players": 3},
    SNAP_FACTS.env_name: {
        "same_tick": "random",
        "refresh": "shuffle",
        "glimpse_error": [0.6, 0.3, 0.0],
    },
}
"""The games and the rule options searched (Snap: the `noisy_sight` preset)."""


def decisions(env_name: str, options: dict, count: int) -> list[tuple[Any, str]]:
    """`count` decisions with a choice, from games of the heuristic, as (environment copy,
    agent)."""
    import copy

    rng = random.Random(0)
    heuristic = make_agent("heuristic", env_name, options=options)
    env = snail_envs.make(env_name, **options)
    found: list[tuple[Any, str]] = []
    for seed in range(1000):
        env.reset(seed=seed)
        for agent in deciding_agents(env):
            if len(env.unwrapped.legal_actions(agent)) > 1 and rng.random() < 0.1:
                found.append((copy.deepcopy(env), agent))
                if len(found) == count:
                    return found
            env.step(choose_action(heuristic, env, agent))
    return found


def python_search(env_name: str, options: dict, iterations: int) -> ISMCTSAgent:
    heuristic = make_agent("heuristic", env_name, options=options)
    return ISMCTSAgent(
        iterations=iterations, rollout=heuristic, opponents=heuristic, value="margin", seed=0
    )


class CountedSteps:
    """Counts the decisions played through the reference environment's `step` meanwhile."""

    def __init__(self, env: Any) -> None:
        self.host_class = type(env.unwrapped)
        self.count = 0

    def __enter__(self) -> CountedSteps:
        step: Callable = self.host_class.step

        def counted(host: Any, action: Any) -> None:
            if action is not None:
                self.count += 1
            step(host, action)

        self.original = step
        self.host_class.step = counted  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        self.host_class.step = self.original  # type: ignore[method-assign]


def measure(agent: Any, situations: list[tuple[Any, str]], python: bool) -> tuple[float, float]:
    """(iterations/s, simulated decisions/s) over the situations, in CPU time."""
    iterations = played = 0
    elapsed = 0.0
    for env, agent_name in situations:
        if python:
            with CountedSteps(env) as steps:
                started = time.process_time()
                agent.act_in(env, agent_name)
                elapsed += time.process_time() - started
            iterations += agent.iterations
            played += steps.count
        else:
            before = (agent.searched, int(agent.played[0]))
            started = time.process_time()
            agent.act_in(env, agent_name)
            elapsed += time.process_time() - started
            iterations += agent.searched - before[0]
            played += int(agent.played[0]) - before[1]
    return iterations / elapsed, played / elapsed


def openspiel_rate(iterations: int, moves: int) -> float | None:
    """OpenSpiel's Python ISMCTSBot on leduc poker: iterations/s (CPU time); None without it,
    saying so in one line."""
    if importlib.util.find_spec("open_spiel") is None:
        print('open_spiel is missing: skipping its ISMCTSBot row (pip install -e ".[openspiel]")')
        return None
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    game = pyspiel.load_game("leduc_poker")
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(game, evaluator, 1.5, iterations, random_state=np.random.RandomState(0))
    elapsed, searched = 0.0, 0
    state = game.new_initial_state()
    rng = random.Random(0)
    while searched < moves * iterations:
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choices(outcomes, probabilities)[0])
            continue
        started = time.process_time()
        action = bot.step(state)
        elapsed += time.process_time() - started
        searched += iterations
        state.apply_action(action)
    return searched / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer decisions and iterations")
    parser.add_argument("--only", nargs="*", choices=sorted(GAMES), help="only these games")
    add_out_arguments(parser, "also write the results as JSON")
    args = parser.parse_args()
    check_out(parser, args)
    count = 4 if args.quick else 12
    python_iterations = 100 if args.quick else 300
    compiled_iterations = 2048 if args.quick else 8192
    games = {}
    for env_name in args.only or GAMES:
        options = GAMES[env_name]
        situations = decisions(env_name, options, count)
        compiled = make_agent(
            f"search:{compiled_iterations}:horizon=game", env_name, seed=0, options=options
        )
        compiled.act_in(*situations[0])  # compile the kernels before the clock starts
        python_agent = python_search(env_name, options, python_iterations)
        games[env_name] = {
            "python": measure(python_agent, situations, True),
            "compiled": measure(compiled, situations, False),
        }
        print(f"{env_name}: {games[env_name]}", flush=True)
    record = {
        "decisions": count,
        "python_iterations": python_iterations,
        "compiled_iterations": compiled_iterations,
        "games": games,
        "openspiel_leduc": openspiel_rate(python_iterations, count),
        "provenance": provenance(["numba", "numpy", "open_spiel"]),
    }
    print("\n" + search_speed_markdown(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
