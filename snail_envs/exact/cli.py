"""`snail-exact`: exact numbers of agents on a game small enough to solve.

    snail-exact --env snap --preset mini --agent heuristic --agent random
    snail-exact --env snap --preset mini --solve cfr_snap.json   # then: --agent cfr:cfr_snap.json

Prints the tree's size and, for each agent spec (any spec of `snail_envs.agents.make_agent`
that acts on observations), its exploitability, a best response's expected return against it
(seats rotating) and its expected return against the CFR+ policy. `--solve PATH` runs CFR+ to
`--target` exploitability (or `--max-seconds` CPU seconds) and saves the policy, projected on
observations, as a `cfr:PATH` agent (JSON; an existing file is never overwritten). A tree larger
than `--max-nodes` stops with one line naming its size. Needs the `openspiel` extra.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from snail_envs.exact.tree import DEFAULT_MAX_NODES


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="snail-exact", description=__doc__.split("\n")[0])
    parse.add_argument("--env", required=True, help="the environment (or its game folder)")
    parse.add_argument("--preset", default="mini", help="a preset of configs/<game>/ (mini)")
    parse.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help='an env option over the preset\'s (a JSON value: 3, true, "text", [1, 2])',
    )
    parse.add_argument("--agent", action="append", default=[], help="an agent spec (repeatable)")
    parse.add_argument("--solve", metavar="PATH", help="run CFR+ and save its policy here")
    parse.add_argument(
        "--target", type=float, default=0.01, help="CFR+ stops at this exploitability"
    )
    parse.add_argument("--max-seconds", type=float, default=600.0, help="CFR+ CPU time limit")
    parse.add_argument("--max-nodes", type=int, default=DEFAULT_MAX_NODES, help="tree size limit")
    parse.add_argument("--json", metavar="PATH", help="also write the numbers as JSON here")
    return parse


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        return _run(arguments)
    except (ValueError, FileExistsError, ImportError) as error:
        print(f"snail-exact: {error}", file=sys.stderr)
        return 2


def _run(arguments: argparse.Namespace) -> int:
    from snail_envs.agents.cfr import TabularPolicyAgent
    from snail_envs.exact import analyse, observation_policy

    for path in (arguments.solve, arguments.json):
        if path and Path(path).exists():
            raise FileExistsError(f"{path} exists; choose another path or delete it first")
    if not arguments.agent and not arguments.solve:
        raise ValueError("nothing to do: give --agent SPEC (repeatable) and/or --solve PATH")
    report, tree, game = analyse(
        arguments.env,
        arguments.preset,
        arguments.agent,
        options=_options(arguments.option),
        solve_to=arguments.target if arguments.solve else None,
        max_seconds=arguments.max_seconds,
        max_nodes=arguments.max_nodes,
    )
    print(report.table())
    if arguments.solve and report.cfr is not None and report.cfr_exploitability is not None:
        agent = TabularPolicyAgent(
            report.game,
            _rule_options(game.setup.env_options),
            observation_policy(tree, game, report.cfr.average),
        )
        agent.save(
            arguments.solve,
            {
                "algorithm": "CFR+",
                "iterations": report.cfr.iterations,
                "exploitability": report.cfr_exploitability.exploitability,
                "reward": game.setup.env_options.get("reward", "winlose"),
            },
        )
        print(f"saved the CFR+ policy as cfr:{arguments.solve}")
    if arguments.json:
        Path(arguments.json).write_text(json.dumps(_as_json(report), indent=1))
    return 0


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, separator, text = pair.partition("=")
        if not separator:
            raise ValueError(f"--option takes NAME=VALUE; got {pair!r}")
        try:
            options[name] = json.loads(text)
        except json.JSONDecodeError:
            options[name] = text
    return options


def _rule_options(options: dict[str, Any]) -> dict[str, Any]:
    from snail_envs.agents import rule_options

    return rule_options(options)


def _as_json(report: Any) -> dict[str, Any]:
    return {
        "game": report.game,
        "options": report.options,
        "nodes": report.nodes,
        "infosets": report.infosets,
        "build_seconds": report.build_seconds,
        "agents": [
            {
                "agent": result.spec,
                "exploitability": result.exploitability.exploitability,
                "best_response_rotating": result.exploitability.best_response_rotating,
                "against_cfr": result.against_cfr,
                "seconds": result.seconds,
            }
            for result in report.agents
        ],
        "cfr": None
        if report.cfr is None
        else {
            "iterations": report.cfr.iterations,
            "exploitability": report.cfr.progress[-1][1] if report.cfr.progress else None,
            "seconds": report.cfr_seconds,
            "progress": report.cfr.progress,
        },
    }


def script() -> None:
    sys.exit(main())


if __name__ == "__main__":
    script()
