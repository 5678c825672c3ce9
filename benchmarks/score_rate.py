"""One agent's score rate against the heuristic, printed as it grows, chunk after chunk.

    python benchmarks/score_rate.py --env pedzace_slimaki_v0 --agent search --games 1000
    python benchmarks/score_rate.py --env snap_v2 --agent search:512 --preset noisy_sight
    python benchmarks/score_rate.py --env snailed_it_v0 --agent search -o num_players=3

The agent plays one seat, rotating from game to game, against the heuristic in every other seat
(`snail_envs.training.evaluate.score_against`): a win counts 1, a shared win ½, chance is one over
the number of seats. After every chunk (a multiple of the seat count) the line gives the games
so far, the score rate with its 95% Wilson interval, and the CPU time, so that a long
measurement can be read, or stopped, while it runs. The games of chunk k are seeded from
`--seed` + k × `--chunk`, and the agent is seeded anew for each chunk from `--agent-seed` and k,
so chunks are independent: `--part 2/3` plays chunks 1, 4, 7, ... alone, and three such
processes give together exactly the games of one (add their scores and games).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import yaml

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.training.evaluate import score_against

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def wilson(score: float, games: int) -> tuple[float, float]:
    """The 95% Wilson interval of a score rate over `games` games."""
    z = 1.96
    rate = score / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games**2)) / (1 + z * z / games)
    return centre - half, centre + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, choices=snail_envs.ENV_NAMES)
    parser.add_argument("--agent", required=True, help="a make_agent spec, such as search:512")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--agent-seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=60, help="games between two lines")
    parser.add_argument("--preset", help="a rule preset of configs/<game>/, such as noisy_sight")
    parser.add_argument("-o", "--option", action="append", default=[], help="name=value")
    parser.add_argument("--part", default="1/1", help="K/M: play every M-th chunk from the K-th")
    args = parser.parse_args()
    options: dict = {}
    if args.preset:
        folder = CONFIGS / args.env.rsplit("_v", 1)[0]
        options.update(yaml.safe_load((folder / f"{args.preset}.yaml").read_text()))
    for option in args.option:
        name, _, value = option.partition("=")
        options[name] = yaml.safe_load(value)
    agent = make_agent(args.agent, args.env, seed=args.agent_seed, options=options)
    part, parts = (int(number) for number in args.part.split("/"))
    chunk = args.chunk
    score, games, started = 0.0, 0, time.process_time()
    for number in range(part - 1, -(-args.games // chunk), parts):
        if hasattr(agent, "reset"):
            agent.reset(args.agent_seed * 1_000_003 + number)
        seed = args.seed + number * chunk
        rate, _, _ = score_against(args.env, agent, "heuristic", chunk, seed=seed, options=options)
        score, games = score + rate * chunk, games + chunk
        low, high = wilson(score, games)
        print(
            f"{args.agent} vs heuristic, {args.env} {options}, part {args.part}: {games} games, "
            f"score {score:g}, "
            f"{score / games:.1%} ({low:.1%}–{high:.1%}), "
            f"{time.process_time() - started:.0f} s CPU",
            flush=True,
        )


if __name__ == "__main__":
    main()
