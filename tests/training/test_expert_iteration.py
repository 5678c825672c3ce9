"""The expert iteration stage: the search's visit counts as targets, their distillation, a run
through `train()`, its stop and resume, and its settings checked."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import snail_envs.batched
from snail_envs.agents.search import policy_prior, torch_prior
from snail_envs.training import expert_iteration, train
from snail_envs.training.config import ExpertIterationConfig, load_config
from snail_envs.training.curve import curve_stages, curve_steps
from snail_envs.training.expert_iteration import (
    collect_search_targets,
    distillation_settings,
    divergence,
    make_search,
    visit_targets,
)
from snail_envs.training.imitation import DecisionKinds, agreement, clone
from tests.training.budgets import TINY_PPO

torch.set_num_threads(1)
SPRINT = {"num_players": 2}
TINY = [
    "--no-progress",
    "stages=[expert_iteration]",
    "expert_iteration.rounds=2",
    "expert_iteration.states=200",
    "expert_iteration.iterations=32",
    "expert_iteration.search_batch=16",
    "expert_iteration.n_envs=8",
    "expert_iteration.epochs=2",
    "expert_iteration.batch_size=64",
    "net_arch=[16]",
    "n_envs=2",
    "eval_games=0",
    "final_eval_games=0",
    "anchor_coef=0",
    "keep_best=false",
]
"""Two rounds of 200 states searched 32 iterations each, and no evaluation."""


def new_policy(net_arch: list[int] | None = None) -> Any:
    engine = snail_envs.batched.make("snail_sprint_v0", 1, **SPRINT)
    return MaskableActorCriticPolicy(
        engine.observation_space, engine.action_space, lambda _: 1e-3, net_arch=net_arch or [32]
    )


def gather(states: int, prior: bool, play: str = "search", policy: Any = None) -> Any:
    policy = new_policy() if policy is None else policy
    settings = ExpertIterationConfig(iterations=32, search_batch=16, prior=prior, play=play)
    engine = snail_envs.batched.make("snail_sprint_v0", 8, **SPRINT)
    search = make_search(settings, "snail_sprint_v0", policy, seed=3)
    kinds = DecisionKinds("snail_sprint_v0", SPRINT)
    data = collect_search_targets(
        engine, search, policy, kinds, states, play=play, held_out=0.3, seed=3
    )
    return policy, data


@pytest.mark.parametrize(("prior", "play"), [(False, "search"), (True, "network")])
def test_the_targets_are_distributions_over_the_legal_actions(prior: bool, play: str) -> None:
    _, data = gather(150, prior, play)
    assert len(data) >= 150 and data.targets.shape == data.masks.shape
    assert (data.masks.sum(axis=1) >= 2).all() and (data.kinds >= 0).all()  # choices only
    assert np.allclose(data.targets.sum(axis=1), 1.0)
    assert not data.targets[~data.masks].any() and (data.targets >= 0).all()
    assert data.masks[np.arange(len(data)), data.labels].all()
    assert (data.targets[np.arange(len(data)), data.labels] == data.targets.max(axis=1)).all()
    assert (data.targets.max(axis=1) < 1).any()  # the search spreads its visits
    assert data.finished.any() and not data.returns[~data.finished].any()
    assert 0.1 < data.held_out.mean() < 0.6


def test_visits_become_shares_of_the_legal_actions() -> None:
    mask = np.array([1, 0, 1, 1], np.int8)
    assert visit_targets(np.array([3, 9, 1, 0]), mask).tolist() == [0.75, 0.0, 0.25, 0.0]
    assert visit_targets(np.zeros(4, np.int64), mask) == pytest.approx([1 / 3, 0, 1 / 3, 1 / 3])


def test_a_temperature_sharpens_the_visit_shares_and_zero_keeps_the_most_visited() -> None:
    mask = np.array([1, 0, 1, 1], np.int8)
    assert visit_targets(np.array([3, 9, 1, 0]), mask, 0.5) == pytest.approx([0.9, 0, 0.1, 0])
    assert visit_targets(np.array([3, 9, 1, 0]), mask, 0.0).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert visit_targets(np.array([4, 9, 4, 1]), mask, 0.0).tolist() == [0.5, 0.0, 0.5, 0.0]
    assert visit_targets(np.array([2, 9, 1, 1]), mask, 2.0) == pytest.approx(
        np.array([2**0.5, 0, 1, 1]) / (2 + 2**0.5)
    )


def test_the_numpy_prior_is_the_policys_distribution() -> None:
    policy = new_policy([24, 12])
    generator = np.random.default_rng(0)
    views = generator.random((40, 487), dtype=np.float32)
    masks = (generator.random((40, 6)) < 0.5).astype(np.int8)
    masks[:, 1] = 1
    fast = policy_prior(policy)(views, masks)
    assert fast.dtype == np.float32 and not fast[masks == 0].any()
    assert np.allclose(fast, torch_prior(policy)(views, masks), atol=1e-6)


def test_distillation_moves_the_network_toward_the_search() -> None:
    policy, data = gather(300, prior=False)
    before = divergence(policy, data)
    agreed = agreement(policy, data, DecisionKinds("snail_sprint_v0", SPRINT))["all"][0]
    settings = ExpertIterationConfig(epochs=15, batch_size=64, learning_rate=3e-3)
    clone(policy, data, distillation_settings(settings), seed=0, progress=False)
    after = divergence(policy, data)
    assert before is not None and after is not None
    assert after[1] < 0.7 * before[1] and after[0] < before[0]  # KL and cross-entropy
    assert agreement(policy, data, DecisionKinds("snail_sprint_v0", SPRINT))["all"][0] > agreed


def test_one_hot_targets_train_as_the_hard_labels_do() -> None:
    """The soft-target loss is the imitation stage's own on one-hot targets."""
    _, data = gather(120, prior=False)
    data.targets = np.eye(data.masks.shape[1], dtype=np.float32)[data.labels]
    hard = type(data)(**{**data.__dict__, "targets": None})
    soft_policy, hard_policy = new_policy(), new_policy()
    hard_policy.load_state_dict(soft_policy.state_dict())
    settings = distillation_settings(ExpertIterationConfig(epochs=2, batch_size=32))
    soft_loss, _ = clone(soft_policy, data, settings, seed=0, progress=False)
    hard_loss, _ = clone(hard_policy, hard, settings, seed=0, progress=False)
    assert soft_loss == pytest.approx(hard_loss, rel=1e-5)
    soft, trained = soft_policy.state_dict(), hard_policy.state_dict()
    assert all(torch.allclose(soft[name], trained[name], atol=1e-5) for name in soft)


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)


def same_weights(a: Path, b: Path) -> bool:
    first, second = weights(a), weights(b)
    return first.keys() == second.keys() and all(torch.equal(first[n], second[n]) for n in first)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A tiny run of two rounds; the same run stopped by SIGINT as its round 2 begins its
    search, then resumed."""
    out = tmp_path_factory.mktemp("expert")
    whole = train.main(["--env", "snail_sprint_v0", *TINY, f"output_dir={out / 'whole'}"])
    searching = expert_iteration.collect_search_targets

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if kwargs["description"].startswith("round 2"):
            os.kill(os.getpid(), signal.SIGINT)
        return searching(*args, **kwargs)

    errors = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stderr(errors),
        pytest.raises(SystemExit) as stopped,
    ):
        patch.setattr(expert_iteration, "collect_search_targets", interrupted)
        train.main(["--env", "snail_sprint_v0", *TINY, f"output_dir={out / 'stopped'}"])
    (run,) = (out / "stopped").iterdir()
    stopped_summary = json.loads((run / "summary.json").read_text())
    stopped_state = json.loads((run / "expert_iteration" / "state.json").read_text())
    stopped_policy = weights(run / "policy.pt")
    resumed = train.main(["--resume", str(run), "--no-progress"])
    return {
        "whole": whole,
        "code": stopped.value.code,
        "error": errors.getvalue(),
        "stopped": stopped_summary,
        "stopped_state": stopped_state,
        "stopped_policy": stopped_policy,
        "resumed": resumed,
    }


def test_a_tiny_run_distils_round_after_round(runs: dict[str, Any]) -> None:
    summary = runs["whole"]
    run = Path(summary["run_dir"])
    assert summary["interrupted"] is None and list(summary["stage_seconds"]) == ["expert_iteration"]
    assert summary["policy_made_by"] == "expert_iteration"
    reports = summary["expert_iteration"]
    assert [report["round"] for report in reports] == [1, 2]
    assert all(report["states"] >= 200 and report["kl"] is not None for report in reports)
    assert reports[1]["searched_states"] == reports[0]["states"] + reports[1]["states"]
    curve = summary["learning_curve"]
    assert [point["stage"] for point in curve] == ["expert_iteration"] * 2
    assert [p["searched_states"] for p in curve] == [r["searched_states"] for r in reports]
    assert curve_steps(curve) == [r["searched_states"] for r in reports]
    assert (run / "learning_curve.png").exists()
    folder = run / "expert_iteration"
    assert sorted(path.name for path in folder.glob("round_*")) == [
        *("round_0.json", "round_0.pt"),
        *("round_1.json", "round_1.npz", "round_1.pt"),
        *("round_2.json", "round_2.npz", "round_2.pt"),
    ]
    assert same_weights(run / "policy.pt", folder / "round_2.pt")
    assert not same_weights(folder / "round_1.pt", folder / "round_2.pt")
    state = json.loads((folder / "state.json").read_text())
    assert state["rounds_done"] == 2 and state["reports"] == reports


def test_a_stop_in_a_round_keeps_the_rounds_done_and_resume_goes_on_at_the_next(
    runs: dict[str, Any],
) -> None:
    stopped, resumed, whole = runs["stopped"], runs["resumed"], runs["whole"]
    run = Path(stopped["run_dir"])
    assert runs["code"] == 128 + signal.SIGINT.value
    assert runs["error"].strip().splitlines()[-1] == (
        "snail-train: stopped by SIGINT in the expert_iteration stage after 1 of its 2 rounds, "
        f"each saved; continue with: snail-train --resume {run}"
    )
    assert stopped["interrupted"] == "SIGINT" and stopped["stopped_in"] == "expert_iteration"
    assert [report["round"] for report in stopped["expert_iteration"]] == [1]
    assert runs["stopped_state"]["rounds_done"] == 1
    # the run's policy is that of round 1, not the half-searched round 2's
    round_1 = weights(run / "expert_iteration" / "round_1.pt")
    assert all(torch.equal(runs["stopped_policy"][n], round_1[n]) for n in round_1)
    # resumed at round 2, it ends as the run that was never stopped
    assert resumed["interrupted"] is None and resumed["run_dir"] == str(run)
    timeless = [{**r, "search_seconds": 0} for r in resumed["expert_iteration"]]
    assert timeless == [{**r, "search_seconds": 0} for r in whole["expert_iteration"]]
    assert [p["stage"] for p in resumed["learning_curve"]] == ["expert_iteration"] * 2
    seconds = [run["stage_seconds"]["expert_iteration"] for run in (stopped, resumed)]
    assert seconds[1] > seconds[0]
    assert same_weights(run / "policy.pt", Path(whole["run_dir"]) / "policy.pt")


def test_a_finished_stage_does_more_rounds_only_when_asked(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    shutil.copytree(runs["whole"]["run_dir"], run)
    for arguments, message in [
        ([], "has done 2 rounds of its expert_iteration stage, of its expert_iteration.rounds=2"),
        (["expert_iteration.iterations=64"], "a resumed run keeps its config"),
    ]:
        with pytest.raises(SystemExit) as refused:
            train.main(["--resume", str(run), "--no-progress", *arguments])
        error = capsys.readouterr().err
        assert refused.value.code == 1 and message in error and len(error.splitlines()) == 1
    more = train.main(["--resume", str(run), "--no-progress", "expert_iteration.rounds=3"])
    reports = more["expert_iteration"]
    assert [report["round"] for report in reports] == [1, 2, 3]
    assert reports[2]["trained_states"] > reports[1]["trained_states"]  # keep_rounds 0: all
    assert json.loads((run / "config.json").read_text())["expert_iteration"]["rounds"] == 3


def test_a_resume_refuses_another_runs_state_and_missing_rounds(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(run: Path, message: str) -> None:
        with pytest.raises(SystemExit) as stopped:
            train.main(["--resume", str(run), "--no-progress", "expert_iteration.rounds=3"])
        error = capsys.readouterr().err
        assert stopped.value.code == 1 and len(error.splitlines()) == 1, error
        assert message in error, error

    def copy(name: str) -> tuple[Path, Path, dict[str, Any]]:
        run = tmp_path / name
        shutil.copytree(runs["whole"]["run_dir"], run)
        path = run / "expert_iteration" / "state.json"
        return run, path, json.loads(path.read_text())

    run, path, state = copy("other-game")
    path.write_text(json.dumps({**state, "env_options": {"num_players": 3}}))
    refused(run, "is of a run of snail_sprint_v0 {'num_players': 3}, not of this run's")
    run, path, state = copy("other-settings")
    settings = {**state["settings"], "iterations": 64}
    path.write_text(json.dumps({**state, "settings": settings}))
    refused(run, "other expert_iteration settings than this run's (iterations)")
    run, _, _ = copy("no-network")
    (run / "expert_iteration" / "round_2.pt").unlink()
    refused(run, "the network of round 2 is missing")
    run, _, _ = copy("no-states")
    (run / "expert_iteration" / "round_1.npz").unlink()
    refused(run, "the states of round 1 are missing")


def test_the_stage_before_ppo_hands_it_its_network(tmp_path: Path) -> None:
    expert = [o for o in TINY if not o.startswith(("stages", "expert_iteration.rounds"))]
    ppo = [o for o in TINY_PPO if not o.startswith("total_timesteps")]
    summary = train.main(
        [
            "--env=snail_sprint_v0",
            *expert,
            *ppo,
            "stages=[expert_iteration, ppo]",
            "expert_iteration.rounds=1",
            "total_timesteps=128",
            "anchor_coef=0.5",
            f"output_dir={tmp_path}",
        ]
    )
    run = Path(summary["run_dir"])
    assert list(summary["stage_seconds"]) == ["expert_iteration", "ppo"]
    network = run / "expert_iteration" / "round_1.pt"
    assert same_weights(run / "clone.pt", network)  # the anchor of the ppo stage
    assert same_weights(run / "checkpoints" / "step_0000000000" / "policy.pt", network)


def test_the_curve_lays_each_stage_after_the_ones_before() -> None:
    curve = [
        {"stage": "imitation", "labelled_states": 600},
        {"stage": "imitation", "labelled_states": 900},
        {"stage": "ppo", "timesteps": 64},
        {"stage": "ppo", "timesteps": 192},
        {"stage": "expert_iteration", "searched_states": 200, "timesteps": 256},
        {"stage": "expert_iteration", "searched_states": 400, "timesteps": 256},
        {"stage": "final", "timesteps": 256},
    ]
    steps, starts = curve_stages(curve)
    assert steps == [600, 900, 964, 1092, 1356, 1556, 1556]
    assert starts == [(900, "ppo"), (1156, "expert_iteration")]
    before_ppo = [curve[0], *curve[4:6], {"stage": "ppo", "timesteps": 0}, curve[-1]]
    before_ppo[1:3] = [{**p, "timesteps": 0} for p in before_ppo[1:3]]
    assert curve_stages(before_ppo) == (
        [600, 800, 1000, 1000, 1256],
        [(600, "expert_iteration"), (1000, "ppo")],
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (
            ["expert_iteration.value=wins"],
            r"expert_iteration.value must be one of win, points, margin; got 'wins' \(did you",
        ),
        (["expert_iteration.iterations=0"], "expert_iteration.iterations must be at least 1"),
        (["expert_iteration.play=human"], "expert_iteration.play must be one of search, netw"),
        (
            ["expert_iteration.horizon=turn"],
            "expert_iteration.horizon must be one of default, game, round",
        ),
        (["expert_iteration.held_out=1"], r"expert_iteration.held_out must be in \[0, 1\)"),
        (["expert_iteration.prior=maybe"], "expert_iteration.prior must be of type bool"),
        (["expert_iteration.keep_rounds=-1"], "expert_iteration.keep_rounds must be at least 0"),
        (["expert_iteration.temperature=-1"], "expert_iteration.temperature must be at least 0"),
        (
            ["expert_iteration.iteration=9"],
            r"unknown field 'expert_iteration.iteration' \(did you mean 'expert_iteration.iter",
        ),
        (["stages=[expert_iteration, imitation]"], "stages go in the order imitation, ppo, exp"),
        (["stages=[expert_iteration, expert_iteration]"], "each once"),
        (["stages=[imitation, expert_itteration]"], r"did you mean 'expert_iteration'\?"),
    ],
)
def test_bad_settings_are_refused_when_the_config_loads(overrides: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load_config("snail_sprint_v0", overrides=["stages=[expert_iteration]", *overrides])


def test_the_stage_orders_and_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    for stages in ("[imitation, expert_iteration, ppo]", "[imitation, ppo, expert_iteration]"):
        assert load_config("snail_sprint_v0", overrides=[f"stages={stages}"]).stages[0] == (
            "imitation"
        )
    with pytest.raises(SystemExit):
        train.main(["--help"])
    shown = capsys.readouterr().out
    for name in ExpertIterationConfig.__dataclass_fields__:
        assert f"\n  expert_iteration.{name} (" in shown, name
