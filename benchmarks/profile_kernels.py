"""Where a batched engine's step goes: random play under Linux `perf`, each sample put in the
compiled function it fell in.

    python benchmarks/profile_kernels.py snailed_it_v0                      # 4,096 games, 8 s
    python benchmarks/profile_kernels.py snap_v2 --num-envs 16384 --compact-views
    python benchmarks/profile_kernels.py snailed_it_v0 --annotate update_observation

A child process steps the batch with `random_actions()` (`benchmarks/throughput.py`'s loop) for
`--seconds` of CPU time while `perf record` samples it (its CPU clock: hardware counters are not
needed, so it works in virtual machines). The kernels are compiled afresh in the child, into an
empty cache folder of its own (numba keeps the code of each function it links only when it
compiles, not when it loads from a cache): that costs the engine's cold compile, 7–28 CPU s,
before the timed part. The child writes where each of its compiled functions starts; each sample
goes to the function starting at or below it, named as the engine's module names it
(`snailed_it.update_observation`); a sample in a library function that compiled code called
(libc's `memset` for a slice or an array filled, numba's allocator) goes to that function with
its caller's name (perf unwinds each sample's stack by the libraries' call frame records, as far
as the first compiled function, whose code has none); the rest to "outside the kernels" (Python,
numpy). Functions compiled into their callers (`inlined`) count as their callers.

With `--annotate NAME`, the hottest instructions of the function whose name ends with NAME are
printed too, with their samples (the child dumps the code; `objdump` from binutils disassembles
it). A sample falls on the instruction that waited, or just after it.

Needs `perf` (Debian's `linux-perf`) and a `kernel.perf_event_paranoid` of 2 or less; the
script says so and stops where either is missing.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

READY = "ready"
DONE = "done"
OUTSIDE = "outside the kernels (Python, numpy)"
STACK_BYTES = 1024
"""The bytes of stack perf copies with each sample to unwind it: enough for a library function's
frame and its return address into compiled code."""
CODE_SPAN = 0x4000
"""The most bytes past a function's start that a sample is put in it (the last function's end)."""


def child(name: str, num_envs: int, compact: bool, seconds: float, folder: Path) -> None:
    """Step the batch (after a warm-up), having written where its functions start
    (`functions.txt`: address, mangled name) and their code (`code_<address>.bin`) to
    `folder`; print `READY` just before the timed part and `DONE` after it, then wait for a line
    on stdin (perf stops before the process ends: Python's collection of its objects at exit
    would otherwise be a tenth of the samples)."""
    import ctypes
    import time

    import snail_envs.batched

    batch = snail_envs.batched.make(name, num_envs, compact_views=compact)
    batch.reset(seed=0)
    for _ in range(20):
        batch.step(batch.random_actions())
    starts: dict[int, str] = {}
    for kernel in (batch.kernels.step, batch.kernels.random):
        for compiled in kernel.overloads.values():
            library = compiled.library
            for function in library._final_module.functions:
                if not function.is_declaration:
                    starts[library.get_pointer_to_function(function.name)] = function.name
    with open(folder / "functions.txt", "w") as out:
        for address, mangled in sorted(starts.items()):
            out.write(f"{address:x} {mangled}\n")
    for address in starts:
        (folder / f"code_{address:x}.bin").write_bytes(ctypes.string_at(address, CODE_SPAN))
    print(READY, flush=True)
    time.sleep(0.5)  # for perf to attach
    began = time.process_time()
    while time.process_time() - began < seconds:
        batch.step(batch.random_actions())
    print(DONE, flush=True)
    sys.stdin.readline()


def readable(mangled: str) -> str:
    """`module.function` of a numba function's mangled name (`_ZN10snail_envs7batched10snailed_it
    18update_observationB3v32...`: `snailed_it.update_observation`); the name itself where it is
    not one (numba's runtime: `NRT_incref`)."""
    match = re.match(r"_ZN(.*)", mangled)
    if not match:
        return mangled
    rest, parts = match.group(1), []
    while (length := re.match(r"(\d+)", rest)) is not None:
        size = int(length.group(1))
        start = len(length.group(1))
        parts.append(rest[start : start + size])
        rest = rest[start + size :]
    parts = [part for part in parts if part not in ("snail_envs", "batched", "cpython")]
    return ".".join(parts[-2:]) if parts else mangled


def sample_chains(data: Path) -> list[list[tuple[int, str]]]:
    """Each sample's frames as `perf script` unwinds them, the sampled instruction first: its
    address (a library's own offset for a library's code) and its symbol."""
    listing = subprocess.run(
        ["perf", "script", "-i", str(data), "-F", "ip,sym,dso"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    chains: list[list[tuple[int, str]]] = []
    chain: list[tuple[int, str]] = []
    for line in listing.splitlines():
        frame = re.match(r"\s*([0-9a-f]+) (.*) \(.*\)$", line)
        if frame:
            chain.append((int(frame.group(1), 16), frame.group(2)))
        elif chain:
            chains.append(chain)
            chain = []
    if chain:
        chains.append(chain)
    return chains


def attributed(chain: list[tuple[int, str]], starts: list[tuple[int, str]]) -> str:
    """The compiled function a sample fell in; or the library function it fell in, named with
    the compiled function that called it; or `OUTSIDE`."""
    address, symbol = chain[0]
    index = function_of(starts, address)
    if index is not None:
        return readable(starts[index][1])
    for caller_address, _ in chain[1:]:
        caller = function_of(starts, caller_address)
        if caller is not None:
            return f"{symbol}, called from {readable(starts[caller][1])}"
    return OUTSIDE


def function_of(starts: list[tuple[int, str]], address: int) -> int | None:
    """The index in `starts` of the function `address` falls in, None outside them all."""
    low, high = 0, len(starts)
    while low < high:
        middle = (low + high) // 2
        if starts[middle][0] <= address:
            low = middle + 1
        else:
            high = middle
    index = low - 1
    if index < 0:
        return None
    end = starts[index + 1][0] if index + 1 < len(starts) else starts[index][0] + CODE_SPAN
    return index if address < min(end, starts[index][0] + CODE_SPAN) else None


def annotate(
    folder: Path, starts: list[tuple[int, str]], counts: collections.Counter[int], wanted: str
) -> None:
    """The hottest instructions of the function whose name ends with `wanted`."""
    matches = [k for k, (_, mangled) in enumerate(starts) if readable(mangled).endswith(wanted)]
    if not matches:
        names = sorted({readable(mangled) for _, mangled in starts})
        print(f"--annotate: no function named {wanted}; the functions: {', '.join(names)}")
        return
    if shutil.which("objdump") is None:
        print("--annotate needs objdump (binutils): apt install binutils")
        return
    index = matches[0]
    start = starts[index][0]
    end = starts[index + 1][0] if index + 1 < len(starts) else start + CODE_SPAN
    listing = subprocess.run(
        [
            "objdump",
            "-D",
            "-b",
            "binary",
            "-mi386:x86-64",
            f"--adjust-vma=0x{start:x}",
            f"--stop-address=0x{min(end, start + CODE_SPAN):x}",
            str(folder / f"code_{start:x}.bin"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = []
    for line in listing.splitlines():
        found = re.match(r"\s*([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t?(.*)", line)
        if found:
            lines.append((int(found.group(1), 16), found.group(2).strip()))
    total = sum(counts[address] for address, _ in lines)
    print(f"\n{readable(starts[index][1])}: {total} samples, its hottest instructions:")
    hottest = sorted(lines, key=lambda line: -counts[line[0]])[:25]
    for address, text in sorted(hottest):
        if counts[address]:
            print(f"{counts[address]:7d}  +{address - start:5x}  {text}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", help="a batched engine: snap_v2, snailed_it_v0, ...")
    parser.add_argument("--num-envs", type=int, default=4096, help="games in the batch")
    parser.add_argument("--compact-views", action="store_true")
    parser.add_argument("--seconds", type=float, default=8.0, help="profiled CPU seconds")
    parser.add_argument("--top", type=int, default=20, help="functions listed")
    parser.add_argument("--annotate", metavar="NAME", help="also the hottest instructions of one")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.name, args.num_envs, args.compact_views, args.seconds, Path(args.child))
        return
    from snail_envs.batched import ENGINES

    if args.name not in ENGINES:
        parser.error(f"unknown engine {args.name!r}; the engines: {', '.join(ENGINES)}")
    if args.num_envs < 1 or args.seconds <= 0:
        parser.error("--num-envs and --seconds must be positive")
    if shutil.which("perf") is None:
        parser.error("needs Linux perf (Debian: apt install linux-perf)")
    paranoid = Path("/proc/sys/kernel/perf_event_paranoid")
    if paranoid.exists() and int(paranoid.read_text()) > 2:
        parser.error(f"perf may not sample this user's processes: {paranoid} is above 2")
    with tempfile.TemporaryDirectory(prefix="snail_envs-profile-") as temporary:
        folder = Path(temporary)
        environment = {**os.environ, "NUMBA_CACHE_DIR": str(folder / "cache")}
        command = [sys.executable, __file__, args.name, "--child", str(folder)]
        command += ["--num-envs", str(args.num_envs), "--seconds", str(args.seconds)]
        command += ["--compact-views"] if args.compact_views else []
        stepping = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=environment
        )
        assert stepping.stdin is not None and stepping.stdout is not None
        if stepping.stdout.readline().strip() != READY:
            sys.exit(f"the stepping process stopped before its batch was ready ({args.name})")
        data = folder / "perf.data"
        unwound = ["--call-graph", f"dwarf,{STACK_BYTES}"]
        recording = subprocess.Popen(
            ["perf", "record", "-q", "-o", str(data), "-p", str(stepping.pid), *unwound],
            stderr=subprocess.PIPE,
            text=True,
        )
        stepping.stdout.readline()  # DONE, or nothing where it stopped
        recording.send_signal(signal.SIGINT)
        _, errors = recording.communicate()
        stepping.stdin.close()
        stepping.wait()
        if not data.exists():
            sys.exit(f"perf recorded nothing: {errors.strip()[-300:]}")
        chains = sample_chains(data)
        starts = []
        for line in (folder / "functions.txt").read_text().splitlines():
            address, mangled = line.split(" ", 1)
            starts.append((int(address, 16), mangled))
        shares = collections.Counter(attributed(chain, starts) for chain in chains)
        counts = collections.Counter(chain[0][0] for chain in chains)
        total = sum(shares.values())
        label = f"{args.num_envs} games" + (", compact views" if args.compact_views else "")
        print(f"{args.name}, {label}: {total} samples, {args.seconds:g} CPU s of random play\n")
        print("| function | share of samples |")
        print("|---|---:|")
        for function, samples in shares.most_common(args.top):
            print(f"| {function} | {samples / total:.1%} |")
        if args.annotate:
            annotate(folder, starts, counts, args.annotate)


if __name__ == "__main__":
    main()
