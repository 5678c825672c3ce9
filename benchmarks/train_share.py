"""How much of MaskablePPO's training time our environments take.

    python benchmarks/train_share.py                 # every game, 20,000 steps each
    python benchmarks/train_share.py --steps 50000 --only snap_v0

Trains MaskablePPO (n_envs=8, the library's default network, torch on one thread) through
`snail_envs.single_agent` with random opponents, and times the vectorised environment's `reset`,
`step_wait` and `action_masks` calls (our environment, the single-agent view, the opponents'
moves, and Stable-Baselines3's own buffering around them) against the wall time of the whole
`learn` call. Target: at most 5%.
"""

from __future__ import annotations

import argparse
import time

import snail_envs


def share(env_name: str, steps: int) -> tuple[float, float]:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    spent = [0.0]

    class TimedVecEnv(DummyVecEnv):
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

    venv = TimedVecEnv([lambda: snail_envs.single_agent(env_name) for _ in range(8)])
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=256,
        batch_size=256,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [128, 128]},
    )
    started = time.perf_counter()
    model.learn(steps)
    total = time.perf_counter() - started
    return spent[0] / total, steps / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    print("| game | env + wrapper share of MaskablePPO wall time | timesteps/s |")
    print("|---|---:|---:|")
    for name in snail_envs.available_env_names():
        if args.only and name not in args.only:
            continue
        fraction, rate = share(name, args.steps)
        print(f"| {name} | {fraction:.1%} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
