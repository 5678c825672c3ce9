"""How often the rollout search leaves the heuristic, and what it gains there.

    python benchmarks/search_deviations.py --games 5
    python benchmarks/search_deviations.py --games 200 --worlds 128 -o num_players=3 --out dev.json

Games of the Python environment are played by the heuristic in every seat. At every decision with
a choice of one measured seat (rotating from game to game) the rollout search
(`snail_envs.agents.rollout_search`) compares the legal actions in the same `--worlds` drawn
worlds; it leaves the heuristic where an action's mean paired advantage over the heuristic's
choice exceeds `--z` standard errors. The line printed gives the share of decisions where it
leaves (with its 95% Wilson interval) and the mean advantage there, in margin points (with
`--value win`, in wins: the game's result, ½ for a shared lead), with its
95% interval. That advantage is the one that made the search leave, and so is biased upwards
(the winner's curse); the same deviations measured again in `--worlds` fresh worlds give an
unbiased mean beside it. CPU seconds are the process's own. These are the labels of the
`advantage` training stage (`snail_envs.training.advantage`): the share says how many of its
states teach something, the gain what they teach.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import yaml

import snail_envs
from snail_envs.agents import choose_action, make_agent
from snail_envs.agents.rollout_search import SEARCHABLE, VALUES, RolloutSearchAgent
from snail_envs.core.stats import mean_interval, wilson_interval
from snail_envs.core.testing import deciding_agents
from snail_envs.speed_tables import add_out_arguments, check_out

UNITS = {"margin": "margin points", "win": "wins"}
"""The unit of an advantage, by what the rollouts are valued by."""


def deviations(
    env_name: str,
    options: dict[str, Any],
    games: int,
    worlds: int,
    z: float,
    seed: int,
    value: str = "margin",
) -> dict[str, Any]:
    """The measured decisions and the search's deviations from the heuristic among them, each
    with its mean advantage as measured and as measured again in fresh worlds."""
    heuristic = make_agent("heuristic", env_name, options=options)
    search = RolloutSearchAgent(env_name, worlds=worlds, z=z, value=value, seed=seed)
    env = snail_envs.make(env_name, **options)
    decisions, measured, fresh = 0, [], []
    for game in range(games):
        env.reset(seed=seed + game)
        measured_agent = env.possible_agents[game % len(env.possible_agents)]
        for agent in deciding_agents(env):
            legal = env.unwrapped.legal_actions(agent)
            if agent == measured_agent and len(legal) > 1:
                decisions += 1
                compared = search.compare(env.unwrapped, agent, legal)
                choice = compared.choice(z)
                if choice != compared.heuristic:
                    measured.append(float(compared.advantages().mean[legal.index(choice)]))
                    again = search.compare(env.unwrapped, agent, legal).advantages()
                    fresh.append(float(again.mean[legal.index(choice)]))
            env.step(choose_action(heuristic, env, agent))
    return {"decisions": decisions, "advantages": measured, "fresh_advantages": fresh}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="snailed_it_v0", choices=SEARCHABLE)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--worlds", type=int, default=128)
    parser.add_argument("--z", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--value", default="margin", choices=VALUES, help="what a rollout is valued by"
    )
    parser.add_argument("-o", "--option", action="append", default=[], help="name=value")
    add_out_arguments(parser, "write the results as JSON here")
    args = parser.parse_args()
    check_out(parser, args)
    options = {}
    for option in args.option:
        name, _, value = option.partition("=")
        options[name] = yaml.safe_load(value)
    started = time.process_time()
    found = deviations(args.env, options, args.games, args.worlds, args.z, args.seed, args.value)
    seconds = time.process_time() - started
    count, decisions = len(found["advantages"]), found["decisions"]
    share = count / decisions if decisions else float("nan")
    low, high = wilson_interval(count, decisions)
    gain = mean_interval(found["advantages"])
    fresh = mean_interval(found["fresh_advantages"])
    print(
        f"{args.env} {options}, {args.games} games, {args.worlds} worlds, z {args.z:g}: the "
        f"search leaves the heuristic at {count} of {decisions} decisions, {share:.1%} "
        f"({low:.1%}–{high:.1%}); mean advantage there {gain[0]:+.3f} {UNITS[args.value]} "
        f"({gain[1]:+.3f} to {gain[2]:+.3f}), in fresh worlds {fresh[0]:+.3f} "
        f"({fresh[1]:+.3f} to {fresh[2]:+.3f}); {seconds:.0f} CPU s",
        flush=True,
    )
    if args.out is not None:
        results = {
            **{"env": args.env, "options": options, "games": args.games, "worlds": args.worlds},
            **{"z": args.z, "seed": args.seed, "value": args.value},
            **{"decisions": decisions, "deviations": count},
            "share": finite(share),
            "share_ci95": [low, high],
            "mean_advantage": finite(gain[0]),
            "mean_advantage_ci95": [finite(gain[1]), finite(gain[2])],
            "fresh_mean_advantage": finite(fresh[0]),
            "fresh_mean_advantage_ci95": [finite(fresh[1]), finite(fresh[2])],
            "cpu_seconds": seconds,
        }
        args.out.write_text(json.dumps(results, indent=1) + "\n")


def finite(value: float) -> float | None:
    """`value`, or None (JSON's null) where too few decisions leave it unmeasured."""
    return value if math.isfinite(value) else None


if __name__ == "__main__":
    main()
