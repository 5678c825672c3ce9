"""Watch seeded games between random agents, then a summary of many games.

    python -m snail_envs.demo snail_sprint_v0
    python -m snail_envs.demo snail_sprint_v0 --games 2000 --seed 1 -o num_players=4 -o board=B

The first game is printed turn by turn (the `ansi` view, each decision and its rewards); then
`--games` seeded games are played through the AEC API and summarised: each seat's share of wins
with a 95% confidence interval, game lengths in decisions, and decisions per second.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

import snail_envs
from snail_envs.cli import add_rule_options, env_name
from snail_envs.core.stats import wilson_interval


def random_action(mask: np.ndarray, rng: random.Random) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[rng.randrange(legal.size)])


def show_one_game(name: str, options: dict[str, Any], seed: int) -> None:
    env = snail_envs.make(name, render_mode="ansi", **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    print(f"=== one game of {name}, seed {seed} ===")
    for agent in env.agent_iter():
        observation, total, terminated, truncated, _ = env.last()
        if terminated or truncated:
            print(f"{agent} finishes with return {total:+g}")
            env.step(None)
            continue
        print()
        print(env.render())
        action = random_action(observation["action_mask"], rng)
        print(f"> {agent} chooses: {env.unwrapped.action_to_string(agent, action)}")
        env.step(action)


def summarise(name: str, options: dict[str, Any], games: int, seed: int) -> None:
    env = snail_envs.make(name, **options)
    rng = random.Random(seed)
    wins: Counter[str] = Counter()
    lengths: list[int] = []
    truncated_games = 0
    started = time.perf_counter()
    for game in range(games):
        env.reset(seed=seed + game)
        for agent in env.agent_iter():
            observation, total, terminated, truncated, _ = env.last()
            if terminated or truncated:
                wins[agent] += total > 0
                truncated_games += truncated and agent == env.possible_agents[0]
                env.step(None)
                continue
            env.step(random_action(observation["action_mask"], rng))
        lengths.append(env.unwrapped.length.decisions)
        if (game + 1) % max(1, games // 20) == 0:
            print(f"\rplayed {game + 1}/{games} games", end="", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    print(file=sys.stderr)
    print(f"\n=== {games} games of {name} {options or ''} between random agents ===")
    print("seat       wins   share   95% CI")
    for agent in env.possible_agents:
        low, high = wilson_interval(wins[agent], games)
        print(f"{agent:<9} {wins[agent]:>5}   {wins[agent] / games:5.1%}   {low:5.1%}–{high:5.1%}")
    print(
        f"decisions per game: mean {np.mean(lengths):.1f}, min {min(lengths)}, "
        f"max {max(lengths)}; truncated games: {truncated_games}"
    )
    print(f"{sum(lengths) / elapsed:,.0f} decisions/s (random play through the AEC API)")
    print("(a share above 1/n for some seat can come from ties: every tied winner counts)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("env", type=env_name, choices=snail_envs.available_env_names())
    parser.add_argument("--games", type=int, default=1000, help="games to summarise")
    parser.add_argument("--seed", type=int, default=0)
    add_rule_options(parser)
    parser.add_argument("--no-show", action="store_true", help="skip the turn-by-turn game")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    options = dict(args.option)
    try:
        snail_envs.make(args.env, **options)  # bad options fail here, before any output
    except ValueError as problem:
        parser.error(str(problem))
    if not args.no_show:
        show_one_game(args.env, options, args.seed)
    summarise(args.env, options, args.games, args.seed)


if __name__ == "__main__":
    main()
