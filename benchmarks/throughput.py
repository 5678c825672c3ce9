"""Decisions per second of random legal play, side by side with PettingZoo classic.

    pip install -e ".[bench]"
    python benchmarks/throughput.py            # every game, both APIs, against connect_four
    python benchmarks/throughput.py --seconds 1 --rounds 3 --only snail_sprint_v0
    python benchmarks/throughput.py --batch-sizes 1024 4096   # the batched engines' batch sizes
    python benchmarks/throughput.py --out throughput.json     # the results also as JSON

Every entry plays seeded games with uniformly random legal actions in the same loop (`last()`,
read the mask, `step()`), pinned to one core where the OS allows it. Rates are per second of the
process's own CPU time, so that other work on a shared machine does not count against an entry.
The entries run in turns, round after round, so that background load touches them alike; the
table gives the median over rounds, the min–max, and the ratio to PettingZoo `connect_four_v3` in
the same run (which seeding does not slow down; `leduc_holdem_v4` rebuilds its rlcard game at
every seeded reset, so it is shown both ways: seeded at every game, and reset without a seed).
OpenSpiel's Python loop over its C++ `leduc_poker` is one more row when `open_spiel` is
installed. An optional peer that is not installed (rlcard, open_spiel, pgx, numba) costs its rows
only: the run says so in one line each, naming what to install, and measures the rest. A
decision is one step of an agent that acts (finished agents' `None` steps are not counted); for
the parallel API it is one acting seat's action within a tick.

The batched engines (`snail_envs.batched`, numba) play N games at once on the same core: each
step gives every acting seat a uniformly random legal action (`random_actions()`, drawn in the
kernel) and plays them all (`step()`), observations and masks written as in the AEC API; a
decision is one acting seat's action. Each engine runs twice: with float32 views, and with
compact views (`compact_views=True`: marks and the integers behind the scaled entries, in uint8
or int16, and masks packed 8 actions a byte; `float_observations()` and `full_action_masks()`
widen them). Their compile time is measured apart, in fresh interpreters
(`cold_start.first_step`, CPU seconds): cold (an empty numba cache) and cached (the second
start).

Each batched engine is also read against two batched references at the same batch size: pgx's
`connect_four` on the CPU (JAX, one jit-compiled call a step: random legal actions, the step and
pgx's auto-reset), printed when `pgx` is installed (`pip install -e ".[pgx]"`, never required),
and a toy Snap compiled with numba (`benchmarks/toy_snap.py`), stepped from Python as the engines
are and writing observations and masks as they do, with rules as small as a card game's can be:
the ceiling of a batched game on this CPU, always printed.

With `--out FILE` the run is also written as JSON (`snail_envs.speed_tables.throughput_record`:
every entry's rate a round, the batch sizes, the compile times and the provenance: command,
date, versions, CPU, AVX-512 or not), from which the docs site renders the same tables. Where
the batched engines ran beside pgx, the run last prints the README's speed table
(`readme_speed_table`: each engine over pgx at every batch size, float32 and compact views). The
README holds the table of one run on each kind of machine CI and developers get
(docs/data/speed/throughput.json without AVX-512, throughput_avx512.json with it: `--out` the
file of the machine's kind), and a test holds it to those files.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from cold_start import first_step

import snail_envs
from snail_envs.speed_tables import (
    add_out_arguments,
    batched_label,
    check_out,
    pgx_label,
    readme_speed_table,
    throughput_markdown,
    throughput_record,
    toy_label,
)

Measure = Callable[[float], float]
REFERENCE = "pettingzoo connect_four_v3 (AEC)"
PACKAGES = ("numpy", "numba", "jax", "pgx", "pettingzoo", "rlcard", "open_spiel")
"""The packages whose versions the JSON records (those installed)."""
WHY_REFERENCE = (
    "Ratios are to PettingZoo's connect_four_v3, which seeding does not slow down: "
    "leduc_holdem_v4 rebuilds its rlcard game at every reset(seed=...), so a game seeded "
    "at every reset, as here, runs several times slower than one reset without a seed."
)


def play_aec(env: Any, seconds: float, rng: random.Random, seed_every_game: bool = True) -> int:
    """Random legal play through the AEC API for `seconds` of CPU time: the decisions played.
    Each game is reset with its own seed, or (with `seed_every_game` false) seeded once and then
    reset without one."""
    decisions = games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        env.reset(seed=games if seed_every_game or games == 0 else None)
        games += 1
        for _agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            env.step(int(legal[rng.randrange(legal.size)]))
            decisions += 1
    return decisions


def aec_rate(make_env: Callable[[], object], seed_every_game: bool = True) -> Measure:
    """Random legal play through the AEC API (`play_aec`)."""

    def measure(seconds: float) -> float:
        env = make_env()
        started = time.process_time()
        decisions = play_aec(env, seconds, random.Random(0), seed_every_game)
        return decisions / (time.process_time() - started)

    return measure


def parallel_rate(make_env: Callable[[], object]) -> Measure:
    def measure(seconds: float) -> float:
        env = make_env()
        rng = random.Random(0)
        decisions = games = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            observations, _ = env.reset(seed=games)
            games += 1
            while env.agents:
                actions = {}
                for agent in env.agents:
                    legal = np.flatnonzero(observations[agent]["action_mask"])
                    if legal.size:
                        actions[agent] = int(legal[rng.randrange(legal.size)])
                        decisions += 1
                    else:
                        actions[agent] = 0
                observations, *_ = env.step(actions)
        return decisions / (time.process_time() - started)

    return measure


def openspiel_rate(game_name: str) -> Measure:
    import pyspiel

    def measure(seconds: float) -> float:
        game = pyspiel.load_game(game_name)
        rng = random.Random(0)
        decisions = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                    continue
                state.observation_tensor(state.current_player())
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                decisions += 1
        return decisions / (time.process_time() - started)

    return measure


def batched_rate(name: str, num_envs: int, compact_views: bool = False) -> Measure:
    import snail_envs.batched

    batch = snail_envs.batched.make(name, num_envs, compact_views=compact_views)
    batch.reset(seed=0)
    batch.step(batch.random_actions())

    def measure(seconds: float) -> float:
        decisions = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            decisions += int((batch.seats >= 0).sum())
            batch.step(batch.random_actions())
        return decisions / (time.process_time() - started)

    return measure


def toy_rate(num_envs: int) -> Measure:
    from toy_snap import ToySnap

    toy = ToySnap(num_envs)
    toy.reset()
    toy.step(toy.random_actions())

    def measure(seconds: float) -> float:
        decisions = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            decisions += 2 * num_envs
            toy.step(toy.random_actions())
        return decisions / (time.process_time() - started)

    return measure


def pgx_rate(num_envs: int) -> Measure:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make("connect_four")
    play = jax.vmap(auto_reset(env.step, env.init))

    @jax.jit
    def step(state, key):
        key, choose, chance = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        actions = jax.random.categorical(choose, logits, axis=-1)
        return play(state, actions, jax.random.split(chance, num_envs)), key

    key = jax.random.PRNGKey(0)
    state = jax.jit(jax.vmap(env.init))(jax.random.split(key, num_envs))
    state, key = step(state, key)
    jax.block_until_ready(state)

    def measure(seconds: float) -> float:
        nonlocal state, key
        decisions = 0
        started = time.process_time()
        while time.process_time() - started < seconds:
            state, key = step(state, key)
            decisions += num_envs
        jax.block_until_ready(state)
        return decisions / (time.process_time() - started)

    return measure


def require_reference() -> None:
    """Stop in one line where the reference cannot run: PettingZoo's classic environments import
    pygame (the bench extra)."""
    if importlib.util.find_spec("pygame") is None:
        sys.exit(
            "pygame is missing, and PettingZoo's connect_four_v3, the reference, needs it: "
            'pip install -e ".[bench]"'
        )


def classic_env(name: str) -> Callable[[], object]:
    """PettingZoo classic's environment `name`, its module imported when the first one is made
    (`require_reference`)."""
    return lambda: importlib.import_module(f"pettingzoo.classic.{name}").env()


def installed(package: str, extra: str, rows: str) -> bool:
    """Whether the optional `package` is installed; where not, one line naming the rows it
    skips and what to install."""
    if importlib.util.find_spec(package) is not None:
        return True
    print(f'{package} is missing: skipping {rows} (pip install -e ".[{extra}]")')
    return False


def batched_names(only: list[str] | None) -> list[str]:
    if not installed("numba", "batched", "the batched engines' rows, pgx's and the toy ceiling's"):
        return []
    from snail_envs.batched import ENGINES

    return [name for name in ENGINES if not only or name in only]


def entries(only: list[str] | None, batch_sizes: list[int], names: list[str]) -> dict[str, Measure]:
    """Every entry's measure: the reference, the Python APIs of the games in `only` (all where
    None), then for each batch size pgx's, the toy's and the batched engines `names`."""
    table: dict[str, Measure] = {REFERENCE: aec_rate(classic_env("connect_four_v3"))}
    if installed("rlcard", "bench", "PettingZoo's leduc_holdem_v4 rows"):
        leduc = classic_env("leduc_holdem_v4")
        table["pettingzoo leduc_holdem_v4 (AEC)"] = aec_rate(leduc)
        table["pettingzoo leduc_holdem_v4 (AEC, reset without a seed)"] = aec_rate(
            leduc, seed_every_game=False
        )
    if installed("open_spiel", "openspiel", "OpenSpiel's leduc_poker row"):
        table["open_spiel leduc_poker (python loop)"] = openspiel_rate("leduc_poker")
    for name in snail_envs.available_env_names():
        if only and name not in only:
            continue
        module = snail_envs._module(name)
        table[f"snail_envs {name} (AEC)"] = aec_rate(module.env)
        table[f"snail_envs {name} (parallel)"] = parallel_rate(module.parallel_env)
    has_pgx = bool(names and batch_sizes) and installed("pgx", "pgx", "pgx's connect_four rows")
    for size in batch_sizes if names else []:
        if has_pgx:
            table[pgx_label(size)] = pgx_rate(size)
        table[toy_label(size)] = toy_rate(size)
        for name in names:
            table[batched_label(name, size)] = batched_rate(name, size)
            table[batched_label(name, size, True)] = batched_rate(name, size, True)
    return table


def pin_to_one_core() -> str:
    if hasattr(os, "sched_setaffinity"):
        core = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {core})
        return f"pinned to core {core}"
    return "not pinned (no sched_setaffinity on this OS)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per entry and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="snail_envs names to include")
    parser.add_argument(
        "--batch-sizes", nargs="*", type=int, default=[1024, 4096], help="games per batch"
    )
    add_out_arguments(parser, "also write the results as JSON")
    args = parser.parse_args()
    check_out(parser, args)
    require_reference()
    print(pin_to_one_core())
    names = batched_names(args.only)
    table = entries(args.only, args.batch_sizes, names)
    results: dict[str, list[float]] = {name: [] for name in table}
    for round_number in range(args.rounds):
        for name, measure in table.items():
            results[name].append(measure(args.seconds))
        print(f"round {round_number + 1}/{args.rounds} done")
    compile_cpu_seconds = {}
    for name in names:
        cold, cached = first_step(name)
        compile_cpu_seconds[name] = (cold.cpu, cached.cpu)
    record = throughput_record(
        results,
        seconds=args.seconds,
        rounds=args.rounds,
        reference=REFERENCE,
        batch_sizes=args.batch_sizes,
        batched_engines=names,
        compile_cpu_seconds=compile_cpu_seconds,
        packages=PACKAGES,
    )
    print()
    print(WHY_REFERENCE)
    print()
    print(throughput_markdown(record))
    if names and any(pgx_label(size) in record["rates"] for size in args.batch_sizes):
        print()
        print("The README's speed table:")
        print()
        print(readme_speed_table(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
