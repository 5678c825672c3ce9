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
                                 record, each ppo update's loss, entropy and approximate KL
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
import reprlib
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
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
    ppo_updates: list[dict[str, Any]] = field(default_factory=list)
    """The ppo stage's updates, one record each: the timesteps of the rollout it learnt from,
    the gradient steps made by its end (`updates`), its loss, entropy and approximate KL
    (`snail_envs.training.callbacks.UpdateLosses`)."""

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


CHECKPOINT_FILES = (POLICY_FILE, "policy.json", "state.pt", "state.json")
"""What a complete checkpoint folder holds."""


def read_run_config(run_dir: Path) -> dict[str, Any]:
    """The saved config of the run in `run_dir` (`config.json`), as a mapping whose `env` is a
    name; a `FileNotFoundError` or `ValueError` naming the file otherwise (its values are
    checked by `snail_envs.training.config.load_config`)."""
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"{run_dir} is not a run folder of snail-train with a checkpoint "
            f"({CONFIG_FILE} and {CHECKPOINTS}/step_*/)"
        )
    saved = read_json(path)
    if not isinstance(saved, dict) or not isinstance(saved.get("env"), str):
        raise ValueError(f"{path}: a run's config maps field names to values, env a game's name")
    return saved


def read_json(path: Path) -> Any:
    """The JSON value in the file at `path`; a `ValueError` naming the file if it is not JSON
    (cut short, nested too deeply, not UTF-8)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as problem:
        raise ValueError(
            f"{path}: not JSON ({problem.msg}, line {problem.lineno}); cut short?"
        ) from None
    except (RecursionError, UnicodeDecodeError, ValueError) as problem:
        reason = "nested too deeply" if isinstance(problem, RecursionError) else problem
        raise ValueError(f"{path}: not JSON ({reason})") from None


def latest_checkpoint(run_dir: Path, stages: Sequence[str] = ()) -> Path:
    """The complete checkpoint of `run_dir` with the most timesteps (a folder that lacks one of
    `CHECKPOINT_FILES`, emptied or cut short outside the library, is passed over). `stages`, the
    run's, say why a run has none."""
    read_run_config(run_dir)
    folders = sorted((run_dir / CHECKPOINTS).glob("step_*"), reverse=True)
    for folder in folders:
        if all((folder / name).is_file() for name in CHECKPOINT_FILES):
            return folder
    if folders:
        raise FileNotFoundError(
            f"{run_dir} has no complete checkpoint: each of its {CHECKPOINTS}/step_*/ lacks one "
            f"of {', '.join(CHECKPOINT_FILES)}; start a new run"
        )
    if stages and stages[0] == "imitation":
        raise FileNotFoundError(
            f"{run_dir} has no checkpoint: it stopped in its imitation stage, which is not "
            "resumed; start a new run"
        )
    raise FileNotFoundError(
        f"{run_dir} has no checkpoint: it stopped before its ppo stage saved its first one; "
        "start a new run"
    )


def read_progress(values: Any, where: str) -> Progress:
    """The `Progress` of `values` (a checkpoint's `state.json` less its format, or the expert
    iteration stage's progress), each field of its type; a `ValueError` naming `where` and the
    field otherwise."""
    if not isinstance(values, dict):
        raise ValueError(f"{where}: the run's progress is an object of fields")
    names = [spec.name for spec in fields(Progress)]
    missing = [
        spec.name
        for spec in fields(Progress)
        if spec.default is MISSING and spec.default_factory is MISSING and spec.name not in values
    ]
    unknown = sorted(set(values) - set(names))
    if missing or unknown:
        raise ValueError(f"{where}: missing fields {missing}, unknown fields {unknown[:5]}")
    for name, value in values.items():
        valid, wanted = PROGRESS_KINDS[name]
        if not valid(value):
            raise ValueError(f"{where}: {name} must be {wanted}; got {reprlib.repr(value)}")
    return Progress(**values)


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63


def _seconds(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


PROGRESS_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "timesteps": (_count, "a non-negative integer"),
    "updates": (_count, "a non-negative integer"),
    "next_snapshot": (_count, "a non-negative integer"),
    "next_evaluation": (_count, "a non-negative integer"),
    "next_checkpoint": (_count, "a non-negative integer"),
    "train_seconds": (_seconds, "a non-negative number"),
    "learning_curve": (
        lambda v: isinstance(v, list) and all(isinstance(p, dict) for p in v),
        "a list of objects",
    ),
    "stage_seconds": (
        lambda v: isinstance(v, dict) and all(_seconds(t) for t in v.values()),
        "an object of stages and seconds",
    ),
    "imitation": (
        lambda v: isinstance(v, list) and all(isinstance(r, dict) for r in v),
        "a list of objects",
    ),
    "best": (lambda v: v is None or isinstance(v, dict), "an object or null"),
    "ppo_updates": (
        lambda v: isinstance(v, list) and all(isinstance(u, dict) for u in v),
        "a list of objects",
    ),
}
"""Each field of `Progress`: the check of its value, and what it must be, in words."""


def load_checkpoint(folder: Path, env_name: str) -> Checkpoint:
    """The checkpoint in `folder`, of a run on `env_name` (weights only: no code runs); a file
    of the wrong form is a `ValueError` naming the file and the field."""
    path = folder / "state.json"
    described = read_json(path)
    if not isinstance(described, dict) or described.pop("format", None) != STATE_FORMAT:
        raise ValueError(f"{path} is not a checkpoint of snail-train")
    progress = read_progress(described, str(path))
    state = load_tensors(folder / "state.pt")
    check_state(state, folder / "state.pt")
    return Checkpoint(
        progress,
        load_policy(folder / POLICY_FILE, env_name),
        state["optimizer"],
        state["snapshots"],
        state["generators"],
    )


def check_state(state: Any, path: Path) -> None:
    """A `ValueError` naming the field unless `state` (a checkpoint's `state.pt`) holds an
    optimizer's state, snapshots of weights and the generators' states as `save_checkpoint`
    writes them."""
    import torch

    if not isinstance(state, dict) or set(state) != {"optimizer", "snapshots", "generators"}:
        raise ValueError(f"{path} is not a checkpoint's state (optimizer, snapshots, generators)")
    optimizer, snapshots, generators = state["optimizer"], state["snapshots"], state["generators"]
    if not isinstance(optimizer, dict) or not {"state", "param_groups"} <= set(optimizer):
        raise ValueError(f"{path}: optimizer must be an optimizer's state dict")
    if not isinstance(snapshots, list) or not all(
        isinstance(weights, dict) and all(isinstance(t, torch.Tensor) for t in weights.values())
        for weights in snapshots
    ):
        raise ValueError(f"{path}: snapshots must be a list of dicts of name → tensor")
    python = generators.get("python") if isinstance(generators, dict) else None
    numpy = generators.get("numpy") if isinstance(generators, dict) else None
    if (
        not isinstance(python, (list, tuple))
        or len(python) != 3
        or not isinstance(numpy, dict)
        or not isinstance(numpy.get("state"), dict)
        or not isinstance(generators.get("torch"), torch.Tensor)
    ):
        raise ValueError(f"{path}: generators must hold the python, numpy and torch states")


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
