"""The advantage stage: a state's weight and loss, its labels from the rollout search's paired
comparison, its training, a run through `train()` with its stop and resume, and its settings
checked."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import snail_envs.batched
from snail_envs.agents.rollout_search import VALUES, PairedComparison
from snail_envs.training import advantage, train
from snail_envs.training.advantage import (
    LabelledDecision,
    advantage_weight,
    distil,
    distillation_loss,
    gather,
    labels_of,
    make_search,
    training_order,
    weighted_agreement,
)
from snail_envs.training.config import (
    ROLLOUT_HORIZONS,
    ROLLOUT_VALUES,
    AdvantageConfig,
    load_config,
)

torch.set_num_threads(1)
GAME = "snailed_it_v0"
OPTIONS = {"num_players": 3}
TINY = [
    "--no-progress",
    "stages=[advantage]",
    "env_options.num_players=3",
    "advantage.rounds=2",
    "advantage.states=120",
    "advantage.worlds=4",
    "advantage.epochs=2",
    "advantage.batch_size=32",
    "advantage.held_out=0.3",
    "net_arch=[16]",
    "n_envs=2",
    "eval_games=0",
    "final_eval_games=0",
    "anchor_coef=0",
    "keep_best=false",
]
"""Two rounds of 120 states measured in 4 worlds each, and no evaluation."""


def new_policy() -> Any:
    engine = snail_envs.batched.make(GAME, 1, **OPTIONS)
    return MaskableActorCriticPolicy(
        engine.observation_space, engine.action_space, lambda _: 1e-3, net_arch=[32]
    )


def test_a_state_weighs_only_where_the_preference_exceeds_its_noise() -> None:
    gap = np.array([1.0, 1.0, 1.5, -0.5, 0.0, 0.3])
    stderr = np.array([0.5, 0.6, 0.5, 0.1, 0.0, 0.1])
    assert advantage_weight(gap, stderr, z=2.0) == pytest.approx([0, 0, 0.5, 0, 0, 0.1])
    assert advantage_weight(gap, stderr, z=0.0) == pytest.approx([1, 1, 1.5, 0, 0, 0.3])


def test_the_loss_weighs_the_searchs_action_and_keeps_the_networks() -> None:
    log_probabilities = torch.log(torch.tensor([[0.5, 0.25, 0.25], [0.5, 0.25, 0.25]]))
    best, kept = torch.tensor([1, 1]), torch.tensor([0, 0])
    weights = torch.tensor([0.0, 2.0])
    loss = distillation_loss(log_probabilities, best, weights, kept, keep_coef=0.1)
    assert loss.tolist() == pytest.approx([0.1 * np.log(2), 2 * np.log(4) + 0.1 * np.log(2)])


def test_each_epoch_draws_the_states_where_the_search_leaves_more_often() -> None:
    order = training_order(np.array([0.0, 0.4, 0.0, 1.2], np.float32), oversample=3)
    assert np.bincount(order).tolist() == [1, 3, 1, 3]
    assert training_order(np.array([0.0, 0.4], np.float32), oversample=1).tolist() == [0, 1]


def test_labels_measure_the_best_action_against_the_networks_choice() -> None:
    """Four worlds; the heuristic plays 2, the network 4; action 7 beats 4 by 2 points in every
    world, action 4 beats 2 by 1 point in two worlds of four."""
    margins = np.array([[0.0, 1.0, 3.0], [0.0, 1.0, 3.0], [0.0, 0.0, 2.0], [0.0, 0.0, 2.0]])
    compared = PairedComparison(legal=[2, 4, 7], heuristic=2, values=margins)
    mask = np.zeros(9, bool)
    mask[[2, 4, 7]] = True
    decision = LabelledDecision(np.zeros(5, np.float32), mask, False, compared, network=4)
    labels = labels_of([decision])
    assert labels.advantages[0].tolist() == [0, 0, 0, 0, 0.5, 0, 0, 2.5, 0]
    assert labels.stderrs[0, 7] == pytest.approx(np.std([3, 3, 2, 2], ddof=1) / 2)
    assert (labels.heuristic, labels.network, labels.best) == ([2], [4], [7])
    assert labels.gap_stderr.tolist() == [0.0]  # 7 beats 4 by 2 in every world
    assert labels.weights(z=100.0).tolist() == [2.0]
    networks_best = LabelledDecision(np.zeros(5, np.float32), mask, False, compared, network=7)
    assert labels_of([networks_best]).weights(z=0.0).tolist() == [0.0]


def test_training_follows_the_search_where_it_weighs() -> None:
    policy = new_policy()
    settings = AdvantageConfig(worlds=4, z=0.0, epochs=30, batch_size=32, learning_rate=3e-3)
    labels = gather(GAME, OPTIONS, policy, make_search(settings, GAME, seed=1), 100, seed=1)
    assert len(labels) == 100 and (labels.masks.sum(axis=1) >= 2).all()
    assert labels.masks[np.arange(100), labels.best].all()
    assert labels.masks[np.arange(100), labels.heuristic].all()
    leaving = labels.weights(settings.z) > 0
    assert 0 < leaving.mean() < 1
    assert weighted_agreement(policy, labels, settings.z) == 0.0  # by construction
    distil(policy, labels, settings, seed=0)
    assert weighted_agreement(policy, labels, settings.z) > 0.8


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)


def same_weights(a: Path, b: Path) -> bool:
    first, second = weights(a), weights(b)
    return first.keys() == second.keys() and all(torch.equal(first[n], second[n]) for n in first)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A tiny run of two rounds; the same run stopped by SIGINT as its round 2 begins to label,
    then resumed."""
    out = tmp_path_factory.mktemp("advantage")
    whole = train.main(["--env", GAME, *TINY, f"output_dir={out / 'whole'}"])
    labelling = advantage.gather

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        if kwargs["description"].startswith("round 2"):
            os.kill(os.getpid(), signal.SIGINT)
        return labelling(*args, **kwargs)

    errors = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stderr(errors),
        pytest.raises(SystemExit) as stopped,
    ):
        patch.setattr(advantage, "gather", interrupted)
        train.main(["--env", GAME, *TINY, f"output_dir={out / 'stopped'}"])
    (run,) = (out / "stopped").iterdir()
    stopped_summary = json.loads((run / "summary.json").read_text())
    resumed = train.main(["--resume", str(run), "--no-progress"])
    return {
        "whole": whole,
        "code": stopped.value.code,
        "error": errors.getvalue(),
        "stopped": stopped_summary,
        "resumed": resumed,
    }


def test_a_tiny_run_reports_and_saves_every_round(runs: dict[str, Any]) -> None:
    summary = runs["whole"]
    run = Path(summary["run_dir"])
    assert summary["interrupted"] is None and summary["policy_made_by"] == "advantage"
    reports = summary["advantage"]
    assert [report["round"] for report in reports] == [1, 2]
    assert [report["states"] for report in reports] == [120, 120]
    assert [report["measured_states"] for report in reports] == [120, 240]
    assert all(0 < report["leaves"] < 1 and report["gain"] > 0 for report in reports)
    assert all(0 < report["trained_states"] <= 120 for report in reports)
    curve = summary["learning_curve"]
    assert [(point["stage"], point["measured_states"]) for point in curve] == [
        ("advantage", 120),
        ("advantage", 240),
    ]
    folder = run / "advantage"
    assert sorted(path.name for path in folder.glob("round_*")) == [
        *("round_0.json", "round_0.pt"),
        *("round_1.json", "round_1.npz", "round_1.pt"),
        *("round_2.json", "round_2.npz", "round_2.pt"),
    ]
    with np.load(folder / "round_2.npz") as saved:
        assert len(saved["best"]) == 120 and saved["advantages"].shape == saved["masks"].shape
    assert same_weights(run / "policy.pt", folder / "round_2.pt")
    assert not same_weights(folder / "round_1.pt", folder / "round_2.pt")
    state = json.loads((folder / "state.json").read_text())
    assert state["rounds_done"] == 2 and state["reports"] == reports


def test_a_stopped_run_resumes_at_the_next_round(runs: dict[str, Any]) -> None:
    stopped, resumed, whole = runs["stopped"], runs["resumed"], runs["whole"]
    run = Path(stopped["run_dir"])
    assert runs["code"] == 128 + signal.SIGINT.value
    assert runs["error"].strip().splitlines()[-1] == (
        "snail-train: stopped by SIGINT in the advantage stage after 1 of its 2 rounds, "
        f"each saved; continue with: snail-train --resume {run}"
    )
    assert [report["round"] for report in stopped["advantage"]] == [1]
    assert [report["round"] for report in resumed["advantage"]] == [1, 2]
    timeless = [{**r, "search_seconds": 0} for r in resumed["advantage"]]
    assert timeless == [{**r, "search_seconds": 0} for r in whole["advantage"]]
    assert same_weights(run / "policy.pt", Path(whole["run_dir"]) / "policy.pt")


def test_the_rollout_horizons_and_values_are_the_searchs() -> None:
    assert snail_envs.batched.engine_class(GAME).horizons == ROLLOUT_HORIZONS
    assert ROLLOUT_VALUES == VALUES


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["advantage.states=0"], r"^command line, advantage.states=0: advantage.states must be "),
        (["advantage.rounds=0"], r"^command line, advantage.rounds=0: advantage.rounds must be "),
        (["advantage.worlds=1"], "advantage.worlds must be at least 2; got 1"),
        (["advantage.z=-1"], "advantage.z must be at least 0"),
        (["advantage.oversample=0"], "advantage.oversample must be at least 1"),
        (["advantage.held_out=1"], r"advantage.held_out must be in \[0, 1\)"),
        (["advantage.horizon=turn"], "advantage.horizon must be one of round, game; got 'turn'"),
        (["advantage.value=lead"], "advantage.value must be one of margin, win; got 'lead'"),
        (["advantage.world=9"], r"unknown field 'advantage.world' \(did you mean 'advantage.wor"),
        (["stages=[advantage, imitation]"], "stages go in the order imitation, ppo, expert_it"),
        (["env_options.num_players=3"], "the advantage stage cannot label snail_sprint_v0"),
    ],
)
def test_bad_settings_are_refused_when_the_config_loads(overrides: list[str], message: str) -> None:
    game = "snail_sprint_v0" if overrides[0].startswith("env_options") else GAME
    with pytest.raises(ValueError, match=message) as refused:
        load_config(game, overrides=["stages=[advantage]", *overrides])
    assert "\n" not in str(refused.value)


def test_the_help_documents_every_setting(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train.main(["--help"])
    shown = capsys.readouterr().out
    for name in AdvantageConfig.__dataclass_fields__:
        assert f"\n  advantage.{name} (" in shown, name
