"""Cold start: seconds from a fresh interpreter to the first batched step and the first search move.

    python benchmarks/cold_start.py                       # every game
    python benchmarks/cold_start.py --only snap_v2 --out cold_start.json

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
the modules) is neither read nor written. With `--out` the table is also written as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def main() -> None:
    from snail_envs.batched import ENGINES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(ENGINES), help="only these games")
    parser.add_argument("--no-search", action="store_true", help="the batched step only")
    parser.add_argument("--out", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()
    if args.out is not None and args.out.exists():
        parser.error(f"{args.out} exists; give a new file for the results")
    rows = []
    print("| game | step, cold | step, warm | search, cold | search, warm |")
    print("|---|---:|---:|---:|---:|")
    for name in args.only or ENGINES:
        starts = {"step": first_step(name)}
        if not args.no_search:
            starts["search"] = first_search_move(name)
        row: dict[str, object] = {"game": name}
        cells = []
        for kind, (cold, warm) in starts.items():
            row[kind] = {"cold": cold._asdict(), "warm": warm._asdict()}
            cells += [f"{start.cpu:.1f} s ({start.wall:.1f} s wall)" for start in (cold, warm)]
        rows.append(row)
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print("\nCPU seconds of each fresh process (wall seconds in brackets)")
    if args.out is not None:
        versions = {"python": sys.version.split()[0], "numba": metadata.version("numba")}
        args.out.write_text(json.dumps({**versions, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
