"""Cold start: seconds from a fresh interpreter to the first batched step and the first search move.

    python benchmarks/cold_start.py                       # every game
    python benchmarks/cold_start.py --only snap_v2 --out cold_start.json
    git worktree add ../before <commit>
    python benchmarks/cold_start.py --against ../before --rounds 3   # before and after, in turns

For each game, each start is a fresh Python process (`python -c`), run one at a time:

- `step, cold`: import `snail_envs.batched`, make a batch of 4 games, reset it and step it once
  with the random player's actions, numba's cache an empty temporary folder (`NUMBA_CACHE_DIR`),
  so that every kernel the step needs compiles;
- `step, warm`: the same again on the cache the cold start wrote (what every later start pays);
- `search, cold`: on another empty cache, the compiled search's first move (`search:64`, one
  round of 64 worlds) at the first decision of a reference game: the engine's kernels and the
  search's compile in it;
- `search, warm`: the same again on that cache.

Seconds are the child's CPU seconds (user + system, interpreter start included, as the OS counts
them for a finished child) and its wall seconds. The repository's own cache (`__pycache__` beside
the modules) is neither read nor written. With `--rounds N` every start is timed N times and the
table gives the medians; with `--against CHECKOUT` the starts of that checkout's snail_envs are
timed too, in turns with this one's (the first of each pair alternating), so that the load of a
shared machine touches both alike, and the table gives both and their ratio. With `--out` the
table is also written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import NamedTuple

STEP = (
    "import snail_envs.batched\n"
    "batch = snail_envs.batched.make({name!r}, 4)\n"
    "batch.reset(seed=0)\n"
    "batch.step(batch.random_actions())\n"
)
SEARCH = (
    "import snail_envs\n"
    "from snail_envs.agents import choose_action, make_agent\n"
    "from snail_envs.core.testing import deciding_agents\n"
    "env = snail_envs.make({name!r})\n"
    "env.reset(seed=0)\n"
    "search = make_agent('search:64', {name!r}, seed=0)\n"
    "choose_action(search, env, next(deciding_agents(env)))\n"
)
"""What each start runs, for the game `name`."""
CHECKOUT = Path(__file__).resolve().parents[1]
"""The checkout whose snail_envs the starts import, by default: this one."""


class Start(NamedTuple):
    """One fresh process's cost."""

    cpu: float
    wall: float


def timed_start(code: str, cache: str, checkout: Path = CHECKOUT) -> Start:
    """Run `code` in a fresh interpreter with numba's cache in `cache` and the snail_envs of
    `checkout`; its CPU and wall seconds."""
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": cache,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(checkout),
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=environment, cwd=cache, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return Start(cpu, wall)


def cold_and_warm(code: str, checkout: Path = CHECKOUT) -> tuple[Start, Start]:
    """`code` started twice on one fresh numba cache: cold (empty), then warm."""
    with tempfile.TemporaryDirectory() as cache:
        cold = timed_start(code, cache, checkout)
        warm = timed_start(code, cache, checkout)
    return cold, warm


def first_step(name: str, checkout: Path = CHECKOUT) -> tuple[Start, Start]:
    """The first batched step of game `name`, cold and warm."""
    return cold_and_warm(STEP.format(name=name), checkout)


def first_search_move(name: str, checkout: Path = CHECKOUT) -> tuple[Start, Start]:
    """The compiled search's first move in game `name`, cold and warm."""
    return cold_and_warm(SEARCH.format(name=name), checkout)


def starts(name: str, search: bool, checkout: Path) -> dict[str, tuple[Start, Start]]:
    """The first step (and with `search`, the first search move) of game `name`, cold and warm,
    with the snail_envs of `checkout`."""
    timed = {"step": first_step(name, checkout)}
    if search:
        timed["search"] = first_search_move(name, checkout)
    return timed


def in_turns(
    name: str, search: bool, checkouts: dict[str, Path], rounds: int
) -> dict[str, dict[str, list[tuple[Start, Start]]]]:
    """`starts` of every checkout, `rounds` times, the checkouts taking turns (the first of
    each round alternating): the starts by checkout and kind."""
    timed: dict[str, dict[str, list[tuple[Start, Start]]]] = {label: {} for label in checkouts}
    labels = list(checkouts)
    for round_ in range(rounds):
        for label in labels if round_ % 2 == 0 else labels[::-1]:
            for kind, pair in starts(name, search, checkouts[label]).items():
                timed[label].setdefault(kind, []).append(pair)
    return timed


def median_start(pairs: list[tuple[Start, Start]], warm: bool) -> Start:
    """The median CPU and wall seconds of the cold (or warm) starts of `pairs`."""
    chosen = [warm_start if warm else cold_start for cold_start, warm_start in pairs]
    return Start(
        statistics.median(start.cpu for start in chosen),
        statistics.median(start.wall for start in chosen),
    )


def cell(start: Start) -> str:
    return f"{start.cpu:.1f} s ({start.wall:.1f} s wall)"


HEADER = (
    "| game | step, cold | step, warm | search, cold | search, warm |\n|---|---:|---:|---:|---:|"
)
HEADER_AGAINST = (
    "| game | start | cold, against | cold, this | this/against | warm, against | warm, this |\n"
    "|---|---|---:|---:|---:|---:|---:|"
)
Medians = dict[str, dict[str, list[Start]]]
"""The median cold and warm start of each checkout ("this", "against") and kind of start."""


def table_rows(name: str, medians: Medians) -> list[str]:
    """Game `name`'s rows of the table: one row, or one a kind of start with `--against`."""
    if "against" not in medians:
        cells = [cell(start) for pair in medians["this"].values() for start in pair]
        return [f"| {name} | {' | '.join(cells)} |"]
    rows = []
    for kind, (cold, warm) in medians["this"].items():
        before_cold, before_warm = medians["against"][kind]
        rows.append(
            f"| {name} | {kind} | {cell(before_cold)} | {cell(cold)} | "
            f"{cold.cpu / before_cold.cpu:.2f} | {cell(before_warm)} | {cell(warm)} |"
        )
    return rows


def main() -> None:
    from snail_envs.batched import ENGINES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(ENGINES), help="only these games")
    parser.add_argument("--no-search", action="store_true", help="the batched step only")
    parser.add_argument("--rounds", type=int, default=1, help="times each start (medians)")
    parser.add_argument("--against", type=Path, help="another checkout, timed in turns")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        parser.error(f"{args.out} exists; give a new file for the results")
    if args.rounds < 1:
        parser.error(f"--rounds must be 1 or more; got {args.rounds}")
    checkouts = {"this": CHECKOUT}
    if args.against is not None:
        if not (args.against / "snail_envs" / "batched").is_dir():
            parser.error(f"{args.against} is not a checkout of snail_envs")
        checkouts = {"against": args.against.resolve(), "this": CHECKOUT}
        print(f"against: {checkouts['against']}\nthis:    {CHECKOUT}\n")
    print(HEADER if args.against is None else HEADER_AGAINST)
    rows = []
    for name in args.only or ENGINES:
        timed = in_turns(name, not args.no_search, checkouts, args.rounds)
        medians = {
            label: {
                kind: [median_start(pairs, warm) for warm in (False, True)]
                for kind, pairs in kinds.items()
            }
            for label, kinds in timed.items()
        }
        print("\n".join(table_rows(name, medians)), flush=True)
        row: dict[str, object] = {"game": name}
        for label, kinds in medians.items():
            row[label] = {
                kind: {"cold": cold._asdict(), "warm": warm._asdict()}
                for kind, (cold, warm) in kinds.items()
            }
        rows.append(row)
    rounds = f"medians of {args.rounds} runs, " if args.rounds > 1 else ""
    print(f"\nCPU seconds of each fresh process ({rounds}wall seconds in brackets)")
    if args.out is not None:
        versions = {"python": sys.version.split()[0], "numba": metadata.version("numba")}
        setup = {"rounds": args.rounds, "against": str(args.against) if args.against else None}
        args.out.write_text(json.dumps({**versions, **setup, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
