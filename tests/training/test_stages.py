"""The training stages: imitation of a teacher, anchored PPO from the clone, their configuration."""

from __future__ import annotations

import copy
import gc
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import snail_envs.batched
from snail_envs.agents import RandomAgent, make_agent
from snail_envs.agents.ppo import PPOAgent, save_policy
from snail_envs.training import train
from snail_envs.training.config import STAGES, load_config
from snail_envs.training.curve import summary_figure
from snail_envs.training.evaluate import score_against
from snail_envs.training.finetune import Anchor, AnchoredPolicy
from snail_envs.training.imitation import (
    AgentTeacher,
    DecisionKinds,
    ImitationConfig,
    KernelHeuristic,
    agreement,
    class_weights,
    clone,
    collect,
    imitate,
)
from snail_envs.training.report import print_summary
from snail_envs.training.stages import STAGES as REGISTRY
from tests.names import SNAP
from tests.training.budgets import TINY_PPO

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


class LowestLegal:
    """A teacher that always plays its lowest legal action."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[0])


def new_policy(env_name: str, num_players: int, cls: type = MaskableActorCriticPolicy) -> object:
    engine = snail_envs.batched.make(env_name, 1, num_players=num_players)
    return cls(engine.observation_space, engine.action_space, lambda _: 1e-3, net_arch=[32])


def test_imitation_learns_a_trivial_teacher_in_every_decision_kind() -> None:
    policy = new_policy("snailed_it_v0", 3)
    config = ImitationConfig(
        states=3000, dagger_rounds=1, dagger_states=1000, epochs=8, batch_size=128, n_envs=32
    )
    reports = imitate(
        policy, "snailed_it_v0", {"num_players": 3}, config, teacher=LowestLegal(), progress=False
    )
    assert [r.round for r in reports] == [0, 1]
    assert reports[-1].labelled_states == reports[0].states + reports[1].states >= 4000
    agreement = reports[-1].agreement
    assert {"play", "pass+toss"} <= set(agreement)
    assert agreement["all"][0] > 0.95 and agreement["all"][1] > 50


def test_the_recorded_returns_are_each_seats_result() -> None:
    """With gamma 1 and win/lose rewards, every decision of a finished game returns +1 (a win,
    shared or not) or −1; the decisions of unfinished games return nothing."""
    engine = snail_envs.batched.make("snail_sprint_v0", 16, num_players=2)
    kinds = DecisionKinds("snail_sprint_v0", {"num_players": 2})
    data = collect(engine, KernelHeuristic(), kinds, 2000, gamma=1.0, held_out=0.5)
    assert data.finished.any() and not data.finished.all()
    assert set(np.unique(data.returns[data.finished]).tolist()) == {-1.0, 1.0}
    assert not data.returns[~data.finished].any()
    assert 0.3 < data.held_out.mean() < 0.7
    assert data.masks[np.arange(len(data)), data.labels].all()  # the labels are legal moves


def test_forced_decisions_can_be_left_out_of_the_data() -> None:
    engine = snail_envs.batched.make("snailed_it_v0", 16, num_players=3)
    kinds = DecisionKinds("snailed_it_v0", {"num_players": 3})
    every = collect(engine, KernelHeuristic(), kinds, 1500)
    choices = collect(engine, KernelHeuristic(), kinds, 1500, record_forced=False)
    assert (every.kinds < 0).any()
    assert len(choices) >= 1500 and (choices.kinds >= 0).all()
    assert (choices.masks.sum(axis=1) > 1).all()


def test_random_seats_show_the_clone_the_tables_careless_players_make() -> None:
    """Snap, equal reflexes: heuristic players never call wrongly, so the pool stays empty at
    their tables; seats playing at random now and then make a wrong call, whose pile goes to
    the pool, and the recorded (heuristic) seats see it. Their labels stay the teacher's."""
    options = {"num_players": 2, "same_tick": "random", "refresh": "shuffle"}
    engine = snail_envs.batched.make(SNAP, 16, **options)
    kinds = DecisionKinds(SNAP, options)
    layout = engine.observation_layout
    pool = slice(layout.offset("pool_sizes"), layout.offset("pool_sizes") + 13)
    careful = collect(engine, KernelHeuristic(), kinds, 3000)
    careless = collect(engine, KernelHeuristic(), kinds, 3000, random_seats=0.5)
    assert not careful.observations[:, pool].any()
    assert careless.observations[:, pool].any(axis=1).mean() > 0.05
    with pytest.raises(ValueError, match=r"imitation.random_seats must be in \[0, 1\); got 1.0"):
        load_config(SNAP, overrides=["imitation.random_seats=1"])


def test_early_stopping_keeps_the_best_held_out_epoch() -> None:
    """A random teacher cannot be learnt: the held-out agreement stops improving, the training
    stops `patience` epochs later, and the policy keeps the weights of its best epoch."""
    policy = new_policy("snail_sprint_v0", 2)
    engine = snail_envs.batched.make("snail_sprint_v0", 16, num_players=2)
    kinds = DecisionKinds("snail_sprint_v0", {"num_players": 2})
    data = collect(engine, AgentTeacher(RandomAgent(0)), kinds, 3000, held_out=0.3)
    held_out = data.select(np.flatnonzero(data.held_out))
    config = ImitationConfig(epochs=40, batch_size=64, patience=2, learning_rate=3e-3)
    _, shares = clone(
        policy, data.select(np.flatnonzero(~data.held_out)), config, 0, False, held_out
    )
    best = shares.index(max(shares))
    assert 3 <= len(shares) < 40
    assert len(shares) == best + 1 + config.patience, "it stops `patience` epochs after its best"
    assert agreement(policy, held_out, kinds)["all"][0] == pytest.approx(max(shares))
    with pytest.raises(ValueError, match=r"imitation\.patience stops on held-out states"):
        ImitationConfig(patience=2, held_out=0.0)


def test_rare_actions_weigh_more() -> None:
    labels = np.array([0] * 90 + [1] * 10)
    weights = class_weights(labels, 3, power=1.0)
    assert weights.mean() == pytest.approx(1.0)
    assert weights[-1] == pytest.approx(9 * weights[0])
    assert np.allclose(class_weights(labels, 3, power=0.0), 1.0)


def test_the_anchor_adds_the_gradient_of_its_kl_term() -> None:
    policy = new_policy("snail_sprint_v0", 2, AnchoredPolicy)
    clone = copy.deepcopy(policy)
    with torch.no_grad():
        for parameter in policy.parameters():
            parameter.add_(0.3 * torch.randn_like(parameter))
    policy.anchor = Anchor(clone, coef=2.0)
    generator = np.random.default_rng(0)
    observations = torch.as_tensor(generator.random((20, 487), dtype=np.float32))
    masks = torch.as_tensor(generator.random((20, 6)) < 0.6)
    masks[:, 2] = True
    _, log_prob, _ = policy.evaluate_actions(observations, torch.full((20,), 2), masks)
    (0.0 * log_prob.sum()).backward()  # PPO's loss contributes nothing: only the anchor pulls
    pulled = [p.grad.clone() for p in policy.parameters() if p.grad is not None]
    policy.zero_grad()
    log_probs = policy.get_distribution(observations, masks).distribution.logits
    target = clone.get_distribution(observations, masks).distribution.probs.detach()
    kl = torch.where(target > 0, target * (torch.log(target) - log_probs), 0.0).sum(1).mean()
    (2.0 * kl).backward()
    expected = [p.grad for p in policy.parameters() if p.grad is not None]
    assert len(pulled) == len(expected) > 0
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(pulled, expected, strict=True))
    assert policy.anchor.divergences == [pytest.approx(kl.item(), rel=1e-4)]
    assert kl.item() > 0


def is_live_tensor(thing: object) -> bool:
    """Whether a thing `gc.get_objects` found is a tensor: a weak proxy whose object is gone (which
    `isinstance` answers with a `ReferenceError`) is not."""
    try:
        return torch.is_tensor(thing)
    except ReferenceError:
        return False


@pytest.mark.filterwarnings("ignore::FutureWarning")  # gc.get_objects meets deprecated torch names
def test_the_anchor_keeps_no_minibatch_alive() -> None:
    """Anchored updates keep nothing of their minibatches once PPO's backward pass is done (a
    hook on the logits kept a tensor of every one alive: a run's memory grew without end)."""
    policy = new_policy("snail_sprint_v0", 2, AnchoredPolicy)
    policy.anchor = Anchor(copy.deepcopy(policy), coef=2.0)
    generator = np.random.default_rng(0)
    observations = torch.as_tensor(generator.random((20, 487), dtype=np.float32))
    masks = torch.ones((20, 6), dtype=torch.bool)

    def live_tensors_after(updates: int) -> int:
        for _ in range(updates):
            _, log_prob, _ = policy.evaluate_actions(observations, torch.full((20,), 2), masks)
            log_prob.sum().backward()
        del log_prob
        gc.collect()
        return sum(1 for thing in gc.get_objects() if is_live_tensor(thing))

    before = live_tensors_after(3)
    assert live_tensors_after(30) == before


TINY = [
    "--no-progress",
    "stages=[imitation, ppo]",
    "imitation.states=600",
    "imitation.dagger_rounds=1",
    "imitation.dagger_states=300",
    "imitation.epochs=2",
    "imitation.n_envs=16",
    *TINY_PPO,
    "eval_games=4",
    "final_eval_games=4",
    "net_arch=[16]",
    "anchor_coef=1.0",
    "anchor_decay_steps=200",
    "keep_best=true",
    "learning_rate=0.00001",
    "ent_coef=0",
]


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)


@pytest.fixture(scope="module")
def two_stages(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A tiny run through both stages, then resumed to twice its timesteps."""
    out = tmp_path_factory.mktemp("runs")
    first = train.main(["--env", "snail_sprint_v0", *TINY, f"output_dir={out}"])
    run = Path(first["run_dir"])
    before = json.loads((run / "summary.json").read_text())
    checkpoints = sorted(path.name for path in (run / "checkpoints").iterdir())
    best_before = weights(run / "best_policy.pt")
    final_before = weights(run / "policy.pt")
    resumed = train.main(["--resume", first["run_dir"], "--no-progress", "total_timesteps=512"])
    return {
        "before": before,
        "checkpoints": checkpoints,
        "best": best_before,
        "final": final_before,
        "resumed": resumed,
    }


def test_a_tiny_run_goes_through_both_stages(two_stages: dict) -> None:
    summary = two_stages["before"]
    run = Path(summary["run_dir"])
    assert list(summary["stage_seconds"]) == ["imitation", "ppo"]
    assert summary["train_seconds"] == pytest.approx(
        sum(summary["stage_seconds"].values()), abs=0.2
    )
    assert [r["round"] for r in summary["imitation"]] == [0, 1]
    stages = [point["stage"] for point in summary["learning_curve"]]
    assert stages == ["imitation", "imitation", *["ppo"] * (len(stages) - 3), "final"]
    # the last round scored the clone where the ppo stage starts: no second point there
    ppo_points = [point["timesteps"] for point in summary["learning_curve"][2:]]
    assert ppo_points[0] > 0 and ppo_points == sorted(ppo_points)
    assert (run / "learning_curve.png").exists() and summary["interrupted"] is None
    assert summary["config"]["imitation"]["states"] == 600
    # the ppo stage starts from the clone, with a checkpoint, and keeps its best policy
    assert two_stages["checkpoints"] == ["step_0000000000", "step_0000000128", "step_0000000256"]
    clone = weights(run / "clone.pt")
    start = weights(run / "checkpoints" / "step_0000000000" / "policy.pt")
    assert all(torch.equal(clone[name], start[name]) for name in clone)
    assert summary["best"]["opponent"] == "heuristic"
    assert summary["policy"] == str(run / "policy.pt") and not list(run.glob("*.zip"))
    assert summary["policy_made_by"] == "imitation"  # the ppo stage did not beat the clone
    best, final = two_stages["best"], two_stages["final"]
    assert all(torch.equal(best[name], final[name]) for name in best)


def test_a_resumed_run_keeps_its_clone_anchor_and_best(two_stages: dict) -> None:
    before, resumed = two_stages["before"], two_stages["resumed"]
    run = Path(before["run_dir"])
    assert resumed["run_dir"] == str(run) and resumed["timesteps"] == 512
    assert resumed["imitation"] == before["imitation"]
    stopped, ended = (
        json.loads((run / "checkpoints" / f"step_{steps:010d}" / "state.json").read_text())
        for steps in (256, 512)
    )
    assert ended["stage_seconds"]["imitation"] == stopped["stage_seconds"]["imitation"]
    assert ended["stage_seconds"]["ppo"] > stopped["stage_seconds"]["ppo"]
    *measured, final_point = before["learning_curve"]  # the final evaluation is measured anew
    assert final_point["stage"] == "final" and resumed["learning_curve"][-1]["stage"] == "final"
    assert resumed["learning_curve"][: len(measured)] == measured
    assert resumed["best"]["score_rate"] >= before["best"]["score_rate"]
    assert resumed["best"]["timesteps"] <= 512
    best, final = weights(run / "best_policy.pt"), weights(run / "policy.pt")
    assert all(torch.equal(best[name], final[name]) for name in best)


@pytest.mark.slow
def test_a_stop_in_the_imitation_stage_ends_cleanly_and_is_not_resumed(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "snail_envs.training.train", "--env=snail_sprint_v0", *TINY]
    command += ["imitation.states=2000000", f"output_dir={tmp_path}"]  # minutes of labelling
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    process = subprocess.Popen(command, cwd=ROOT, env=environment, **pipes)
    try:
        run = Path(process.stdout.readline().removeprefix("run folder: ").strip())
        assert process.stdout.readline().startswith("=== stage 1/2: imitation of heuristic")
        time.sleep(2)  # into the labelling of round 0
        process.send_signal(signal.SIGINT)
        _, error = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGINT.value, error
    assert "Traceback" not in error
    assert error.splitlines()[-1].startswith(
        "snail-train: stopped by SIGINT in the imitation stage, which is not resumed"
    )
    summary = json.loads((run / "summary.json").read_text())
    assert summary["interrupted"] == "SIGINT" and summary["stopped_in"] == "imitation"
    assert summary["policy"] is summary["checkpoint"] is None and summary["timesteps"] == 0
    assert not (run / "checkpoints").exists() and not list(run.glob("*.pt"))
    with pytest.raises(
        FileNotFoundError, match="stopped in its imitation stage, which is not resumed"
    ):
        train.resume(run)


def test_every_stage_a_config_may_name_is_registered_once() -> None:
    assert sorted(REGISTRY) == sorted(STAGES)
    assert all(name == stage.name for name, stage in REGISTRY.items())
    counts = [stage.count for stage in REGISTRY.values()]
    assert len(set(counts)) == len(counts) and "timesteps" in counts


def test_stage_configurations_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match=r"stages must name one or more of imitation, ppo.*'rl'"):
        load_config("snail_sprint_v0", overrides=["stages=[imitation, rl]"])
    with pytest.raises(ValueError, match="stages go in the order imitation, ppo"):
        load_config("snail_sprint_v0", overrides=["stages=[ppo, imitation]"])
    with pytest.raises(ValueError, match=r"unknown field 'imitation.epoch' \(did you mean 'imi"):
        load_config("snail_sprint_v0", overrides=["imitation.epoch=3"])
    with pytest.raises(ValueError, match=r"anchor_coef anchors the ppo stage.*needs stages"):
        load_config("snail_sprint_v0", overrides=["stages=[ppo]", "anchor_coef=0.5"])
    with pytest.raises(ValueError, match=r"imitation.dagger_states must be at least 0"):
        load_config("snail_sprint_v0", overrides=["imitation.dagger_states=-1"])
    imitating = ["stages=[imitation]"]
    with pytest.raises(ValueError, match=r"teacher 'ismcts:50' cannot label states.*plans"):
        load_config("snail_sprint_v0", overrides=[*imitating, "imitation.teacher=ismcts:50"])
    with pytest.raises(ValueError, match="teacher 'chess' cannot play snail_sprint_v0"):
        load_config("snail_sprint_v0", overrides=[*imitating, "imitation.teacher=chess"])
    snap_policy = f"agents/checkpoints/{SNAP}.pt"
    with pytest.raises(ValueError, match=f"teacher 'ppo:{snap_policy}' cannot play snail_sprint"):
        load_config(
            "snail_sprint_v0", overrides=[*imitating, f"imitation.teacher=ppo:{snap_policy}"]
        )
    with pytest.raises(SystemExit):
        train.main(["--env", "snail_sprint_v0", "stages=[imitation, finetune]"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "stages must name one or more of imitation, ppo" in error and "finetune" in error


def test_evaluation_judges_wins_whatever_the_training_reward() -> None:
    """Under the margin reward a tied game returns 0 to both seats; it is still a shared win."""
    heuristic = make_agent("heuristic", "snail_sprint_v0")
    options = {"num_players": 2}
    winlose = score_against("snail_sprint_v0", heuristic, "heuristic", 60, 3, options)
    margin = score_against(
        "snail_sprint_v0", heuristic, "heuristic", 60, 3, {**options, "reward": "margin"}
    )
    assert margin == winlose


@pytest.fixture(scope="module")
def saved_clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("clone")
    cloning = [o for o in TINY if not o.startswith(("stages", "anchor", "keep_best"))]
    summary = train.main(
        ["--env", "snail_sprint_v0", *cloning, "stages=[imitation]", f"output_dir={out}"]
    )
    return Path(summary["policy"])


def test_init_from_starts_ppo_from_the_saved_clone(saved_clone: Path, tmp_path: Path) -> None:
    """With a step size too small to change an action, the fine-tuned policy plays as the clone
    on any observation; a fresh network would not."""
    fine_tuning = [o for o in TINY if not o.startswith(("stages", "imitation", "learning_rate"))]
    summary = train.main(
        [
            "--env",
            "snail_sprint_v0",
            *fine_tuning,
            "stages=[ppo]",
            "learning_rate=0.000000001",
            "--init-from",
            str(saved_clone),
            f"output_dir={tmp_path}",
        ]
    )
    assert summary["config"]["init_from"] == str(saved_clone)
    generator = np.random.default_rng(1)
    observations = generator.random((200, 487), dtype=np.float32)
    masks = generator.random((200, 6)) < 0.6
    masks[:, 0] = True
    cloned = PPOAgent.load(saved_clone)
    tuned = PPOAgent.load(summary["policy"])
    fresh = new_policy("snail_sprint_v0", 2)
    for agent in (cloned, tuned):
        agent.actions = [agent.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert tuned.actions == cloned.actions
    fresh_actions = [
        fresh.predict(o, action_masks=m, deterministic=True)[0]
        for o, m in zip(observations, masks, strict=True)
    ]
    assert fresh_actions != cloned.actions


def test_init_from_must_name_a_policy_of_the_game(
    saved_clone: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ppo_only = ["stages=[ppo]", "net_arch=[16]"]
    with pytest.raises(ValueError, match=r"init_from: no trained policy at /nowhere/policy\.pt"):
        load_config("snail_sprint_v0", overrides=[*ppo_only, "init_from=/nowhere/policy.pt"])
    with pytest.raises(ValueError, match="trained on snail_sprint_v0, not pedzace_slimaki_v0"):
        load_config("pedzace_slimaki_v0", overrides=[*ppo_only, f"init_from={saved_clone}"])
    mislabelled = save_policy(
        tmp_path / "other.pt", new_policy("pedzace_slimaki_v0", 2), "snail_sprint_v0"
    )
    with pytest.raises(ValueError, match=r"does not play snail_sprint_v0.*the game \(487,\) and 6"):
        load_config("snail_sprint_v0", overrides=["stages=[ppo]", f"init_from={mislabelled}"])
    with pytest.raises(ValueError, match=r"hidden layers \[16\], not the \[64\] asked for"):
        load_config(
            "snail_sprint_v0",
            overrides=["stages=[ppo]", "net_arch=[64]", f"init_from={saved_clone}"],
        )
    archive = tmp_path / "model.zip"
    archive.write_bytes(b"PK")
    with pytest.raises(ValueError, match=r"not a weights-only policy.*snail-convert") as refused:
        load_config("snail_sprint_v0", overrides=[*ppo_only, f"init_from={archive}"])
    assert str(refused.value).startswith(f"command line, init_from={archive}: ")
    from_folder = load_config(
        "snail_sprint_v0", overrides=[*ppo_only, f"init_from={saved_clone.parent}"]
    )
    assert from_folder.init_from == str(saved_clone.parent)
    anchored = load_config(
        "snail_sprint_v0", overrides=[*ppo_only, "anchor_coef=0.5", f"init_from={saved_clone}"]
    )
    assert anchored.anchor_coef == 0.5
    with pytest.raises(SystemExit):
        train.main(["--env", "snail_sprint_v0", *ppo_only, "--init-from", "/nowhere/model.zip"])
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "init_from: no trained policy at /nowhere/model.zip" in error


def test_an_anchored_run_from_init_from_resumes_from_its_checkpoint(
    saved_clone: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The run keeps the policy it started from as its clone (the anchor of the resumed ppo
    stage); `--resume` continues from the checkpoint and does not load `init_from` again."""
    fine_tuning = [o for o in TINY if not o.startswith(("stages", "imitation", "total_timesteps"))]
    first = train.main(
        [
            "--env=snail_sprint_v0",
            *fine_tuning,
            "stages=[ppo]",
            "total_timesteps=128",
            f"--init-from={saved_clone}",
            f"output_dir={tmp_path}",
        ]
    )
    run = Path(first["run_dir"])
    # no point of so small a step size scores above the start: the run keeps the policy it
    # started from, and says so
    assert first["best"]["timesteps"] == 0 and first["policy_made_by"] == "init_from"
    shown = capsys.readouterr().out
    assert "ppo did not beat the policy it started from (" in shown
    assert "; kept init_from's" in shown
    assert f"made by the run it started from (init_from {saved_clone})" in shown
    kept, started = (
        PPOAgent.load(path).model.state_dict() for path in (run / "clone.pt", saved_clone)
    )
    assert all(torch.equal(kept[name], started[name]) for name in started)

    def refuse(*_: object) -> None:
        raise AssertionError("a resumed run loaded init_from again")

    monkeypatch.setattr("snail_envs.training.run.start_from", refuse)
    resumed = train.main(["--resume", str(run), "total_timesteps=256", "--no-progress"])
    assert resumed["timesteps"] == 256 and resumed["config"]["init_from"] == str(saved_clone)


def final_stars(axes: Any) -> list[float]:
    """Where a panel draws the final evaluation's points (a star an opponent)."""
    stars = [line for line in axes.get_lines() if line.get_marker() == "*"]
    return [x for line in stars for x in line.get_xdata()]


def test_the_curve_data_holds_each_ppo_update_and_the_kept_policy(two_stages: dict) -> None:
    before, resumed = two_stages["before"], two_stages["resumed"]
    updates = before["ppo_updates"]
    assert [(u["timesteps"], u["updates"]) for u in updates] == [(128, 1), (256, 2)]
    for update in updates:
        assert np.isfinite(update["loss"]) and update["entropy"] > 0 and update["approx_kl"] >= 0
    assert resumed["ppo_updates"][:2] == updates  # restored with the checkpoint, then on
    assert [u["timesteps"] for u in resumed["ppo_updates"]] == [128, 256, 384, 512]
    last_round = before["learning_curve"][1]["labelled_states"]
    kept = {"made_by": "imitation", "stage": "imitation", "labelled_states": last_round}
    assert before["kept_policy"] == kept


def test_the_learning_curve_draws_each_stage_in_its_unit_the_kept_policy_and_ppo_losses(
    two_stages: dict,
) -> None:
    summary = two_stages["before"]
    drawn = summary_figure(summary).axes
    assert [axes.get_title() for axes in drawn] == [
        "imitation: score rates",
        "ppo: score rates",
        "ppo loss",
        "ppo entropy",
        "ppo approximate KL",
    ]
    assert [axes.get_xlabel() for axes in drawn[:2]] == ["labelled states", "learner timesteps"]
    imitation, ppo, loss = drawn[:3]
    labelled = [point["labelled_states"] for point in summary["learning_curve"][:2]]
    assert list(imitation.get_lines()[0].get_xdata()) == labelled
    kept = f"kept policy: made by imitation, imitation at {labelled[-1]:,} labelled states"
    assert kept in [text.get_text() for text in imitation.get_legend().get_texts()]
    assert kept not in [text.get_text() for text in ppo.get_legend().get_texts()]
    assert list(loss.get_lines()[0].get_ydata()) == [u["loss"] for u in summary["ppo_updates"]]
    # the final evaluation measured the kept policy: its stars stand there
    assert final_stars(imitation) == [labelled[-1]] * 2 and final_stars(ppo) == []


def test_a_ppo_stage_that_does_not_beat_the_clone_keeps_it_and_says_so(
    two_stages: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    """So small a step size scores no point of the ppo stage above the clone (scored by the
    last imitation round): the run keeps the clone, and its summary says the imitation stage
    made it."""
    summary = two_stages["before"]
    run = Path(summary["run_dir"])
    clone_rate = summary["learning_curve"][1]["heuristic"][0]
    ppo_points = [p for p in summary["learning_curve"] if p["stage"] == "ppo"]
    assert max(point["heuristic"][0] for point in ppo_points) <= clone_rate
    assert summary["best"]["timesteps"] == 0 and summary["policy_made_by"] == "imitation"
    clone, final = weights(run / "clone.pt"), two_stages["final"]
    assert all(torch.equal(clone[name], final[name]) for name in clone)
    print_summary(summary)
    shown = capsys.readouterr().out
    assert "ppo did not beat the clone (" in shown and "; kept the imitation policy" in shown
    last_round = summary["learning_curve"][1]["labelled_states"]
    place = f"imitation at {last_round:,} labelled states"
    assert f"made by the imitation stage (on the learning curve: {place})" in shown
