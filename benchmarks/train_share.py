"""How much of MaskablePPO's training time our environments take.

    python benchmarks/train_share.py                 # every game, 20,000 steps each
    python benchmarks/train_share.py --steps 50000 --only snap_v2

Trains MaskablePPO (n_envs=8, Stable-Baselines3's default hyperparameters, torch on one thread)
against random opponents and times the vectorised environment's `reset`, `step_wait` and
`action_masks` calls (the game, the learner's view, the opponents' moves, and the buffering around
them) against the wall time of the whole `learn` call, on three paths: the batched engine's
learner vector env (`snail_envs.batched.make_vec_env`, opponents inside the compiled kernels),
which `snail-train` trains on; `snail_envs.make_vec_env` (eight `snail_envs.single_agent` views
of the Python environment); and, for comparison, the same views in Stable-Baselines3's own
`DummyVecEnv`. Target: at most 5%. Compiling (or loading) the batched kernels comes before the
timing: it is a one-time cost, not a share of training.
"""

from __future__ import annotations

import argparse
import time

import snail_envs

BATCHED = "batched vec env (numba), what snail-train uses"
PYTHON = "make_vec_env (Python)"
DUMMY = "single_agent in SB3's DummyVecEnv"


def timed(base: type, spent: list[float]) -> type:
    """`base` (a VecEnv class) with its reset, step_wait and env_method calls timed."""

    class Timed(base):  # type: ignore[misc, valid-type]
        def reset(self):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            result = super().reset()
            spent[0] += time.perf_counter() - started
            return result

        def step_wait(self):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            result = super().step_wait()
            spent[0] += time.perf_counter() - started
            return result

        def env_method(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            result = super().env_method(*args, **kwargs)
            spent[0] += time.perf_counter() - started
            return result

    return Timed


def share(env_name: str, steps: int, path: str) -> tuple[float, float]:
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from snail_envs.core.vec_env import SingleAgentVecEnv

    torch.set_num_threads(1)
    spent = [0.0]
    if path == BATCHED:
        from snail_envs.batched.vec_env import BatchedVecEnv

        venv = timed(BatchedVecEnv, spent)(env_name, 8, opponents="random")
    else:
        base = SingleAgentVecEnv if path == PYTHON else DummyVecEnv
        venv = timed(base, spent)([lambda: snail_envs.single_agent(env_name)] * 8)
    if path == BATCHED:  # compiling (or loading) the batched kernels is a one-time cost
        venv.reset()
        masks = venv.action_masks()
        venv.step(np.array([np.flatnonzero(mask)[0] for mask in masks]))  # compiles the step
    venv.reset()
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu")
    spent[0] = 0.0
    started = time.perf_counter()
    model.learn(steps)
    total = time.perf_counter() - started
    # learn() runs whole rollouts (2,048 steps a vectorised env): more steps than asked for
    return spent[0] / total, model.num_timesteps / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    engines = batched_engines()
    print("| game | environment path | share of MaskablePPO wall time | timesteps/s |")
    print("|---|---|---:|---:|")
    for name in snail_envs.available_env_names():
        if args.only and name not in args.only:
            continue
        paths = [BATCHED] if name in engines else []
        paths += [PYTHON, DUMMY]
        for path in paths:
            fraction, rate = share(name, args.steps, path)
            print(f"| {name} | {path} | {fraction:.1%} | {rate:,.0f} |")


def batched_engines() -> set[str]:
    """The games with a batched engine; none without numba, saying so in one line."""
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        print('numba is missing: skipping the batched vec env rows (pip install -e ".[batched]")')
        return set()
    from snail_envs.batched import ENGINES

    return set(ENGINES)


if __name__ == "__main__":
    main()
