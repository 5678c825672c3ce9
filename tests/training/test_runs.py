"""Training runs: a new folder for every run, checkpoints that resume the run where it stopped,
Ctrl-C and SIGTERM that save and exit cleanly, outputs that are never half-written or replaced
unasked, and commands that end on a mistake with one line."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from snail_envs.agents.files import atomic_path, write_text
from snail_envs.training import evaluate, opponents, train
from snail_envs.training.checkpoints import (
    latest_checkpoint,
    load_checkpoint,
    random_states,
    restore,
    set_random_states,
)
from snail_envs.training.config import load_config
from tests.training.budgets import PPO_ONLY, TINY_PPO

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]
TINY = [
    *PPO_ONLY,
    *TINY_PPO,
    "eval_games=2",
    "final_eval_games=2",
    "self_play_every=64",
    "self_play_pool=2",
    "net_arch=[8]",
    "opponents={random: 1, self: 1}",
    "batched=false",
]


def tiny_run(output_dir: Path, *overrides: str) -> dict:
    return train.main(
        ["--env", "snail_sprint_v0", "--no-progress", *TINY, f"output_dir={output_dir}", *overrides]
    )


def tensorboard_steps(run_dir: Path) -> tuple[list[str], int]:
    """The TensorBoard folders of a run, and the last step logged in them."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folders = sorted(path.name for path in (run_dir / "tensorboard").iterdir())
    steps = []
    for folder in folders:
        events = EventAccumulator(str(run_dir / "tensorboard" / folder))
        events.Reload()
        steps += [event.step for tag in events.Tags()["scalars"] for event in events.Scalars(tag)]
    return folders, max(steps)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Two runs of the same env and seed into the same output folder; then the first resumed
    to twice its timesteps."""
    out = tmp_path_factory.mktemp("runs")
    first = tiny_run(out)
    second = tiny_run(out)
    before = json.loads((Path(first["checkpoint"]) / "state.json").read_text())
    resumed = train.main(
        ["--resume", first["run_dir"], "--no-progress", "total_timesteps=512", "eval_every=256"]
    )
    return {"out": out, "first": first, "second": second, "before": before, "resumed": resumed}


def test_every_run_gets_a_new_folder(runs: dict) -> None:
    first, second = Path(runs["first"]["run_dir"]), Path(runs["second"]["run_dir"])
    assert (first.name, second.name) == ("snail_sprint_v0-0-1", "snail_sprint_v0-0-2")
    assert sorted(path.name for path in (second / "checkpoints").iterdir()) == [
        "step_0000000128",
        "step_0000000256",
    ]
    assert sorted(path.name for path in (second / "tensorboard").iterdir()) == [
        "MaskablePPO_1",
        "eval",
    ]


def test_the_run_folder_is_printed_first(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    summary = tiny_run(tmp_path, "total_timesteps=64", "final_eval_games=0", "eval_games=0")
    assert capsys.readouterr().out.startswith(f"run folder: {summary['run_dir']}\n")


def test_a_resumed_run_goes_on_where_it_stopped(runs: dict) -> None:
    run = Path(runs["first"]["run_dir"])
    resumed = runs["resumed"]
    assert resumed["run_dir"] == str(run) and resumed["timesteps"] == 512
    assert sorted(path.name for path in (run / "checkpoints").iterdir()) == [
        f"step_{steps:010d}" for steps in (128, 256, 384, 512)
    ]
    state = json.loads((run / "checkpoints" / "step_0000000512" / "state.json").read_text())
    assert state["updates"] > runs["before"]["updates"]
    assert state["train_seconds"] > runs["before"]["train_seconds"]
    curve = resumed["learning_curve"]
    assert [point["timesteps"] for point in curve] == [0, 64, 128, 192, 256, 384, 512]
    assert curve[-1]["stage"] == "final"
    folders, last_step = tensorboard_steps(run)
    assert folders == ["MaskablePPO_1", "eval"] and last_step > 256
    assert json.loads((run / "config.json").read_text())["total_timesteps"] == 512


def test_a_checkpoint_restores_optimizer_pool_and_generators(runs: dict, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    run = Path(runs["second"]["run_dir"])
    config = load_config("snail_sprint_v0", run / "config.json")
    checkpoint = load_checkpoint(latest_checkpoint(run), "snail_sprint_v0")
    pool = opponents.SelfPlayPool(config.self_play_pool)
    model = MaskablePPO(
        "MlpPolicy",
        opponents.make_vec_env(config, pool, None),
        policy_kwargs={"net_arch": config.net_arch},
        device="cpu",
    )
    restore(checkpoint, model, pool)
    assert model.num_timesteps == 256 and model._n_updates == checkpoint.progress.updates
    saved = torch.load(latest_checkpoint(run) / "state.pt", weights_only=True)
    restored = model.policy.optimizer.state_dict()
    for index, moments in saved["optimizer"]["state"].items():
        assert torch.equal(restored["state"][index]["exp_avg"], moments["exp_avg"])
    assert len(pool.snapshots) == 2
    for snapshot, weights in zip(pool.snapshots, saved["snapshots"], strict=True):
        assert all(torch.equal(snapshot.state_dict()[name], weights[name]) for name in weights)
    set_random_states(saved["generators"])
    draws = (np.random.random(), torch.rand(1).item())
    set_random_states(saved["generators"])
    assert (np.random.random(), torch.rand(1).item()) == draws
    assert random_states()["python"] == saved["generators"]["python"]


def test_resuming_refuses_what_would_change_the_run(runs: dict, capsys) -> None:  # type: ignore[no-untyped-def]
    run = runs["first"]["run_dir"]
    for arguments, message in [
        ([run, "n_envs=4"], "command line, n_envs=4: a resumed run keeps its config"),
        ([run], "has trained 512 of its total_timesteps=512"),
        ([str(runs["out"])], "is not a run folder of snail-train"),
    ]:
        with pytest.raises(SystemExit) as refused:
            train.main(["--resume", *arguments, "--no-progress"])
        assert refused.value.code == 1
        error = capsys.readouterr().err
        assert message in error and len(error.splitlines()) == 1
    with pytest.raises(SystemExit):
        train.main(["--resume", run, "--env", "snail_sprint_v0"])


class Payload:
    """Unpickling this creates the file `marker`: the proof that a loader ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (exec, (f"open({str(self.marker)!r}, 'w').close()",))


def test_a_crafted_checkpoint_runs_no_code_when_resumed(runs: dict, tmp_path: Path) -> None:
    marker = tmp_path / "payload-ran"
    run = tmp_path / "run"
    shutil.copytree(runs["second"]["run_dir"], run)
    torch.save({"optimizer": Payload(marker)}, latest_checkpoint(run) / "state.pt")
    with pytest.raises(ValueError, match="holds more than weights"):
        train.resume(run, ["total_timesteps=1024"])
    assert not marker.exists()


def test_a_crafted_policy_runs_no_code_in_the_commands(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from snail_envs.apps.play import main as play

    marker = tmp_path / "payload-ran"
    evil = tmp_path / "evil.pt"
    torch.save({"state_dict": {}, "data": Payload(marker)}, evil)
    with pytest.raises(SystemExit) as refused:
        evaluate.main(["--env=snail_sprint_v0", "--agents", "random", f"ppo:{evil}"])
    assert refused.value.code == 1 and "--trust-checkpoint" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        play(["snail_sprint_v0", "--seats", f"random,ppo:{evil}"])
    assert refused.value.code == 1 and "--trust-checkpoint" in capsys.readouterr().err
    assert not marker.exists()


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_saves_a_checkpoint_and_the_summary(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """The run is stopped once its first checkpoint is on disk, mid-training."""
    command = [
        sys.executable,
        "-m",
        "snail_envs.training.train",
        "--env=snail_sprint_v0",
        "--no-progress",
    ]
    command += [*TINY, "total_timesteps=100000000", f"output_dir={tmp_path}"]
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    process = subprocess.Popen(command, cwd=ROOT, env=environment, **pipes)
    try:
        run = Path(process.stdout.readline().removeprefix("run folder: ").strip())
        while not any(run.glob("checkpoints/step_*")) and process.poll() is None:
            time.sleep(0.1)
        process.send_signal(stop)
        _, error = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 128 + stop.value, error
    assert "Traceback" not in error
    assert error.splitlines()[-1].endswith(f"--resume {run}")
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] == stop.name and summary["final_evaluation"] == {}
    assert Path(summary["checkpoint"]) == latest_checkpoint(run)
    state = json.loads((latest_checkpoint(run) / "state.json").read_text())
    assert 0 < state["timesteps"] == summary["timesteps"] < 100000000


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = write_text(tmp_path / "summary.json", "old")
    with pytest.raises(FileExistsError, match="--overwrite"):
        write_text(target, "new")
    with pytest.raises(KeyboardInterrupt), atomic_path(target, overwrite=True) as temporary:
        temporary.write_text("half")
        raise KeyboardInterrupt
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_tournament_reports_are_never_replaced_unasked(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    arguments = ["--env=snail_sprint_v0", "--agents", "random", "heuristic", "--games=2"]
    evaluate.main([*arguments, "--out", str(tmp_path)])
    (tmp_path / "results.md").write_text("mine")
    capsys.readouterr()
    with pytest.raises(SystemExit) as refused:
        evaluate.main([*arguments, "--out", str(tmp_path)])
    assert refused.value.code == 1
    assert capsys.readouterr().err == (
        f"snail-eval: error: {tmp_path / 'results.md'} exists already; give "
        "--overwrite (overwrite=True) to replace it\n"
    )
    assert (tmp_path / "results.md").read_text() == "mine"
    evaluate.main([*arguments, "--out", str(tmp_path), "--overwrite"])
    assert (tmp_path / "results.md").read_text().startswith("### snail_sprint_v0")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--agents", "random", "expert"], "unknown agent 'expert'; agents: random"),
        (["--agents", "random", "ppo:nowhere.pt"], "no trained policy at nowhere.pt"),
        (["--agents", "random", "random", "-o", "num_players=9"], "num_players must be"),
    ],
)
def test_the_evaluate_command_ends_a_mistake_with_one_line(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(SystemExit) as stopped:
        evaluate.main(["--env=snail_sprint_v0", "--games=1", *arguments])
    error = capsys.readouterr().err
    assert stopped.value.code == 1 and len(error.splitlines()) == 1
    assert error.startswith("snail-eval: error: ") and message in error


def test_commands_end_on_ctrl_c_with_one_line(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "run_tournament", interrupted)
    with pytest.raises(SystemExit) as stopped:
        evaluate.main(["--env=snail_sprint_v0", "--agents", "random", "random"])
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "snail-eval: interrupted\n"
    monkeypatch.setattr(train, "train", interrupted)
    with pytest.raises(SystemExit) as stopped:
        train.main(["--env=snail_sprint_v0"])
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "snail-train: interrupted\n"
