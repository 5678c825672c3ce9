"""What explicit chance costs: random games through the OpenSpiel adapter and the PettingZoo env.

    pip install -e ".[openspiel]"
    python benchmarks/openspiel_cost.py --games 5 --out openspiel_cost.json

For every game (default options), `games` random games played through `snail_envs.openspiel`
(chance outcomes drawn with their probabilities, uniform legal actions) and through the native
parallel env (its seeded chance): the decisions and chance nodes of a game, and the CPU
milliseconds of a game each way. The adapter plays a transition that draws k chance events k + 1
times, each on a copy of the table (`snail_envs.core.openspiel`). With `--out FILE` the rows are
also written as JSON (an existing FILE is kept unless `--overwrite`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import time
from typing import Any

import numpy as np

from snail_envs.speed_tables import add_out_arguments, check_out


def openspiel_games(game: Any, games: int, seed: int) -> tuple[float, float, float]:
    """Mean decisions, chance nodes and CPU seconds of a random game of `game` (a loaded
    `snail_envs.openspiel` game) through OpenSpiel."""
    rng = np.random.default_rng(seed)
    decisions = chance = 0
    start = time.process_time()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=chances)))
                chance += 1
                continue
            decisions += 1
            if state.is_simultaneous_node():
                players = range(state.num_players())
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in players])
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
    return decisions / games, chance / games, (time.process_time() - start) / games


def pettingzoo_games(game: Any, games: int, seed: int) -> float:
    """Mean CPU seconds of a random game of `game` through its native parallel env."""
    env, rng = game.make_env(), random.Random(seed)
    start = time.process_time()
    for index in range(games):
        env.reset(seed=seed + index)
        while env.agents:
            legal = {agent: env.legal_actions(agent) for agent in env.agents}
            env.step({agent: rng.choice(actions) for agent, actions in legal.items() if actions})
    return (time.process_time() - start) / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    add_out_arguments(parser, "also write the rows as JSON")
    arguments = parser.parse_args()
    check_out(parser, arguments)
    if arguments.games < 1:
        parser.error(f"--games must be at least 1; got {arguments.games}")
    if importlib.util.find_spec("open_spiel") is None:
        parser.error('open_spiel is missing: pip install -e ".[openspiel]" to play the games in it')
    from snail_envs.openspiel import GAME_NAMES, load

    rows: list[dict[str, Any]] = []
    print("| game | decisions | chance nodes | OpenSpiel ms | PettingZoo ms |")
    print("|---|---:|---:|---:|---:|")
    for name in GAME_NAMES:
        game = load(name)
        decisions, chance, seconds = openspiel_games(game, arguments.games, arguments.seed)
        native = pettingzoo_games(game, arguments.games, arguments.seed)
        rows.append(
            {
                "game": name,
                "decisions": decisions,
                "chance_nodes": chance,
                "openspiel_ms": 1000 * seconds,
                "pettingzoo_ms": 1000 * native,
            }
        )
        print(
            f"| {name} | {decisions:.0f} | {chance:.0f} | {1000 * seconds:.0f} | "
            f"{1000 * native:.1f} |"
        )
    if arguments.out is not None:
        arguments.out.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
