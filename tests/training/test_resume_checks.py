"""Resuming a run folder that was damaged but is still readable: one line naming the file and
the field, never a traceback; sizes that could not be allocated refused before a run begins."""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest
import torch

from snail_envs.agents.ppo import shipped_checkpoint
from snail_envs.agents.weights import save_tensors
from snail_envs.training import train
from snail_envs.training.checkpoints import STATE_FORMAT, Progress, latest_checkpoint
from snail_envs.training.config import load_config

GAME = "snail_sprint_v0"


def run_folder(tmp_path: Path, *overrides: str) -> Path:
    """A run folder with the config of `overrides` and no checkpoint yet."""
    run = tmp_path / "run"
    run.mkdir()
    config = load_config(GAME, overrides=["net_arch=[128, 128]", *overrides])
    (run / "config.json").write_text(json.dumps(asdict(config)))
    return run


def checkpoint(run: Path, timesteps: int, **state: object) -> Path:
    """A checkpoint folder of `run` at `timesteps`: the shipped policy, a state.json and a
    state.pt of `state`'s parts (each a well-formed default unless given)."""
    folder = run / "checkpoints" / f"step_{timesteps:010d}"
    folder.mkdir(parents=True)
    shipped = shipped_checkpoint(GAME)
    shutil.copy(shipped, folder / "policy.pt")
    shutil.copy(shipped.with_suffix(".json"), folder / "policy.json")
    progress = asdict(Progress(timesteps, 1, 64, 64, 64))
    (folder / "state.json").write_text(json.dumps({"format": STATE_FORMAT, **progress}))
    parts = {
        "optimizer": {"state": {}, "param_groups": []},
        "snapshots": [],
        "generators": {
            "python": [3, [1, 2], None],
            "numpy": {"state": {}},
            "torch": torch.zeros(3),
        },
    }
    save_tensors(folder / "state.pt", {**parts, **state})
    return folder


def resume_error(run: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line `snail-train --resume` ends with (a non-zero exit status)."""
    with pytest.raises(SystemExit) as stopped:
        train.main(["--resume", str(run), "--no-progress"])
    error = capsys.readouterr().err
    assert stopped.value.code != 0 and error.count("\n") == 1, error
    return error.strip().removeprefix("snail-train: error: ")


def test_a_config_that_is_no_mapping_or_cut_short_is_named(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    run = run_folder(tmp_path)
    text = (run / "config.json").read_text()
    (run / "config.json").write_text("[1, 2]")
    assert resume_error(run, capsys).startswith(f"{run / 'config.json'}: a run's config maps")
    (run / "config.json").write_text(text[: len(text) // 2])
    assert resume_error(run, capsys).startswith(f"{run / 'config.json'}: not JSON")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"timesteps": "many"}, "timesteps must be a non-negative integer; got 'many'"),
        ({"timesteps": -64}, "timesteps must be a non-negative integer; got -64"),
        ({"learning_curve": {"a": 1}}, "learning_curve must be a list of objects; got {'a': 1}"),
        ({"best": 3}, "best must be an object or null; got 3"),
    ],
)
def test_a_state_json_of_the_wrong_types_names_the_field(  # type: ignore[no-untyped-def]
    tmp_path, capsys, change: dict, message: str
) -> None:
    run = run_folder(tmp_path)
    folder = checkpoint(run, 64)
    described = json.loads((folder / "state.json").read_text())
    (folder / "state.json").write_text(json.dumps({**described, **change}))
    assert resume_error(run, capsys) == f"{folder / 'state.json'}: {message}"


@pytest.mark.parametrize(
    ("part", "value", "message"),
    [
        ("optimizer", [1, 2], "optimizer must be an optimizer's state dict"),
        ("snapshots", [{"w": 3}], "snapshots must be a list of dicts of name → tensor"),
        ("generators", {"python": 1}, "generators must hold the python, numpy and torch states"),
    ],
)
def test_a_state_pt_of_the_wrong_structure_names_the_field(  # type: ignore[no-untyped-def]
    tmp_path, capsys, part: str, value: object, message: str
) -> None:
    run = run_folder(tmp_path)
    folder = checkpoint(run, 64, **{part: value})
    assert resume_error(run, capsys) == f"{folder / 'state.pt'}: {message}"


def test_an_empty_newest_checkpoint_falls_back_to_the_last_complete_one(tmp_path: Path) -> None:
    run = run_folder(tmp_path)
    complete = checkpoint(run, 64)
    (run / "checkpoints" / "step_0000000128").mkdir()
    assert latest_checkpoint(run) == complete


def test_a_ppo_run_stopped_before_its_first_checkpoint_is_told_so(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    run = run_folder(tmp_path, "stages=[ppo]", "anchor_coef=0")
    error = resume_error(run, capsys)
    assert error.endswith("it stopped before its ppo stage saved its first one; start a new run")
    assert "imitation" not in error


def test_sizes_that_cannot_be_allocated_are_refused_before_a_run_folder(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as stopped:
        train.main(
            ["--env", GAME, "--no-progress", f"output_dir={tmp_path}", "n_envs=100000000000"]
        )
    error = capsys.readouterr().err
    assert stopped.value.code != 0 and error.count("\n") == 1
    assert "n_envs must be at most 1,048,576; got 100,000,000,000" in error
    with pytest.raises(ValueError, match=r"n_envs and n_steps ask for .* GiB of arrays, more than"):
        load_config(GAME, overrides=["n_envs=1000000", "n_steps=1000000"])
    assert list(tmp_path.iterdir()) == []
