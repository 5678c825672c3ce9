"""Time to parity with the heuristic: snail-train's ppo stage under batch settings, side by side.

    python benchmarks/train_parity.py                          # Snail Sprint!, three settings
    python benchmarks/train_parity.py --only pedzace_slimaki_v0 --timesteps 2000000
    python benchmarks/train_parity.py --settings "" "n_epochs=1 batch_size=4096"
    python benchmarks/train_parity.py --out parity.json        # the results also as JSON

For each game (under its config's rule options, `env_options` of `configs/<game>/ppo.yaml`), each
seed and each setting (`--settings`: each a space-separated list of snail-train overrides, ""
for `TrainConfig`'s defaults), snail-train's ppo stage trains a fresh network for `--timesteps`
learner timesteps, `TrainConfig`'s defaults otherwise (its opponents, step size and batch
settings), one torch thread, with a checkpoint every `--every` timesteps and no evaluation
inside the timed learning (`eval_games=0`). The settings run one after another in each seed.
Then every checkpoint's policy (its most likely legal action) is scored against the heuristic
over `--games` games, the same seeds for every checkpoint, seats rotating, beside the control:
the heuristic's own score on the same games.

A point's time is the ppo stage's own seconds when its checkpoint was written (the checkpoint's
`stage_seconds`: wall time of learning and checkpointing, what `snail-train` reports). Parity is
the first point whose score's 95% interval reaches the control (its upper bound at or above the
control's score). With `--out FILE` the run is also written as JSON
(`snail_envs.speed_tables.train_parity_record`: every point of every run, the control and the
provenance: command, date, versions, CPU), from which the docs site renders the same table.
"""

from __future__ import annotations

import argparse
import json
import shlex
import tempfile
from pathlib import Path
from typing import Any

import snail_envs
from snail_envs.speed_tables import (
    add_out_arguments,
    check_out,
    train_parity_markdown,
    train_parity_record,
)

GAMES = ["snail_sprint_v0"]
SETTINGS = ["", "n_epochs=1", "n_epochs=1 batch_size=4096"]
"""`TrainConfig`'s defaults (64 games, 64-step rollouts, minibatches of 1,024, 4 epochs), one
epoch with the same minibatches, and one epoch with the whole rollout as one minibatch."""
EVALUATION_SEED = 20_000_000
"""The first game's seed of every point's games (those of `snail-train`'s final evaluation)."""
PACKAGES = ("numpy", "numba", "torch", "stable-baselines3", "sb3-contrib")


def plain_config(env_name: str, folder: Path) -> Path:
    """A config of the game's env and rule options only (`TrainConfig`'s defaults for the rest),
    written in `folder`."""
    import yaml

    from snail_envs.training.config import load_config

    path = folder / f"{env_name}-plain.yaml"
    options = dict(load_config(env_name).env_options)
    path.write_text(yaml.safe_dump({"env": env_name, "env_options": options}))
    return path


def train_run(
    env_name: str, setting: str, seed: int, timesteps: int, every: int, output: Path
) -> Path:
    """Train a fresh network with snail-train's ppo stage under `setting` (overrides of the
    game's plain config); returns the run folder (its checkpoints every `every` timesteps)."""
    from snail_envs.training.config import load_config
    from snail_envs.training.train import train

    overrides = [
        "stages=[ppo]",
        f"total_timesteps={timesteps}",
        f"checkpoint_every={every}",
        "eval_games=0",
        "final_eval_games=0",
        f"seed={seed}",
        f"output_dir={output}",
        *shlex.split(setting),
    ]
    config = load_config(env_name, plain_config(env_name, output), overrides)
    summary = train(config, progress_bar=False)
    return Path(summary["run_dir"])


def checkpoint_points(run_dir: Path) -> list[tuple[Path, int, float]]:
    """Each checkpoint of the run, in order: its folder, timesteps and the ppo stage's seconds
    when it was written."""
    points = []
    for folder in sorted((run_dir / "checkpoints").glob("step_*")):
        state = json.loads((folder / "state.json").read_text())
        points.append((folder, int(state["timesteps"]), float(state["stage_seconds"]["ppo"])))
    return points


def score(env_name: str, agent: Any, games: int, options: dict[str, Any]) -> list[float]:
    """The agent's score rate against the heuristic over the evaluation games, with its 95%
    interval."""
    from snail_envs.training.evaluate import score_against

    rate, low, high = score_against(
        env_name, agent, "heuristic", games, EVALUATION_SEED, options=options
    )
    return [rate, low, high]


def measure(
    env_names: list[str],
    settings: list[str],
    seeds: list[int],
    timesteps: int,
    every: int,
    games: int,
) -> dict[str, dict[str, Any]]:
    """For each game: the control's score and, for each setting and seed, every checkpoint's
    timesteps, seconds and score."""
    import torch

    from snail_envs.agents import make_agent
    from snail_envs.agents.ppo import PPOAgent
    from snail_envs.training.config import load_config

    torch.set_num_threads(1)
    measured: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as output:
        for env_name in env_names:
            options = dict(load_config(env_name).env_options)
            heuristic = make_agent("heuristic", env_name, options=options)
            control = score(env_name, heuristic, games, options)
            print(f"{env_name}: the heuristic scores {control[0]:.1%} against itself", flush=True)
            runs: dict[str, dict[str, list[dict[str, Any]]]] = {s: {} for s in settings}
            for seed in seeds:
                for setting in settings:
                    run_dir = train_run(env_name, setting, seed, timesteps, every, Path(output))
                    points = []
                    for folder, steps, seconds in checkpoint_points(run_dir):
                        agent = PPOAgent.load(folder, env_name)
                        rates = score(env_name, agent, games, options)
                        points.append({"timesteps": steps, "seconds": seconds, "score": rates})
                        print(
                            f"  {setting or 'defaults'}, seed {seed}: {steps:,} timesteps, "
                            f"{seconds:.0f} s, {rates[0]:.1%}",
                            flush=True,
                        )
                    runs[setting][str(seed)] = points
            measured[env_name] = {"control": control, "runs": runs}
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=GAMES, choices=snail_envs.ENV_NAMES)
    parser.add_argument(
        "--settings", nargs="+", default=SETTINGS, help='overrides a setting ("": the defaults)'
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0], help="a run a seed")
    parser.add_argument("--timesteps", type=int, default=4_000_000, help="timesteps a run")
    parser.add_argument("--every", type=int, default=250_000, help="timesteps between points")
    parser.add_argument("--games", type=int, default=500, help="games a point")
    add_out_arguments(parser, "also write the results as JSON")
    args = parser.parse_args()
    check_out(parser, args)
    for name in ("timesteps", "every", "games"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, not {getattr(args, name)}")
    measured = measure(args.only, args.settings, args.seeds, args.timesteps, args.every, args.games)
    record = train_parity_record(
        measured, timesteps=args.timesteps, every=args.every, games=args.games, packages=PACKAGES
    )
    print()
    print(train_parity_markdown(record))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
