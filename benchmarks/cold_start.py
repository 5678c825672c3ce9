"""Cold start: seconds from a fresh interpreter to the first batched step and the first search move.

    python benchmarks/cold_start.py                       # every game
    python benchmarks/cold_start.py --only snap_v2 --out cold_start.json
    git worktree add ../before <commit>
    python benchmarks/cold_start.py --against ../before --rounds 3   # before and after, in turns
    python benchmarks/cold_start.py --against ../before --rounds 6 --together  # at the same time

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
shared machine touches both alike, and the table gives both and their ratio. With `--together`
the two checkouts' starts of each round run at the same time, one on each of two cores (the cores
swapping each round), and the ratio is the median of the rounds' ratios: the load of a shared
machine, which moves a single start by 20–30% within minutes, then touches both starts of a pair
alike (a checkout against itself: ratios 0.97–1.02). With `--out` the table is also written as
JSON.
"""

from __future__ import annotations

import argparse
import json
import os
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


class Running(NamedTuple):
    """A start under way."""

    process: subprocess.Popen[bytes]
    started: float


def launch(code: str, cache: str, checkout: Path = CHECKOUT, core: int | None = None) -> Running:
    """Start `code` in a fresh interpreter with numba's cache in `cache` and the snail_envs of
    `checkout` (on CPU `core` alone, if given)."""
    environment = {
        **os.environ,
        "NUMBA_CACHE_DIR": cache,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": str(checkout),
    }
    command = [sys.executable, "-c", code]
    if core is not None:
        command = ["taskset", "--cpu-list", str(core), *command]
    return Running(subprocess.Popen(command, env=environment, cwd=cache), time.perf_counter())


def finish(running: dict[str, Running]) -> dict[str, Start]:
    """Wait for every start to end, each timed as it ends: its own CPU seconds (as the OS counts
    them) and wall seconds."""
    ended: dict[str, Start] = {}
    while True:
        for label, start in running.items():
            if label in ended:
                continue
            pid, status, usage = os.wait4(start.process.pid, os.WNOHANG)
            if pid == 0:  # still running
                continue
            start.process.returncode = os.waitstatus_to_exitcode(status)
            if start.process.returncode:
                raise subprocess.CalledProcessError(start.process.returncode, start.process.args)
            ended[label] = Start(
                usage.ru_utime + usage.ru_stime, time.perf_counter() - start.started
            )
        if len(ended) == len(running):
            return ended
        time.sleep(0.005)


def together(
    code: str, checkouts: dict[str, Path], cores: list[int | None]
) -> dict[str, tuple[Start, Start]]:
    """`code` started by every checkout at the same time, checkout k on `cores[k]` (None: any),
    twice on a fresh numba cache of its own: each checkout's cold start (the cache empty), then
    its warm one."""
    with tempfile.TemporaryDirectory() as folder:
        caches = {label: tempfile.mkdtemp(dir=folder) for label in checkouts}
        pairs: dict[str, list[Start]] = {label: [] for label in checkouts}
        for _ in ("cold", "warm"):
            running = {
                label: launch(code, caches[label], checkout, core)
                for (label, checkout), core in zip(checkouts.items(), cores, strict=True)
            }
            for label, start in finish(running).items():
                pairs[label].append(start)
    return {label: (cold, warm) for label, (cold, warm) in pairs.items()}


def cold_and_warm(code: str, checkout: Path = CHECKOUT) -> tuple[Start, Start]:
    """`code` started twice on one fresh numba cache: cold (empty), then warm."""
    return together(code, {"this": checkout}, [None])["this"]


def first_step(name: str, checkout: Path = CHECKOUT) -> tuple[Start, Start]:
    """The first batched step of game `name`, cold and warm."""
    return cold_and_warm(STEP.format(name=name), checkout)


def usable_cores() -> list[int]:
    """The CPUs this process may run on, where the OS says (Linux), else none."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def in_turns(
    name: str, search: bool, checkouts: dict[str, Path], rounds: int, at_once: bool = False
) -> dict[str, dict[str, list[tuple[Start, Start]]]]:
    """The first step (and with `search`, the first search move) of game `name`, cold and warm,
    with every checkout's snail_envs, `rounds` times: the checkouts taking turns (the first of
    each round alternating), or with `at_once` at the same time, one a core (the cores taking
    turns). The starts by checkout and kind."""
    timed: dict[str, dict[str, list[tuple[Start, Start]]]] = {label: {} for label in checkouts}
    labels = list(checkouts)
    codes = {"step": STEP} | ({"search": SEARCH} if search else {})
    for round_ in range(rounds):
        order = labels if round_ % 2 == 0 else labels[::-1]
        groups = [order] if at_once else [[label] for label in order]
        for kind, code in codes.items():
            for group in groups:
                cores: list[int | None] = [*usable_cores()[: len(group)]] if at_once else [None]
                ran = together(
                    code.format(name=name), {label: checkouts[label] for label in group}, cores
                )
                for label, pair in ran.items():
                    timed[label].setdefault(kind, []).append(pair)
    return timed


def paired_ratio(this: list[tuple[Start, Start]], against: list[tuple[Start, Start]]) -> float:
    """The median of the rounds' ratios of this checkout's cold CPU seconds to the other's."""
    return statistics.median(
        mine.cpu / theirs.cpu for (mine, _), (theirs, _) in zip(this, against, strict=True)
    )


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


def table_rows(name: str, medians: Medians, ratios: dict[str, float] | None = None) -> list[str]:
    """Game `name`'s rows of the table: one row, or one a kind of start with `--against` (the
    ratio of the medians, or the `ratios` given)."""
    if "against" not in medians:
        cells = [cell(start) for pair in medians["this"].values() for start in pair]
        return [f"| {name} | {' | '.join(cells)} |"]
    rows = []
    for kind, (cold, warm) in medians["this"].items():
        before_cold, before_warm = medians["against"][kind]
        ratio = ratios[kind] if ratios else cold.cpu / before_cold.cpu
        rows.append(
            f"| {name} | {kind} | {cell(before_cold)} | {cell(cold)} | "
            f"{ratio:.2f} | {cell(before_warm)} | {cell(warm)} |"
        )
    return rows


def main() -> None:
    from snail_envs.batched import ENGINES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(ENGINES), help="only these games")
    parser.add_argument("--no-search", action="store_true", help="the batched step only")
    parser.add_argument("--rounds", type=int, default=1, help="times each start (medians)")
    parser.add_argument("--against", type=Path, help="another checkout, timed in turns")
    parser.add_argument(
        "--together",
        action="store_true",
        help="with --against: both checkouts' starts at the same time, one a core",
    )
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        parser.error(f"{args.out} exists; give a new file for the results")
    if args.rounds < 1:
        parser.error(f"--rounds must be 1 or more; got {args.rounds}")
    if args.together and args.against is None:
        parser.error("--together times two checkouts at once: give the other with --against")
    if args.together and len(usable_cores()) < 2:
        parser.error("--together needs two cores to pin starts to; this process may use fewer")
    checkouts = {"this": CHECKOUT}
    if args.against is not None:
        if not (args.against / "snail_envs" / "batched").is_dir():
            parser.error(f"{args.against} is not a checkout of snail_envs")
        checkouts = {"against": args.against.resolve(), "this": CHECKOUT}
        print(f"against: {checkouts['against']}\nthis:    {CHECKOUT}\n")
    print(HEADER if args.against is None else HEADER_AGAINST)
    rows = []
    for name in args.only or ENGINES:
        timed = in_turns(name, not args.no_search, checkouts, args.rounds, args.together)
        medians = {
            label: {
                kind: [median_start(pairs, warm) for warm in (False, True)]
                for kind, pairs in kinds.items()
            }
            for label, kinds in timed.items()
        }
        ratios = None
        if args.together:
            ratios = {
                kind: paired_ratio(pairs, timed["against"][kind])
                for kind, pairs in timed["this"].items()
            }
        print("\n".join(table_rows(name, medians, ratios)), flush=True)
        row: dict[str, object] = {"game": name}
        if ratios is not None:
            row["paired_ratios"] = ratios
        for label, kinds in medians.items():
            row[label] = {
                kind: {"cold": cold._asdict(), "warm": warm._asdict()}
                for kind, (cold, warm) in kinds.items()
            }
        rows.append(row)
    rounds = f"medians of {args.rounds} runs, " if args.rounds > 1 else ""
    print(f"\nCPU seconds of each fresh process ({rounds}wall seconds in brackets)")
    if args.together:
        print("The two checkouts' starts at the same time, one a core; this/against: the median")
        print("of the rounds' ratios.")
    if args.out is not None:
        versions = {"python": sys.version.split()[0], "numba": metadata.version("numba")}
        setup = {
            "rounds": args.rounds,
            "against": str(args.against) if args.against else None,
            "together": args.together,
        }
        args.out.write_text(json.dumps({**versions, **setup, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
