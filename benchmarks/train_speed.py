"""Learner timesteps a second: `snail-train`'s ppo stage against Stable-Baselines3's defaults.

    python benchmarks/train_speed.py                          # Snail Sprint! and Pędzące
    python benchmarks/train_speed.py --only snap_v2 --steps 100000 --rounds 3
    python benchmarks/train_speed.py --out train_speed.json   # the results also as JSON

Side by side in one process, one torch thread, rounds interleaved, against random opponents,
under each game's rule options (`env_options` of `configs/<game>/ppo.yaml`):

- **SB3 defaults**: MaskablePPO with every hyperparameter at Stable-Baselines3's default
  (`n_steps` 2,048, minibatches of 64, 10 epochs, [64, 64] networks) on eight
  `snail_envs.single_agent` views of the Python environment in SB3's `DummyVecEnv`: the plain
  way a user would train on one of our games.
- **snail-train, defaults**: `snail_envs.training.train` with `TrainConfig`'s hyperparameters
  (`n_envs`, `n_steps`, `batch_size`, `n_epochs`, `net_arch`, `learning_rate`), its ppo stage
  alone from a fresh network on the batched engine, no evaluation inside the timed learning
  (`eval_games=0`), timed by the run (`timesteps_per_second` of its summary: the ppo stage's
  wall time, its checkpoints included).
- **snail-train, game config**: the same with the hyperparameters of `configs/<game>/ppo.yaml`
  (whose ppo stages are fine-tunes of a clone, some with small batches).

Each rate is the median over `--rounds`; the ratios are snail-train's over SB3's. Compiling the
batched kernels is a one-time cost, paid (or loaded from numba's cache) before the first round.
With `--out FILE` the run is also written as JSON
(`snail_envs.speed_tables.training_speed_record`: each setting's rate a round, the medians and
ratios, and the provenance: command, date, versions, CPU), from which the docs site renders the
same table.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import snail_envs
from snail_envs.speed_tables import (
    TRAINING_SETTINGS,
    add_out_arguments,
    check_out,
    training_speed_markdown,
    training_speed_record,
)

GAMES = ["snail_sprint_v0", "pedzace_slimaki_v0"]
PACKAGES = ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib")
"""The packages whose versions the JSON records (those installed)."""


def sb3_default_rate(env_name: str, steps: int) -> float:
    """Timesteps a second of MaskablePPO at SB3's defaults on eight single-agent views (random
    opponents) of the game under its config's rule options."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from snail_envs.training.config import load_config

    options = load_config(env_name).env_options
    venv = DummyVecEnv([lambda: snail_envs.single_agent(env_name, **options)] * 8)
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu")
    started = time.perf_counter()
    model.learn(steps)
    # learn() runs whole rollouts (2,048 steps a game): it may take more steps than asked for
    return model.num_timesteps / (time.perf_counter() - started)


def snail_train_rate(
    env_name: str, steps: int, config_defaults: bool, output: str, extra: list[str]
) -> float:
    """Timesteps a second of `snail-train`'s ppo stage (its own timing); `extra`: more
    `name=value` overrides."""
    from snail_envs.training.config import TrainConfig, load_config
    from snail_envs.training.train import train

    overrides = [
        "stages=[ppo]",
        "opponents={random: 1}",
        f"total_timesteps={steps}",
        "eval_games=0",
        "final_eval_games=0",
        f"checkpoint_every={steps}",
        "keep_best=false",
        "anchor_coef=0",
        f"output_dir={output}",
    ]
    if config_defaults:
        fields = ("n_envs", "n_steps", "batch_size", "n_epochs", "net_arch", "learning_rate")
        defaults = TrainConfig(env=env_name)
        overrides += [f"{name}={getattr(defaults, name)}" for name in fields]
    config = load_config(env_name, overrides=[*overrides, *extra])
    summary = train(config, progress_bar=False)
    return float(summary["timesteps_per_second"])


def measured_rates(
    env_names: list[str], steps: int, rounds: int, overrides: list[str]
) -> dict[str, dict[str, list[float]]]:
    """For each game, each setting's timesteps a second (`TRAINING_SETTINGS`), a rate a round,
    the settings interleaved in each round, on one torch thread."""
    import torch

    torch.set_num_threads(1)
    rates: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as output:
        for env_name in env_names:
            game: dict[str, list[float]] = {setting: [] for setting in TRAINING_SETTINGS}
            snail_train_rate(env_name, 2_048, True, output, overrides)  # compiles kernels
            for _ in range(rounds):
                game["sb3"].append(sb3_default_rate(env_name, steps))
                for setting in ("defaults", "config"):
                    rate = snail_train_rate(
                        env_name, steps, setting == "defaults", output, overrides
                    )
                    game[setting].append(rate)
            rates[env_name] = game
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=GAMES, choices=snail_envs.ENV_NAMES)
    parser.add_argument("--steps", type=int, default=50_000, help="timesteps a run")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds a game")
    add_out_arguments(parser, "also write the results as JSON")
    parser.add_argument(
        "overrides", nargs="*", help="name=value overrides of snail-train's config, e.g. n_epochs=4"
    )
    args = parser.parse_args()
    check_out(parser, args)
    record = training_speed_record(
        measured_rates(args.only, args.steps, args.rounds, args.overrides),
        steps=args.steps,
        rounds=args.rounds,
        overrides=args.overrides,
        packages=PACKAGES,
    )
    print(f"\n{args.steps:,} timesteps a run, median of {args.rounds} interleaved rounds, 1 thread")
    print(training_speed_markdown(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
