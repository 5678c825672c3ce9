"""Calibration of `snail-exploit` on the solvable minis: the approximate best responses' gains
against each target beside the exact best response's.

    python benchmarks/calibration.py --budget 3m --games 1000
    python benchmarks/calibration.py --method search --budget 2m --games 1000 --out cal.json
    python benchmarks/calibration.py --policy ppo:runs/snap_v2-0-1 --only snap_v2 --out cal.json
    python benchmarks/calibration.py --exact --method search --search-iterations 400 --out cal.json

For every game with a mini (configs/<game>/mini.yaml, the preset `snail-exact` solves), for the
targets random, heuristic, a trained policy (`--policy`; without it, a short `snail-train` run on
the mini, `--policy-timesteps`) and the CFR+ policy (solved here to `--solve-to`), it computes
the exact best response's expected return against the target, seats rotating (`snail_envs.exact`:
the mini pays the margin, so this is the margin a best response can expect), and runs
`snail-exploit --method` (default `both`) against the same target on the mini: each method's
reply's mean margin over the same fresh games (`--games`, or as many as the search's half of
`--budget` fits), with its 95% interval; the search reply maximises the margin, which the mini
pays. A reply reaches the mark where its gain over the target's own return (the best response's
advantage over playing the target itself, as `snail_envs.exact` counts it) is at least 90% of
the exact one; the better of the two methods is the approximate best response. A mini the
batched learner env does not play (`snail-exploit` says why) has the search reply alone. CPU
seconds are
the cell's own (its `snail-exploit` run), on one core.

With `--exact` no game is sampled for the search reply: its expected margin against the target
is computed on the mini's tree (`snail_envs.exact.replies`: the search is asked at every
information state its play reaches, on a table played up to it), so a gain is measured without
the games' luck, only the search's own; the learned reply (trained as without `--exact`) is
tabulated and swept. Each target's own return and exact best response are then those of the
target as it plays on observations (the `cfr:PATH` agent for CFR+, a little more exploitable
than the solved policy).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from snail_envs.agents.ismcts import BRANCHES
from snail_envs.registry import GAME_FOLDERS, GAMES
from snail_envs.speed_tables import add_out_arguments, check_out
from snail_envs.training.exploit import (
    METHODS,
    ROLLOUTS,
    SEARCH_ENGINES,
    Job,
    exploit,
    unlearnable,
)

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
TARGETS = ("random", "heuristic", "trained", "cfr")
"""The targets of each mini: random and heuristic play, a trained policy, the CFR+ policy."""
MARK = 0.9
"""The share of the exact best response's gain the learned reply must reach."""


def minis() -> list[tuple[str, dict[str, Any]]]:
    """(env name, mini options) of every game that has a mini."""
    found = []
    for folder, game in zip(GAME_FOLDERS, GAMES, strict=True):
        path = CONFIGS / folder / "mini.yaml"
        if path.is_file():
            found.append((game.env_name, yaml.safe_load(path.read_text())))
    return found


def trained_policy(env_name: str, options: dict[str, Any], timesteps: int, folder: Path) -> str:
    """A `ppo:PATH` policy trained briefly on the mini against random and heuristic players (in
    the Python environment where the batched engine does not play the mini)."""
    from snail_envs.training.config import load_config
    from snail_envs.training.train import train

    overrides = [
        "stages=[ppo]",
        "anchor_coef=0",
        "keep_best=false",
        f"total_timesteps={timesteps}",
        "eval_games=0",
        "final_eval_games=0",
        f"env_options={json.dumps(options)}",
        f"output_dir={folder}",
        f"batched={json.dumps(unlearnable(env_name, options) is None)}",
    ]
    summary = train(load_config(env_name, None, overrides), progress_bar=False)
    return f"ppo:{summary['policy']}"


def exact_targets(
    env_name: str, targets: list[str], solve_to: float, cfr_path: Path
) -> tuple[dict[str, dict[str, float]], Any, Any]:
    """Each target's exact numbers (and the CFR+ policy's, saved at `cfr_path` as `cfr:PATH`):
    its own return and the best response's, seats rotating; and the mini's tree and game."""
    from snail_envs.agents import rule_options
    from snail_envs.agents.cfr import TabularPolicyAgent
    from snail_envs.exact import analyse, observation_policy

    report, tree, game = analyse(env_name, "mini", targets, solve_to=solve_to)
    assert report.cfr is not None and report.cfr_exploitability is not None
    rules = rule_options(game.setup.env_options)
    TabularPolicyAgent(report.game, rules, observation_policy(tree, game, report.cfr.average)).save(
        cfr_path, {"algorithm": "CFR+", "iterations": report.cfr.iterations}
    )
    numbers = {result.spec: result.exploitability for result in report.agents}
    numbers[f"cfr:{cfr_path}"] = report.cfr_exploitability
    found = {
        spec: {
            "own_return": sum(e.policy_returns) / len(e.policy_returns),
            "best_response": e.best_response_rotating,
        }
        for spec, e in numbers.items()
    }
    return found, tree, game


def exact_cell(job: Job, tree: Any, game: Any, folder: Path) -> dict[str, Any]:
    """The target's own return and exact best response as it plays on observations, and each
    method's reply's exact gain over that own return: the search reply asked on the tree, the
    learned reply (after `snail-exploit` trains it) tabulated."""
    from snail_envs.agents import make_agent
    from snail_envs.agents.ppo import PPOAgent, load_policy
    from snail_envs.exact import tabulate
    from snail_envs.exact.replies import reply_return
    from snail_envs.exact.solve import exploitability, head_to_head
    from snail_envs.training.exploit import search_reply

    target = tabulate(tree, game, make_agent(job.target, job.env, options=job.options))
    own = head_to_head(tree, target, target)
    best = exploitability(tree, target).best_response_rotating
    gains: dict[str, float] = {}
    asked = 0
    if job.method != "search":
        report = exploit(job, folder=folder, progress=False)
        chosen, file = report["learned_reply"], report["learned_reply_file"]
        reply = (
            PPOAgent(load_policy(Path(file), job.env))
            if file
            else make_agent(chosen, job.env, seed=job.seed, options=job.options)
        )
        gains["learned"] = head_to_head(tree, tabulate(tree, game, reply), target) - own
    if job.method != "learned":
        value, asked = reply_return(tree, game, search_reply(job), target, seed=job.seed)
        gains["search"] = value - own
    return {"own_return": own, "best_response": best, "exact_gains": gains, "asked": asked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", default="3m", help="snail-exploit's budget per target")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--method", default="both", choices=METHODS)
    parser.add_argument("--search-iterations", type=int, default=200)
    parser.add_argument("--search-rollout", default="target", choices=ROLLOUTS)
    parser.add_argument(
        "--search-engine",
        default="python",
        choices=SEARCH_ENGINES,
        help="the search reply's engine (default python: the IS-MCTS whose worlds the target's "
        "play weighs, which plays every target)",
    )
    parser.add_argument(
        "--search-branch-on",
        default="observations",
        choices=BRANCHES,
        help="what tells the Python search reply's tree branches apart (default observations)",
    )
    parser.add_argument("--policy", help="the trained target (default: one trained here)")
    parser.add_argument("--policy-timesteps", type=int, default=50_000)
    parser.add_argument("--solve-to", type=float, default=0.01)
    parser.add_argument("--only", nargs="*", help="the minis' env names to run (default: all)")
    add_out_arguments(parser, "also write the results as JSON")
    parser.add_argument(
        "--targets",
        nargs="*",
        default=list(TARGETS),
        choices=TARGETS,
        help="with --exact, the targets to run (default: all)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="compute each reply's gain on the mini's tree instead of over games",
    )
    args = parser.parse_args()
    check_out(parser, args)
    work = Path(tempfile.mkdtemp(prefix="calibration-"))
    results: dict[str, Any] = {}
    if args.exact:
        exact_main(args, work)
        return
    print("| game | target | exact BR gain | learned gain | search gain | best share | CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for env_name, options in minis():
        if args.only and env_name not in args.only:
            continue
        policy = args.policy or trained_policy(env_name, options, args.policy_timesteps, work)
        targets = ["random", "heuristic", policy]
        exact, _, _ = exact_targets(env_name, targets, args.solve_to, work / f"cfr-{env_name}.json")
        for target, numbers in exact.items():
            start = time.process_time()
            job = calibration_job(args, env_name, options, target)
            report = exploit(job, folder=work / f"{env_name}-{len(results)}", progress=False)
            gain = numbers["best_response"] - numbers["own_return"]
            gains = {
                name: [m["mean_margin"] - numbers["own_return"]]
                + [bound - numbers["own_return"] for bound in m["margin_ci95"]]
                for name, m in report["methods"].items()
            }
            share = max(g[0] for g in gains.values()) / gain if gain else float("nan")
            seconds = time.process_time() - start
            results[f"{env_name} {target}"] = {
                **numbers,
                "gains": gains,
                "share": share,
                "cpu_seconds": seconds,
                "report": report,
            }
            cells = [
                f"{g[0]:+.3f} ({g[1]:+.3f} to {g[2]:+.3f}), {report['methods'][m]['games']:,} games"
                if (g := gains.get(m))
                else "—"
                for m in ("learned", "search")
            ]
            print(
                f"| {env_name} mini | {target} | {gain:+.3f} | {' | '.join(cells)} "
                f"| {share:.0%} | {seconds:.0f} |",
                flush=True,
            )
            if args.out is not None:
                args.out.write_text(json.dumps(results, indent=2, default=str))


def calibration_job(
    args: argparse.Namespace, env_name: str, options: dict[str, Any], target: str
) -> Job:
    """The `snail-exploit` job of one cell: the command's method and search settings, the search
    alone where the learner env cannot play the mini, maximising the margin the mini pays."""
    return Job(
        env_name,
        target,
        options,
        parse(args.budget),
        games=args.games,
        method="search" if unlearnable(env_name, options) else args.method,
        search_iterations=args.search_iterations,
        search_rollout=args.search_rollout,
        search_engine=args.search_engine,
        search_value="margin",
        search_branch_on=args.search_branch_on,
    )


def exact_main(args: argparse.Namespace, work: Path) -> None:
    """`main` with `--exact`: each method's exact gain beside the exact best response's."""
    results: dict[str, Any] = {}
    print("| game | target | exact BR gain | learned gain | search gain | best share | CPU s |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for env_name, options in minis():
        if args.only and env_name not in args.only:
            continue
        targets = [t for t in ("random", "heuristic") if t in args.targets]
        if "trained" in args.targets:
            targets.append(
                args.policy or trained_policy(env_name, options, args.policy_timesteps, work)
            )
        cfr = work / f"cfr-{env_name}.json"
        _, tree, game = exact_targets(env_name, targets, args.solve_to, cfr)
        for target in [*targets, *[f"cfr:{cfr}"] * ("cfr" in args.targets)]:
            start = time.process_time()
            job = calibration_job(args, env_name, options, target)
            cell = exact_cell(job, tree, game, work / f"{env_name}-{len(results)}")
            gain = cell["best_response"] - cell["own_return"]
            gains = cell["exact_gains"]
            share = max(gains.values()) / gain if gain else float("nan")
            seconds = time.process_time() - start
            results[f"{env_name} {target}"] = {
                **cell,
                "share": share,
                "cpu_seconds": seconds,
                "method": job.method,
                "search_iterations": args.search_iterations,
                "search_rollout": args.search_rollout,
                "search_engine": args.search_engine,
                "search_branch_on": args.search_branch_on,
            }
            cells = [f"{gains[m]:+.4f}" if m in gains else "—" for m in ("learned", "search")]
            print(
                f"| {env_name} mini | {target} | {gain:+.4f} | {' | '.join(cells)} "
                f"| {share:.0%} | {seconds:.0f} |",
                flush=True,
            )
            if args.out is not None:
                args.out.write_text(json.dumps(results, indent=2, default=str))


def parse(budget: str) -> float:
    from snail_envs.training.exploit import parse_budget

    return parse_budget(budget)


if __name__ == "__main__":
    main()
