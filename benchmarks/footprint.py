"""What using the library costs besides speed: import time and memory per environment.

    python benchmarks/footprint.py

- `import snail_envs`: wall time in a fresh interpreter (median of 5), and whether it pulled in
  torch, PIL, pygame or numba (it must not: those load only when used).
- Memory: bytes allocated by the first environment after `reset` (the environment with its game,
  and the one-time costs of a first environment: imported modules, spaces, caches); the steady
  state, what each further environment holds after `reset` once one exists (the mean of 50),
  next to PettingZoo's `connect_four_v3` measured the same way; and one `copy.deepcopy` of an
  environment mid-game — what a search agent pays per simulated world.
"""

from __future__ import annotations

import copy
import random
import statistics
import subprocess
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import snail_envs
from snail_envs.core.testing import play_steps

HEAVY = ("torch", "PIL", "pygame", "numba", "matplotlib")


def import_cost() -> tuple[float, list[str]]:
    code = (
        "import sys, time; t = time.perf_counter(); import snail_envs; "
        "d = time.perf_counter() - t; "
        f"print(d, [m for m in {HEAVY!r} if m in sys.modules])"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout.split(" ", 1)
        for _ in range(5)
    ]
    return statistics.median(float(r[0]) for r in runs), eval(runs[0][1])


def allocated(build: object) -> tuple[int, object]:
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    made = build()  # type: ignore[operator]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return after - before, made


STEADY_COUNT = 50


def steady_state(make_env: Callable[[], Any]) -> int:
    """Bytes each of `STEADY_COUNT` more environments holds after `reset`, once one exists."""
    make_env().reset(seed=0)

    def build() -> list[Any]:
        environments = [make_env() for _ in range(STEADY_COUNT)]
        for seed, environment in enumerate(environments):
            environment.reset(seed=seed)
        return environments

    size, _ = allocated(build)
    return size // STEADY_COUNT


def memory(name: str) -> tuple[int, int]:
    def fresh() -> object:
        env = snail_envs.make(name)
        env.reset(seed=0)
        return env

    size, env = allocated(fresh)
    for _ in zip(range(10), play_steps(env, random.Random(0)), strict=False):
        pass
    copy_size, _ = allocated(lambda: copy.deepcopy(env))
    return size, copy_size


def main() -> None:
    seconds, heavy = import_cost()
    print(f"import snail_envs: {seconds * 1000:.0f} ms; heavy modules imported: {heavy or 'none'}")
    from pettingzoo.classic import connect_four_v3

    reference = steady_state(connect_four_v3.env)
    print(
        "\n| game | first environment (after reset) | each further environment "
        "| × connect_four_v3 | deepcopy (mid-game) |"
    )
    print("|---|---:|---:|---:|---:|")
    print(f"| pettingzoo connect_four_v3 | | {reference:,} | 1.0× | |")
    for name in snail_envs.available_env_names():
        size, copy_size = memory(name)
        steady = steady_state(lambda name=name: snail_envs.make(name))
        print(f"| {name} | {size:,} | {steady:,} | {steady / reference:.1f}× | {copy_size:,} |")


if __name__ == "__main__":
    main()
