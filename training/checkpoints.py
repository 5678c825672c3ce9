"""Run folders and checkpoints of `snail-train`: weights only, written atomically, resumable.

Each run writes a new folder, `<output_dir>/<env>-<seed>-<n>/` (`n` counts that env and seed's
runs, so that a rerun never mixes into an earlier run's folder):

    config.json                the run's config (what `--resume` continues with)
    checkpoints/step_<T>/      every `checkpoint_every` timesteps, and when the ppo stage ends
                               or stops:
        policy.pt, policy.json   the learner's policy, value network included (a `ppo:` agent)
        state.pt                 the optimizer's state, the self-play snapshots, the random
                                 generators' states: tensors and plain values, loaded weights only
        state.json               timesteps, updates, the next snapshot, evaluation and checkpoint
                                 due, the learning curve so far, the training time so far (each
                                 stage's), the imitation stage's reports, the best policy's
                                 record
    clone.pt, clone.json       the policy the imitation stage ended with, when a ppo stage
                               follows (the ppo stage's start, and its anchor)
    best_policy.pt, .json      with `keep_best`: the ppo stage's best policy so far
    policy.pt, policy.json     the final policy: `make_agent("ppo:RUN_FOLDER", env)`
    tensorboard/               TensorBoard logs (a resumed run continues the same ones)
    learning_curve.png, summary.json
    replays/                   the first games of the final evaluation against each opponent
                               (`vs-random-game1.jsonl`, ...: `snail-replay FILE`)

Checkpoints are of the ppo stage, which saves one at its start too when it follows imitation; a
run stopped in its imitation stage has none, and is not resumed. Every file is written
atomically, and a checkpoint folder appears whole or not at all (`snail_envs.agents.files`). Loading
a checkpoint runs no code from its files (`snail_envs.agents.weights`).
"""

from __future__ import annotations

import copy
import json
import random
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents.files import atomic_folder
from snail_envs.agents.ppo import POLICY_FILE, load_policy, save_policy
from snail_envs.agents.weights import load_tensors, save_tensors
from snail_envs.training.config import TrainConfig

CONFIG_FILE = "config.json"
CHECKPOINTS = "checkpoints"
CLONE_FILE = "clone.pt"
"""The policy an anchored ppo stage starts from in a run folder, the imitation stage's or
`init_from`'s (the anchor of a resumed ppo stage)."""
STATE_FORMAT = "snail_envs.ppo_training_state/1"


def new_run_dir(output_dir: str | Path, name: str) -> Path:
    """A new folder `<output_dir>/<name>-<n>`, `n` one more than the highest taken (from 1). It
    is created here, so that two runs started at once never get the same one."""
    output_dir = Path(output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    pattern = re.compile(rf"{re.escape(name)}-(\d+)")
    while True:  # each FileExistsError means another run took the number: the next glob sees it
        taken = [
            int(match.group(1))
            for path in output_dir.iterdir()
            if (match := pattern.fullmatch(path.name))
        ]
        folder = output_dir / f"{name}-{max(taken, default=0) + 1}"
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        return folder


@dataclass
class Progress:
    """Where a run stands (a checkpoint's `state.json`)."""

    timesteps: int
    updates: int
    next_snapshot: int
    """Timesteps at which the next snapshot joins the self-play pool."""
    next_evaluation: int
    """Timesteps at which the next point of the learning curve is measured."""
    next_checkpoint: int
    train_seconds: float = 0.0
    """Time spent in training so far (every stage and session of the run)."""
    learning_curve: list[dict[str, Any]] = field(default_factory=list)
    """The points of both stages (see `snail-train`)."""
    stage_seconds: dict[str, float] = field(default_factory=dict)
    """Each stage's share of `train_seconds`."""
    imitation: list[dict[str, Any]] = field(default_factory=list)
    """The imitation stage's reports, one per round
    (`snail_envs.training.imitation.ImitationRound`)."""
    best: dict[str, Any] | None = None
    """With `keep_best`: the record of the best policy so far
    (`snail_envs.training.finetune.KeepBest`)."""

    @classmethod
    def start(cls, config: TrainConfig) -> Progress:
        """A new run's: the first snapshot and evaluation at the start."""
        return cls(0, 0, config.self_play_every, 0, config.checkpoint_every)

    def spend(self, stage: str, seconds: float) -> None:
        """Count `seconds` more of training, spent in `stage`."""
        self.stage_seconds[stage] = self.stage_seconds.get(stage, 0.0) + seconds
        self.train_seconds += seconds


@dataclass
class Checkpoint:
    """What a checkpoint restores: the run's progress, the learner's policy (value network
    included), its optimizer's state, the self-play snapshots' weights, random generators."""

    progress: Progress
    policy: Any
    optimizer: dict[str, Any]
    snapshots: list[dict[str, Any]]
    generators: dict[str, Any]


def save_checkpoint(
    run_dir: Path,
    config: TrainConfig,
    model: Any,
    snapshots: list[Any],
    progress: Progress,
    generators: dict[str, Any],
) -> Path:
    """Write a checkpoint of `model` (a MaskablePPO) at its current timesteps under `run_dir`,
    as one folder that appears whole; returns it. `snapshots`: the self-play pool's policies;
    `generators`: the states of the run's own random generators (`random_states` adds the
    global ones)."""
    folder = run_dir / CHECKPOINTS / f"step_{progress.timesteps:010d}"
    with atomic_folder(folder, overwrite=True) as filling:
        save_policy(filling / POLICY_FILE, model.policy, config.env, config.env_options)
        state = {
            "optimizer": model.policy.optimizer.state_dict(),
            "snapshots": [snapshot.state_dict() for snapshot in snapshots],
            "generators": {**random_states(), **generators},
        }
        save_tensors(filling / "state.pt", state)
        description = {"format": STATE_FORMAT, **asdict(progress)}
        (filling / "state.json").write_text(json.dumps(description, indent=1) + "\n")
    return folder


def latest_checkpoint(run_dir: Path) -> Path:
    """The checkpoint of `run_dir` with the most timesteps."""
    folders = sorted((run_dir / CHECKPOINTS).glob("step_*"))
    if not (run_dir / CONFIG_FILE).is_file():
        raise FileNotFoundError(
            f"{run_dir} is not a run folder of snail-train with a checkpoint "
            f"({CONFIG_FILE} and {CHECKPOINTS}/step_*/)"
        )
    if not folders:
        raise FileNotFoundError(
            f"{run_dir} has no checkpoint: its ppo stage, which saves them, had not begun. A run "
            "stopped in its imitation stage is not resumed: start a new run"
        )
    return folders[-1]


def load_checkpoint(folder: Path, env_name: str) -> Checkpoint:
    """The checkpoint in `folder`, of a run on `env_name` (weights only: no code runs)."""
    described = json.loads((folder / "state.json").read_text())
    if described.pop("format", None) != STATE_FORMAT:
        raise ValueError(f"{folder / 'state.json'} is not a checkpoint of snail-train")
    try:
        progress = Progress(**described)
    except TypeError as problem:
        raise ValueError(f"{folder / 'state.json'} lacks or garbles {problem}") from None
    state = load_tensors(folder / "state.pt")
    if not isinstance(state, dict) or set(state) != {"optimizer", "snapshots", "generators"}:
        raise ValueError(f"{folder / 'state.pt'} is not a checkpoint's state")
    return Checkpoint(
        progress,
        load_policy(folder / POLICY_FILE, env_name),
        state["optimizer"],
        state["snapshots"],
        state["generators"],
    )


def restore(checkpoint: Checkpoint, model: Any, pool: Any) -> None:
    """Put the checkpoint's policy, optimizer state, timesteps, updates and self-play snapshots
    into `model` (a MaskablePPO of the same config) and `pool` (a `SelfPlayPool`)."""
    model.policy.load_state_dict(checkpoint.policy.state_dict())
    model.policy.optimizer.load_state_dict(checkpoint.optimizer)
    model.num_timesteps = checkpoint.progress.timesteps
    model._n_updates = checkpoint.progress.updates
    pool.snapshots = []
    for weights in checkpoint.snapshots:
        snapshot = copy.deepcopy(model.policy)
        snapshot.load_state_dict(weights)
        pool.snapshots.append(snapshot)


def random_states() -> dict[str, Any]:
    """The states of Python's, numpy's and torch's global generators, as plain values and
    tensors."""
    import torch

    legacy = np.random.get_state(legacy=False)
    legacy["state"]["key"] = legacy["state"]["key"].tolist()
    return {"python": random.getstate(), "numpy": legacy, "torch": torch.get_rng_state()}


def set_random_states(states: dict[str, Any]) -> None:
    """Set the global generators to `states` (from `random_states`)."""
    import torch

    version, internal, gauss = states["python"]
    random.setstate((version, tuple(internal), gauss))
    legacy = copy.deepcopy(states["numpy"])
    legacy["state"]["key"] = np.array(legacy["state"]["key"], dtype=np.uint32)
    np.random.set_state(legacy)
    torch.set_rng_state(states["torch"])
