"""The speed benchmarks' records and the tables printed from them.

`benchmarks/throughput.py`, `benchmarks/train_speed.py`, `benchmarks/train_ceiling.py`,
`benchmarks/train_parity.py` and `benchmarks/search_speed.py` build their results into a record
here, print its tables (`throughput_markdown`, `training_speed_markdown`,
`train_ceiling_markdown`, `train_parity_markdown`, `search_speed_markdown`) and, with `--out
FILE`, write the record as JSON; the docs site renders the stored JSON with the same functions
(docs/hooks/results_tables.py), so that a page's table is the one the benchmark printed. Every
record carries its `provenance`: the command line, the date, the versions of Python, snail_envs
and the packages that were installed, the CPU's model, whether it runs AVX-512 (`has_avx512`)
and the number of CPUs.

A throughput record (`throughput_record`), rates in decisions per second of CPU time:

    {"seconds": 2.0, "rounds": 3, "reference": "pettingzoo connect_four_v3 (AEC)",
     "batch_sizes": [1024, 4096], "batched_engines": ["snap_v1", ...],
     "rates": {"<entry>": [<a rate a round>, ...], ...},
     "compile_cpu_seconds": {"snap_v1": {"cold": 13.4, "cached": 0.6}, ...},
     "provenance": {...}}

`rates` holds every entry in the order of the run, the batched ones under the labels
`batched_label` (with compact views, where the run measured them), `pgx_label` and `toy_label`
give them (no pgx entries where pgx was not installed); `batched_engines` is empty where numba
was not, and `compile_cpu_seconds` where the compile times were not measured.

A training-speed record (`training_speed_record`), rates in learner timesteps a second:

    {"steps": 50000, "rounds": 2, "overrides": [],
     "games": {"snail_sprint_v0": {
         "timesteps_per_second": {"sb3": [...], "defaults": [...], "config": [...]},
         "median": {"sb3": 2036.0, "defaults": 17604.0, "config": 17966.0},
         "ratio": {"defaults": 8.65, "config": 8.82}}, ...},
     "provenance": {...}}

The settings (`TRAINING_SETTINGS`): `sb3`, MaskablePPO at Stable-Baselines3's defaults;
`defaults`, snail-train's ppo stage with `TrainConfig`'s defaults; `config`, the same with the
game config's settings. A ratio is a setting's median over SB3's.

A search-speed record (`benchmarks/search_speed.py --out`), rates per second of CPU time, each
game's pair (iterations, simulated decisions):

    {"decisions": 4, "python_iterations": 100, "compiled_iterations": 2048,
     "games": {"snail_sprint_v0": {"python": [430.0, 8300.0], "compiled": [39600.0, 746532.0]},
               ...},
     "openspiel_leduc": 2900.0 or null, "provenance": {...}}

A training-ceiling record (`train_ceiling_record`), of `benchmarks/train_ceiling.py`: the unit
costs of a plain-torch PPO (`UNIT_COSTS`, CPU seconds a call) under snail-train's default
settings, the ceiling they make (`ceiling_rate`), the rate of a plain-torch loop of the same
functions (`plain_loop`) and snail-train's own rate, in learner timesteps a CPU second:

    {"steps": 50000, "rounds": 2,
     "settings": {"n_envs": 64, "n_steps": 64, "batch_size": 1024, "n_epochs": 4,
                  "net_arch": [128, 128], "activation": "Tanh"},
     "games": {"snail_sprint_v0": {
         "unit_seconds": {"env_step": [...], "forward": [...], "update": [...], "gae": [...]},
         "plain_loop": [...], "snail_train": [...],
         "median": {"env_step": 9.1e-05, ..., "ceiling": 10100.0, "plain_loop": 9300.0,
                    "snail_train": 6700.0},
         "ratio": 0.66, "loop_ratio": 0.92, "ratio_to_loop": 0.72}, ...},
     "provenance": {...}}

The medians are each cost's and each rate's over the rounds; the ceiling is that of the median
costs; `ratio` is snail-train's median over the ceiling, `loop_ratio` the loop's, and
`ratio_to_loop` snail-train's over the loop's.

A parity record (`train_parity_record`), of `benchmarks/train_parity.py`: snail-train's ppo stage
trained from a fresh network under each setting (overrides of the game's plain config), every
checkpoint's score rate against the heuristic with its 95% interval, and the control (the
heuristic's own score on the same games):

    {"timesteps": 4000000, "every": 250000, "games_a_point": 500,
     "games": {"snail_sprint_v0": {
         "control": [0.513, 0.469, 0.557],
         "runs": {"": {"0": [{"timesteps": 253952, "seconds": 19.4,
                              "score": [0.31, 0.27, 0.35]}, ...]},
                  "n_epochs=1": {...}, ...}}, ...},
     "provenance": {...}}

A point's `seconds` are the ppo stage's own when its checkpoint was written. Parity
(`parity_point`) is the first point whose interval reaches the control's score; the level every
run of a game reached (`common_level`) is the lowest of its runs' best scores.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import importlib.metadata
import os
import platform
import shlex
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import snail_envs

CPU_INFO = Path("/proc/cpuinfo")
TRAINING_SETTINGS = ("sb3", "defaults", "config")
"""The settings a training-speed record times each game under, SB3's defaults first."""
UNIT_COSTS = ("env_step", "forward", "update", "gae")
"""A plain-torch PPO's unit costs, CPU seconds each: a step of the learner vector env (`n_envs`
games), a forward of the actor and critic on its observations with an action sampled, a
minibatch update (`batch_size` samples), and GAE over a rollout (`n_steps` × `n_envs`)."""


def cpu_info(key: str) -> str | None:
    """The first value of `key` in /proc/cpuinfo, None where it is missing or not readable."""
    with contextlib.suppress(OSError):
        for line in CPU_INFO.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == key:
                return value.strip()
    return None


def cpu_model() -> str:
    """The CPU's model: the first `model name` of /proc/cpuinfo where it is readable (Linux),
    else `platform.processor()` (which may be empty)."""
    return cpu_info("model name") or platform.processor()


def has_avx512() -> bool | None:
    """Whether the CPU runs AVX-512 (the `avx512f` flag of /proc/cpuinfo), None where that file
    is not readable: the two kinds of machine CI and developers get differ by it, and so do the
    batched engines' ratios to pgx."""
    flags = cpu_info("flags")
    return None if flags is None else "avx512f" in flags.split()


def machine_name(source: dict[str, Any]) -> str:
    """A record's CPU, with or without AVX-512 where the record says."""
    name = source["cpu"] or "an unnamed CPU"
    avx512 = source.get("avx512")
    if avx512 is None:
        return name
    return f"{name} {'with' if avx512 else 'without'} AVX-512"


def provenance(packages: Sequence[str]) -> dict[str, Any]:
    """Where a benchmark's record comes from: its command line, today's date, the versions of
    Python, snail_envs and those of `packages` (distribution names) that are installed, the
    CPU's model (`cpu_model`), whether it runs AVX-512 (`has_avx512`) and the number of CPUs."""
    versions = {"snail_envs": snail_envs.__version__}
    for package in packages:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            versions[package] = importlib.metadata.version(package)
    return {
        "command": shlex.join(["python", *sys.argv]),
        "date": datetime.date.today().isoformat(),
        "python": platform.python_version(),
        "packages": versions,
        "cpu": cpu_model(),
        "avx512": has_avx512(),
        "cpus": os.cpu_count(),
    }


def provenance_line(source: dict[str, Any]) -> str:
    """A record's `provenance` in one line: the date, the CPU, the versions and the command."""
    packages = ", ".join(f"{name} {version}" for name, version in source["packages"].items())
    return (
        f"Measured {source['date']} on {machine_name(source)} "
        f"({source['cpus']} CPUs), Python {source['python']}, {packages}: `{source['command']}`"
    )


def pgx_label(size: int) -> str:
    """The throughput entry of pgx's connect_four at `size` games."""
    return f"pgx connect_four (jax on the CPU, {size} games)"


def toy_label(size: int) -> str:
    """The throughput entry of the toy Snap at `size` games."""
    return f"toy Snap, numba (the ceiling, {size} games)"


def batched_label(name: str, size: int, compact_views: bool = False) -> str:
    """The throughput entry of the batched engine of `name` at `size` games (with compact views,
    `compact_views=True`)."""
    views = "compact views, " if compact_views else ""
    return f"snail_envs {name} (batched, {views}{size} games)"


def throughput_record(
    rates: dict[str, list[float]],
    *,
    seconds: float,
    rounds: int,
    reference: str,
    batch_sizes: list[int],
    batched_engines: list[str],
    compile_cpu_seconds: dict[str, tuple[float, float]],
    packages: Sequence[str],
) -> dict[str, Any]:
    """A throughput run as its record: `rates`, each entry's rate a round, and the (cold,
    cached) CPU seconds of each batched engine's compile where they were measured."""
    return {
        "seconds": seconds,
        "rounds": rounds,
        "reference": reference,
        "batch_sizes": batch_sizes,
        "batched_engines": batched_engines,
        "rates": rates,
        "compile_cpu_seconds": {
            name: {"cold": cold, "cached": cached}
            for name, (cold, cached) in compile_cpu_seconds.items()
        },
        "provenance": provenance(packages),
    }


def entries_table(record: dict[str, Any]) -> str:
    """Every entry's median rate, the min–max of its rounds and its ratio to the reference."""
    base = statistics.median(record["rates"][record["reference"]])
    lines = [
        f"| entry | decisions/s (median of {record['rounds']}) | min–max | × connect_four |",
        "|---|---:|---:|---:|",
    ]
    for name, rates in record["rates"].items():
        median = statistics.median(rates)
        spread = f"{min(rates):,.0f}–{max(rates):,.0f}"
        lines.append(f"| {name} | {median:,.0f} | {spread} | {median / base:.2f}× |")
    return "\n".join(lines)


def batched_table(record: dict[str, Any]) -> str:
    """The batched engines' medians against pgx's connect_four ("(no pgx)" where pgx was not
    installed) and the toy ceiling, per batch size; each engine with compact views too, where
    the run measured them."""
    rates = {name: statistics.median(rounds) for name, rounds in record["rates"].items()}
    lines = [
        "| batched engine | games | decisions/s | × pgx connect_four | × toy ceiling |",
        "|---|---:|---:|---:|---:|",
    ]
    for size in record["batch_sizes"]:
        toy, pgx = rates[toy_label(size)], rates.get(pgx_label(size))
        for name in record["batched_engines"]:
            for compact, shown in ((False, name), (True, f"{name}, compact views")):
                rate = rates.get(batched_label(name, size, compact))
                if rate is None:
                    continue
                versus_pgx = f"{rate / pgx:.2f}×" if pgx else "(no pgx)"
                lines.append(
                    f"| {shown} | {size} | {rate:,.0f} | {versus_pgx} | {rate / toy:.2f}× |"
                )
    return "\n".join(lines)


def readme_speed_table(*records: dict[str, Any]) -> str:
    """The README's speed table: each batched engine's median rate over pgx's connect_four at
    every batch size of the first run where every run measured pgx, with float32 views and,
    after a slash, with compact views, then each run's machine and command. With runs on
    several machines, an engine has a row a run, named by its CPU's kind (`cpu_kind`)."""
    medians = [
        {name: statistics.median(rounds) for name, rounds in record["rates"].items()}
        for record in records
    ]
    sizes = [
        size
        for size in records[0]["batch_sizes"]
        if all(pgx_label(size) in rates for rates in medians)
    ]
    header = " | ".join(f"{size:,} games" for size in sizes)
    lines = [
        f"| × pgx connect_four: float32 views / compact views | {header} |",
        "|---|" + "---:|" * len(sizes),
    ]
    names = list(dict.fromkeys(name for record in records for name in record["batched_engines"]))
    for name in names:
        for record, rates in zip(records, medians, strict=True):
            if name not in record["batched_engines"]:
                continue
            cells = []
            for size in sizes:
                shown = [
                    f"{rates[label] / rates[pgx_label(size)]:.2f}×"
                    for label in (batched_label(name, size), batched_label(name, size, True))
                    if label in rates
                ]
                cells.append(" / ".join(shown) or "—")
            row = f"`{name}`" if len(records) == 1 else f"`{name}`, {cpu_kind(record)}"
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
    lines.append("")
    bullet = "" if len(records) == 1 else "- "  # a line a run, where runs are several
    for record in records:
        source = record["provenance"]
        lines.append(
            f"{bullet}Measured {source['date']} on {machine_name(source)} ({source['cpus']} "
            f"CPUs), one core: `{source['command']}`"
        )
    return "\n".join(lines)


def cpu_kind(record: dict[str, Any]) -> str:
    """A record's kind of CPU in a few words: AVX-512 or not where the record says, else its
    model."""
    source = record["provenance"]
    avx512 = source.get("avx512")
    if avx512 is None:
        return source["cpu"] or "an unnamed CPU"
    return "AVX-512" if avx512 else "no AVX-512"


def compile_table(record: dict[str, Any]) -> str:
    """The batched engines' compile times, CPU seconds of a fresh interpreter: cold (an empty
    numba cache) and cached."""
    lines = ["| batched engine | compile, cold | compile, cached |", "|---|---:|---:|"]
    for name, seconds in record["compile_cpu_seconds"].items():
        lines.append(f"| {name} | {seconds['cold']:.1f} s | {seconds['cached']:.1f} s |")
    return "\n".join(lines)


def throughput_markdown(record: dict[str, Any]) -> str:
    """A throughput record's tables: the entries, then, where the batched engines ran, their
    rates against the batched references and their compile times."""
    tables = [entries_table(record)]
    if record["batched_engines"]:
        tables.append(batched_table(record))
    if record["compile_cpu_seconds"]:
        tables.append(compile_table(record))
    return "\n\n".join(tables)


def training_speed_record(
    rates: dict[str, dict[str, list[float]]],
    *,
    steps: int,
    rounds: int,
    overrides: list[str],
    packages: Sequence[str],
) -> dict[str, Any]:
    """A training-speed run as its record: `rates`, for each game, each setting's timesteps a
    second a round (`TRAINING_SETTINGS`), with their medians and the ratios of those to SB3's."""
    games = {}
    for env_name, by_setting in rates.items():
        median = {setting: statistics.median(by_setting[setting]) for setting in TRAINING_SETTINGS}
        games[env_name] = {
            "timesteps_per_second": by_setting,
            "median": median,
            "ratio": {
                setting: median[setting] / median["sb3"] for setting in ("defaults", "config")
            },
        }
    return {
        "steps": steps,
        "rounds": rounds,
        "overrides": overrides,
        "games": games,
        "provenance": provenance(packages),
    }


def training_speed_markdown(record: dict[str, Any]) -> str:
    """A training-speed record's table: a row per game, each setting's median and its ratio."""
    lines = [
        "| game | SB3 defaults, 8 single_agent views | snail-train, defaults | ratio "
        "| snail-train, game config | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for env_name, game in record["games"].items():
        median, ratio = game["median"], game["ratio"]
        lines.append(
            f"| {env_name} | {median['sb3']:,.0f} | {median['defaults']:,.0f} "
            f"| {ratio['defaults']:.2f}× | {median['config']:,.0f} | {ratio['config']:.2f}× |"
        )
    return "\n".join(lines)


def search_speed_markdown(record: dict[str, Any]) -> str:
    """A search-speed record's table: a row per game, the Python IS-MCTS's and the compiled
    search's iterations and simulated decisions a CPU second and the speed-up; OpenSpiel's row
    where it was measured; then the worst speed-up."""
    lines = [
        f"{record['decisions']} decisions a game; Python {record['python_iterations']}, "
        f"compiled {record['compiled_iterations']} iterations a decision; rates per CPU second",
        "",
        "| game | Python it/s | compiled it/s | speed-up | Python dec/s | compiled dec/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    speed_ups = []
    for env_name, game in record["games"].items():
        (python_iterations, python_decisions) = game["python"]
        (compiled_iterations, compiled_decisions) = game["compiled"]
        speed_ups.append(compiled_iterations / python_iterations)
        lines.append(
            f"| {env_name} | {python_iterations:,.0f} | {compiled_iterations:,.0f} | "
            f"{speed_ups[-1]:,.0f}× | {python_decisions:,.0f} | {compiled_decisions:,.0f} |"
        )
    if record["openspiel_leduc"] is not None:
        lines.append(
            f"| OpenSpiel ISMCTSBot, leduc_poker | {record['openspiel_leduc']:,.0f} | | | | |"
        )
    lines += ["", f"worst speed-up x{min(speed_ups):.0f}"]
    return "\n".join(lines)


def ceiling_rate(unit_seconds: dict[str, float], settings: dict[str, Any]) -> float:
    """Learner timesteps a CPU second of a PPO that spends only its unit costs (`UNIT_COSTS`):
    a rollout's `n_steps` env steps and forwards, its GAE, and `n_epochs` passes of its
    minibatch updates (`n_envs` × `n_steps` / `batch_size` of them a pass)."""
    rollout = settings["n_envs"] * settings["n_steps"]
    updates = settings["n_epochs"] * rollout / settings["batch_size"]
    seconds = (
        settings["n_steps"] * (unit_seconds["env_step"] + unit_seconds["forward"])
        + unit_seconds["gae"]
        + updates * unit_seconds["update"]
    )
    return rollout / seconds


def train_ceiling_record(
    measured: dict[str, dict[str, Any]],
    *,
    steps: int,
    rounds: int,
    settings: dict[str, Any],
    packages: Sequence[str],
) -> dict[str, Any]:
    """A training-ceiling run as its record: `measured`, for each game, each unit cost a round
    (`unit_seconds`), the plain-torch loop's rate a round (`plain_loop`) and snail-train's
    (`snail_train`), with their medians, the ceiling of the median costs (`ceiling_rate`), and
    the ratios of the loop and snail-train to it and of snail-train to the loop."""
    games = {}
    for env_name, game in measured.items():
        median = {unit: statistics.median(game["unit_seconds"][unit]) for unit in UNIT_COSTS}
        ceiling = ceiling_rate(median, settings)
        loop, snail_train = (
            statistics.median(game[rate]) for rate in ("plain_loop", "snail_train")
        )
        games[env_name] = {
            "unit_seconds": game["unit_seconds"],
            "plain_loop": game["plain_loop"],
            "snail_train": game["snail_train"],
            "median": {
                **median,
                "ceiling": ceiling,
                "plain_loop": loop,
                "snail_train": snail_train,
            },
            "ratio": snail_train / ceiling,
            "loop_ratio": loop / ceiling,
            "ratio_to_loop": snail_train / loop,
        }
    return {
        "steps": steps,
        "rounds": rounds,
        "settings": settings,
        "games": games,
        "provenance": provenance(packages),
    }


def train_ceiling_markdown(record: dict[str, Any]) -> str:
    """A training-ceiling record's table: a row per game, its median unit costs, the ceiling
    they make, the plain-torch loop's and snail-train's median rates with their ratios to the
    ceiling, and snail-train's to the loop; then the settings."""
    lines = [
        "| game | env step µs | forward µs | update ms | GAE ms | ceiling ts/s "
        "| plain-torch loop ts/s | snail-train ts/s | loop/ceiling | snail-train/ceiling "
        "| snail-train/loop |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for env_name, game in record["games"].items():
        median = game["median"]
        lines.append(
            f"| {env_name} | {median['env_step'] * 1e6:,.0f} | {median['forward'] * 1e6:,.0f} "
            f"| {median['update'] * 1e3:.2f} | {median['gae'] * 1e3:.2f} "
            f"| {median['ceiling']:,.0f} | {median['plain_loop']:,.0f} "
            f"| {median['snail_train']:,.0f} | {game['loop_ratio']:.2f}× | {game['ratio']:.2f}× "
            f"| {game['ratio_to_loop']:.2f}× |"
        )
    settings = record["settings"]
    lines += [
        "",
        f"{settings['n_envs']} games × {settings['n_steps']}-step rollouts, minibatches of "
        f"{settings['batch_size']:,}, {settings['n_epochs']} epochs, {settings['net_arch']} "
        f"{settings['activation']} networks; timesteps a CPU second, median of "
        f"{record['rounds']} interleaved rounds, snail-train's over {record['steps']:,} timesteps "
        "a run.",
    ]
    return "\n".join(lines)


def add_out_arguments(parser: argparse.ArgumentParser, help: str) -> None:
    """A benchmark's `--out FILE` (`help` says what it holds) and `--overwrite`, without which
    an existing FILE is kept (`check_out`)."""
    parser.add_argument("--out", type=Path, help=help)
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out file")


def check_out(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A parser error, before anything is measured, where `--out` names a file that exists and
    `--overwrite` was not given."""
    if args.out is not None and args.out.exists() and not args.overwrite:
        parser.error(f"{args.out} exists: give --overwrite to replace it")


def train_parity_record(
    measured: dict[str, dict[str, Any]],
    *,
    timesteps: int,
    every: int,
    games: int,
    packages: Sequence[str],
) -> dict[str, Any]:
    """A parity run as its record: `measured`, for each game, the control's score and, for each
    setting and seed, every checkpoint's point (timesteps, seconds, score)."""
    return {
        "timesteps": timesteps,
        "every": every,
        "games_a_point": games,
        "games": measured,
        "provenance": provenance(packages),
    }


def parity_point(points: Sequence[dict[str, Any]], control: float) -> dict[str, Any] | None:
    """The first point whose score's 95% interval reaches `control` (None: none does)."""
    return next((point for point in points if point["score"][2] >= control), None)


def common_level(game: dict[str, Any]) -> float:
    """The score every run of a game reached at some point: the lowest of the runs' best."""
    return min(
        max(point["score"][0] for point in points)
        for seeds in game["runs"].values()
        for points in seeds.values()
    )


def train_parity_markdown(record: dict[str, Any]) -> str:
    """A parity record's table: a row per game, setting and seed, with the first point at parity
    (its timesteps and seconds), the first at the level every run of the game reached
    (`common_level`), the best and the last point's scores and the learning rate."""
    lines = [
        "| game | setting | seed | parity at | seconds to parity | level every run reached "
        "| first at it | seconds to it | best point | last point | timesteps/s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|---|---:|",
    ]
    for env_name, game in record["games"].items():
        control, level = game["control"][0], common_level(game)
        for setting, seeds in game["runs"].items():
            for seed, points in seeds.items():
                at = parity_point(points, control)
                leveled = next(point for point in points if point["score"][0] >= level)
                best = max(points, key=lambda point: point["score"][0])
                last = points[-1]
                reached = (
                    f"{at['timesteps']:,} | {at['seconds']:,.0f}"
                    if at is not None
                    else f"not in {last['timesteps']:,} | —"
                )
                lines.append(
                    f"| {env_name} | {setting or 'defaults'} | {seed} | {reached} | {level:.1%} "
                    f"| {leveled['timesteps']:,} | {leveled['seconds']:,.0f} "
                    f"| {_scored(best)} | {_scored(last)} "
                    f"| {last['timesteps'] / last['seconds']:,.0f} |"
                )
    controls = "; ".join(
        f"{env_name} {game['control'][0]:.1%}" for env_name, game in record["games"].items()
    )
    lines += [
        "",
        f"Score rates against the heuristic over {record['games_a_point']:,} games a point, a "
        f"point every {record['every']:,} timesteps to {record['timesteps']:,}; the control (the "
        f"heuristic's own score on the same games): {controls}. Parity: the first point whose "
        "95% interval reaches the control; the level every run reached: the lowest of the runs' "
        "best scores. Seconds: the ppo stage's own (wall time, one torch thread).",
    ]
    return "\n".join(lines)


def _scored(point: dict[str, Any]) -> str:
    rate, low, high = point["score"]
    return f"{rate:.1%} ({low:.1%}–{high:.1%}) at {point['timesteps']:,}"
