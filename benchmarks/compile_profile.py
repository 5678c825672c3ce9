"""Where a cold start's seconds go: numba's compile time per function, and LLVM's share of it.

    python benchmarks/compile_profile.py snap_v2             # the first batched step
    python benchmarks/compile_profile.py snap_v2 --search    # the compiled search's first move
    NUMBA_OPT=0 python benchmarks/compile_profile.py snap_v2 # the floor without LLVM's optimiser

Runs what `cold_start.py` times (`STEP` or `SEARCH`) in this process, with this checkout's
snail_envs and numba's cache in an empty temporary folder, and listens to numba's compile events. A
function's own seconds are the CPU seconds of its compiles less those of the functions compiled
while it was (the functions it calls); LLVM's seconds are those spent holding numba's LLVM lock
(optimising and emitting machine code, for each function together with everything it calls, which
numba links in and optimises again). Functions compiled for more than one signature are listed with
the signatures' ends.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from cold_start import CHECKOUT, SEARCH, STEP


@dataclass
class CompileLog:
    """Compile seconds by function, measured from numba's events."""

    own_seconds: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    signatures: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    llvm_seconds: float = 0.0
    _open: list[list[Any]] = field(default_factory=list)
    _llvm_depth: int = 0
    _llvm_started: float = 0.0

    def compile_started(self, name: str, signature: str) -> None:
        self._open.append([name, time.process_time(), 0.0])
        self.signatures[name].append(signature)

    def compile_ended(self) -> None:
        name, started, nested = self._open.pop()
        seconds = time.process_time() - started
        self.own_seconds[name] += seconds - nested
        if self._open:
            self._open[-1][2] += seconds

    def llvm_started(self) -> None:
        if self._llvm_depth == 0:
            self._llvm_started = time.process_time()
        self._llvm_depth += 1

    def llvm_ended(self) -> None:
        self._llvm_depth -= 1
        if self._llvm_depth == 0:
            self.llvm_seconds += time.process_time() - self._llvm_started


def listen(log: CompileLog) -> None:
    """Send numba's compile and LLVM-lock events to `log`."""
    from numba.core import event

    class Compiles(event.Listener):
        def on_start(self, event: Any) -> None:
            function = event.data["dispatcher"].py_func
            log.compile_started(
                f"{function.__module__}.{function.__qualname__}", str(event.data["args"])
            )

        def on_end(self, event: Any) -> None:
            log.compile_ended()

    class Llvm(event.Listener):
        def on_start(self, event: Any) -> None:
            log.llvm_started()

        def on_end(self, event: Any) -> None:
            log.llvm_ended()

    event.register("numba:compile", Compiles())
    event.register("numba:llvm_lock", Llvm())


def report(log: CompileLog, total: float, top: int) -> None:
    compiled = sum(len(signatures) for signatures in log.signatures.values())
    print(f"CPU seconds to the first move: {total:.1f}")
    print(f"compiling: {sum(log.own_seconds.values()):.1f}, LLVM's share {log.llvm_seconds:.1f}")
    print(f"functions compiled: {len(log.signatures)}, signatures: {compiled}\n")
    print("| own seconds | signatures | function |\n|---:|---:|---|")
    ranked = sorted(log.own_seconds.items(), key=lambda item: -item[1])
    for name, seconds in ranked[:top]:
        print(f"| {seconds:.2f} | {len(log.signatures[name])} | {name} |")
    print("\ncompiled for several signatures (the end of each):")
    for name, signatures in log.signatures.items():
        if len(signatures) > 1 and name.startswith("snail_envs"):
            ends = "; ".join(signature[-60:] for signature in signatures)
            print(f"- {name}: {ends}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="an environment with a batched engine, e.g. snap_v2")
    parser.add_argument("--search", action="store_true", help="the search's first move")
    parser.add_argument("--top", type=int, default=15, help="functions listed")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["NUMBA_CACHE_DIR"] = cache  # before numba is imported
        sys.path.insert(0, str(CHECKOUT))  # this checkout's snail_envs, as cold_start.py's
        from snail_envs.batched import ENGINES

        if args.game not in ENGINES:
            parser.error(f"{args.game} has no batched engine; engines: {', '.join(ENGINES)}")
        log = CompileLog()
        listen(log)
        started = time.process_time()
        exec((SEARCH if args.search else STEP).format(name=args.game), {})
        report(log, time.process_time() - started, args.top)


if __name__ == "__main__":
    main()
