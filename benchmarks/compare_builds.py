"""Two builds of the batched engines side by side: does a change make them slower?

    git worktree add ../before HEAD~1
    python benchmarks/compare_builds.py ../before .
    python benchmarks/compare_builds.py ../before . --only snailed_it_v0 --turns 60 --loads 5
    python benchmarks/compare_builds.py ../before . --batch-sizes --loads 6   # loads only

On a shared machine one build's rate can move by 2× from one run to the next, so rates taken
minutes apart cannot show a 5% change. Here both builds run at once, each in its own process
(its own checkout on `PYTHONPATH`, its own numba cache), pinned to the same core, and take turns:
`--seconds` of CPU time stepping random play (as `throughput.py`'s batched rows), then the
other's, `--turns` times each, the first of each pair alternating. Each pair of turns, taken one
after the other, gives a ratio of after to before; the table gives the median ratio and its
quartiles, and each build's median rate.

With `--loads N`, it also times the kernels' loads (`cold_start.first_step`: CPU seconds of a
fresh interpreter to the first step, cold, with an empty numba cache, then cached), N runs of
each build, interleaved, and gives the medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cold_start import first_step

from snail_envs.registry import GAMES

ENGINES = tuple(game.env_name for game in GAMES if game.engine)
READY = "ready"


def step_in_turns(name: str, num_envs: int, seconds: float) -> None:
    """The worker: steps random play in `name`'s batched engine for `seconds` of CPU time each
    time a line arrives on stdin, and answers with the decisions a second."""
    import snail_envs.batched

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    batch = snail_envs.batched.make(name, num_envs)
    batch.reset(seed=0)
    for _ in range(50):
        batch.step(batch.random_actions())
    print(READY, flush=True)
    for _ in sys.stdin:
        decisions = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            decisions += int((batch.seats >= 0).sum())
            batch.step(batch.random_actions())
        print(decisions / (time.process_time() - started), flush=True)


def environment(checkout: Path, cache: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "NUMBA_CACHE_DIR": str(cache),
        "OMP_NUM_THREADS": "1",
    }


def start_worker(checkout: Path, cache: Path, name: str, size: int, seconds: float):
    worker = subprocess.Popen(
        [sys.executable, __file__, "--worker", name, str(size), str(seconds)],
        env=environment(checkout, cache),
        cwd=tempfile.gettempdir(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdin is not None and worker.stdout is not None
    line = worker.stdout.readline().strip()
    if line != READY:
        worker.kill()
        raise SystemExit(f"{checkout}: the {name} worker did not start (see its error above)")
    return worker


def paired_rates(
    checkouts: dict[str, Path], caches: dict[str, Path], name: str, size: int, args
) -> dict[str, list[float]]:
    workers = {
        label: start_worker(checkout, caches[label], name, size, args.seconds)
        for label, checkout in checkouts.items()
    }
    rates: dict[str, list[float]] = {label: [] for label in workers}
    labels = list(workers)
    for turn in range(args.turns):
        for label in labels if turn % 2 == 0 else labels[::-1]:
            worker = workers[label]
            worker.stdin.write("go\n")  # type: ignore[union-attr]
            worker.stdin.flush()  # type: ignore[union-attr]
            rates[label].append(float(worker.stdout.readline()))  # type: ignore[union-attr]
    for worker in workers.values():
        worker.stdin.close()  # type: ignore[union-attr]
        worker.wait()
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", type=Path, help="a checkout of the build to compare against")
    parser.add_argument("after", type=Path, help="a checkout of the changed build")
    parser.add_argument("--only", nargs="*", choices=ENGINES, help="engines to include")
    parser.add_argument(
        "--batch-sizes", nargs="*", type=int, default=[1024, 4096], help="none: loads only"
    )
    parser.add_argument("--turns", type=int, default=30, help="turns of each build, per row")
    parser.add_argument("--seconds", type=float, default=0.25, help="CPU seconds a turn")
    parser.add_argument("--loads", type=int, default=0, help="load timings of each build")
    args = parser.parse_args()
    checkouts = {"before": args.before.resolve(), "after": args.after.resolve()}
    for label, checkout in checkouts.items():
        if not (checkout / "snail_envs" / "batched").is_dir():
            parser.error(f"{label}: {checkout} is not a checkout of snail_envs")
    if args.turns < 2:
        parser.error(f"--turns must be 2 or more; got {args.turns}")
    names = args.only or list(ENGINES)
    print(f"before: {checkouts['before']}\nafter:  {checkouts['after']}")
    if args.batch_sizes:
        print("\n| engine | games | before, decisions/s | after | after/before (median of pairs) |")
        print("|---|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as caches_root:
        caches = {label: Path(caches_root, label) for label in checkouts}
        for name in names:
            for size in args.batch_sizes:
                rates = paired_rates(checkouts, caches, name, size, args)
                ratios = [a / b for b, a in zip(rates["before"], rates["after"], strict=True)]
                low, middle, high = statistics.quantiles(ratios, n=4)
                print(
                    f"| {name} | {size} | {statistics.median(rates['before']):,.0f} | "
                    f"{statistics.median(rates['after']):,.0f} | "
                    f"{middle:.3f} (quartiles {low:.3f}–{high:.3f}) |"
                )
    if not args.loads:
        return
    print("\n| engine | cold load, before | after | cached load, before | after |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        loads: dict[str, list[tuple[float, float]]] = {label: [] for label in checkouts}
        for _ in range(args.loads):
            for label, checkout in checkouts.items():
                first, second = first_step(name, checkout)
                loads[label].append((first.cpu, second.cpu))
        cold = {label: statistics.median(c for c, _ in runs) for label, runs in loads.items()}
        cached = {label: statistics.median(c for _, c in runs) for label, runs in loads.items()}
        print(
            f"| {name} | {cold['before']:.2f} s | {cold['after']:.2f} s | "
            f"{cached['before']:.2f} s | {cached['after']:.2f} s |"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        step_in_turns(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        main()
