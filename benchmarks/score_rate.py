"""One agent's score rate against an opponent (the heuristic by default), printed as it grows,
chunk after chunk, with the control on the same games.

    python benchmarks/score_rate.py --env pedzace_slimaki_v0 --agent search --games 1000
    python benchmarks/score_rate.py --env snap_v2 --agent search:512 --preset noisy_sight
    python benchmarks/score_rate.py --env snailed_it_v0 --agent search -o num_players=3
    python benchmarks/score_rate.py --env snail_sprint_v0 --agent ppo --control heuristic \\
        --seed 20000000 --chunk 100 --out docs/data/strength/shipped/snail_sprint_v0.json
    python benchmarks/score_rate.py --env snail_sprint_v0 --agent ppo --control heuristic \\
        --opponent ppo:benchmarks/previous_policies/snail_sprint_v0.pt --seed 20000000

The agent plays one seat, rotating from game to game, against `--opponent` in every other seat
(`snail_envs.training.evaluate.score_against`): a win counts 1, a shared win ½, chance is one over
the number of seats. After every chunk (a multiple of the seat count) the line gives the games
so far, the score rate with its 95% Wilson interval, and the CPU time, so that a long
measurement can be read, or stopped, while it runs. The games of chunk k are seeded from
`--seed` + k × `--chunk`, and the agent is seeded anew for each chunk from `--agent-seed` and k,
so chunks are independent: `--part 2/3` plays chunks 1, 4, 7, ... alone, and three such
processes give together exactly the games of one (add their scores and games).

`--control AGENT` then plays AGENT in the same seat of the same games, seeded alike: the score
the luck of these deals gives a known player (the heuristic's own score on the same seeds).
`--out FILE` writes the result as JSON (`snail_envs.score_rates`: the scores, the CPU seconds,
the trained agents' files with their SHA-256, the command and versions), from which the docs
site renders its table; an existing FILE is kept unless `--overwrite`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import yaml

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.agents.ppo import CHECKPOINTS
from snail_envs.score_rates import rate_text
from snail_envs.speed_tables import add_out_arguments, check_out, provenance
from snail_envs.training import config
from snail_envs.training.evaluate import PACKAGES, score_against, trained_file

ROOT = Path(__file__).resolve().parents[1]
"""The repository, whose files a record names by their path from here."""


def measure(
    spec: str, agent: Any, args: argparse.Namespace, options: dict[str, Any]
) -> tuple[float, float]:
    """The total score of `agent` (made from `spec`) over the part's chunks, each line printed
    as a chunk ends, and the CPU seconds it took."""
    part, parts = (int(number) for number in args.part.split("/"))
    chunk = args.chunk
    score, games, started = 0.0, 0, time.process_time()
    for number in range(part - 1, -(-args.games // chunk), parts):
        if hasattr(agent, "reset"):
            agent.reset(args.agent_seed * 1_000_003 + number)
        seed = args.seed + number * chunk
        rate, _, _ = score_against(
            args.env, agent, args.opponent, chunk, seed=seed, options=options
        )
        score, games = score + rate * chunk, games + chunk
        print(
            f"{spec} vs {args.opponent}, {args.env} {options}, part {args.part}: {games} games, "
            f"score {score:g}, {rate_text(score, games)}, "
            f"{time.process_time() - started:.0f} s CPU",
            flush=True,
        )
    return score, time.process_time() - started


def rule_options(
    env_name: str, preset: str | None, settings: list[str], parser: argparse.ArgumentParser
) -> dict[str, Any]:
    """The rule options of the games: the preset's (a rule preset of configs/<game>/), then
    each `name=value` of `settings`; a preset that is not there is a parser error naming those
    that are."""
    options: dict[str, Any] = {}
    if preset:
        presets = {path.stem: path for path in config.rule_presets(env_name.rsplit("_v", 1)[0])}
        if preset not in presets:
            parser.error(f"--preset {preset}: no such rule preset; presets: {', '.join(presets)}")
        options.update(yaml.safe_load(presets[preset].read_text()))
    for setting in settings:
        name, equals, value = setting.partition("=")
        if not equals:
            parser.error(f"-o {setting}: give name=value")
        options[name] = yaml.safe_load(value)
    return options


def recorded_name(file: Path) -> str:
    """How a record names a trained agent's file: a shipped checkpoint by its name, another file
    of the repository (such as `benchmarks/previous_policies/`) by its path from the root."""
    if file.parent == CHECKPOINTS.resolve():
        return file.name
    try:
        return file.relative_to(ROOT).as_posix()
    except ValueError:
        return file.name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", required=True, choices=snail_envs.ENV_NAMES)
    parser.add_argument("--agent", required=True, help="a make_agent spec, such as search:512")
    parser.add_argument("--opponent", default="heuristic", help="every other seat's agent")
    parser.add_argument("--control", help="an agent to play in the same seat of the same games")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=100_000)
    parser.add_argument("--agent-seed", type=int, default=1)
    parser.add_argument("--chunk", type=int, default=60, help="games between two lines")
    parser.add_argument("--preset", help="a rule preset of configs/<game>/, such as noisy_sight")
    parser.add_argument("-o", "--option", action="append", default=[], help="name=value")
    parser.add_argument("--part", default="1/1", help="K/M: play every M-th chunk from the K-th")
    add_out_arguments(parser, "also write the result as JSON")
    args = parser.parse_args()
    check_out(parser, args)
    if args.out is not None and args.part != "1/1":
        parser.error("--out records whole runs: give it without --part")
    if args.games % args.chunk:
        parser.error(f"--games {args.games} is not a multiple of --chunk {args.chunk}")
    options = rule_options(args.env, args.preset, args.option, parser)
    specs = [args.agent, *filter(None, [args.control])]
    try:
        make_agent(args.opponent, args.env, seed=args.agent_seed, options=options)
        agents = [
            make_agent(spec, args.env, seed=args.agent_seed, options=options) for spec in specs
        ]
    except (ValueError, OSError) as error:
        parser.error(str(error))
    score, cpu_seconds = measure(args.agent, agents[0], args, options)
    control = None
    if args.control:
        control_score, control_seconds = measure(args.control, agents[1], args, options)
        control = {"agent": args.control, "score": control_score, "cpu_seconds": control_seconds}
    if args.out is None:
        return
    files = {}
    for spec in dict.fromkeys([args.agent, args.opponent, *filter(None, [args.control])]):
        file = trained_file(spec, args.env, options)
        if file is not None:
            files[spec] = {
                "file": recorded_name(file),
                "sha256": hashlib.sha256(file.read_bytes()).hexdigest(),
            }
    record = {
        "env": args.env,
        "options": options,
        "preset": args.preset,
        "overrides": rule_options(args.env, None, args.option, parser),
        "agent": args.agent,
        "opponent": args.opponent,
        "seed": args.seed,
        "agent_seed": args.agent_seed,
        "chunk": args.chunk,
        "games": args.games,
        "score": score,
        "cpu_seconds": cpu_seconds,
        "control": control,
        "agent_files": files,
        "provenance": provenance(PACKAGES),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
