"""Training and evaluation: smoke runs with tiny budgets, configs, checkpoints, statistics."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

import snail_envs
from snail_envs.agents import HEURISTICS, make_agent
from snail_envs.agents.ppo import PPOAgent
from snail_envs.apps.replay import check, read_replay
from snail_envs.training import evaluate, opponents, train
from snail_envs.training.config import (
    CONFIGS,
    TrainConfig,
    build_config,
    default_config_path,
    load_config,
    rule_presets,
)
from snail_envs.training.curve import curve_steps
from snail_envs.training.display import Display
from snail_envs.training.evaluate import (
    GameRecord,
    PairingResult,
    game_result,
    one_against_all,
    seat_order,
)
from tests.names import SNAP
from tests.training.budgets import PPO_ONLY, TINY_PPO

ROOT = Path(__file__).resolve().parents[2]

torch.set_num_threads(1)
TINY = [
    *PPO_ONLY,
    *TINY_PPO,
    "eval_games=4",
    "final_eval_games=6",
    "self_play_every=128",
    "net_arch=[16]",
]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("runs")
    return train.main(
        [
            "--env",
            "snail_sprint_v0",
            "--no-progress",
            *TINY,
            f"output_dir={out}",
            "opponents={random: 1, heuristic: 1, self: 1}",
            "batched=false",
        ]
    )


def test_a_tiny_training_run_writes_everything(tiny_run: dict) -> None:
    run = Path(tiny_run["run_dir"])
    assert run.name == "snail_sprint_v0-0-1"
    assert (run / "policy.pt").exists() and (run / "learning_curve.png").exists()
    assert [path.name for path in sorted((run / "checkpoints").iterdir())] == [
        "step_0000000128",
        "step_0000000256",
    ]
    assert any((run / "tensorboard").rglob("events.out.tfevents.*"))
    assert not [path for path in run.rglob(".*")]  # no temporary file left behind
    summary = json.loads((run / "summary.json").read_text())
    assert set(summary["final_evaluation"]) == {"random", "heuristic"}
    assert summary["final_evaluation"]["random"]["games"] == 6
    assert [point["timesteps"] for point in summary["learning_curve"]][:2] == [0, 64]
    replays = sorted((run / "replays").iterdir())
    assert summary["replays"] == str(run / "replays")
    assert [path.name for path in replays] == [
        f"vs-{opponent}-game{game}.jsonl"
        for opponent in ("heuristic", "random")
        for game in (1, 2, 3)
    ]
    for path in replays:
        replay = read_replay(path)
        check(replay)
        assert f"ppo:{run}" in replay.agents.values()


def test_a_ppo_run_keeps_its_last_policy_and_records_each_update(tiny_run: dict) -> None:
    assert tiny_run["policy_made_by"] == "ppo"
    assert tiny_run["kept_policy"] == {"made_by": "ppo", "stage": "ppo", "timesteps": 256}
    assert [update["timesteps"] for update in tiny_run["ppo_updates"]] == [128, 256]


def test_a_short_run_has_five_curve_points_at_their_true_timesteps_in_the_png_and_tensorboard(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    budget = [*TINY, "eval_every=100000", f"output_dir={tmp_path}"]
    summary = train.main(["--env", "snail_sprint_v0", *budget])
    curve = summary["learning_curve"]
    assert [(point["stage"], point["timesteps"]) for point in curve] == [
        ("ppo", 0),
        ("ppo", 64),
        ("ppo", 128),
        ("ppo", 192),
        ("final", 256),
    ]
    final = summary["final_evaluation"]["heuristic"]
    assert list(curve[-1]["heuristic"]) == [final["score_rate"], *final["ci95"]]
    events = EventAccumulator(str(Path(summary["tensorboard"]) / "eval"))
    events.Reload()
    for opponent in ("random", "heuristic"):
        scalars = events.Scalars(f"eval/score_vs_{opponent}")
        steps = [event.step for event in scalars]
        assert steps == curve_steps(curve) == [0, 64, 128, 192, 256]
        assert [event.value for event in scalars] == pytest.approx([p[opponent][0] for p in curve])
    bars = capsys.readouterr().err
    assert "evaluation at 0" in bars and "evaluation at 192" in bars
    assert "final evaluation: 100%" in bars and "12/12" in bars


def test_the_train_help_lists_every_config_field(capsys: pytest.CaptureFixture[str]) -> None:
    import dataclasses

    from snail_envs.training.config import ImitationConfig

    with pytest.raises(SystemExit):
        train.main(["--help"])
    shown = capsys.readouterr().out
    fields = [
        *(spec.name for spec in dataclasses.fields(TrainConfig)),
        *(f"imitation.{spec.name}" for spec in dataclasses.fields(ImitationConfig)),
    ]
    for name in fields:
        assert f"\n  {name} (" in shown, name
    assert "  total_timesteps (int, default 200000)\n      Learner decisions" in shown
    assert "  net_arch (list[int], default [128, 128])" in shown
    assert "  init_from (str | None, default null)" in shown


def test_the_train_help_loads_no_training_library() -> None:
    """`snail-train --help` answers at once: torch, Stable-Baselines3, matplotlib and tqdm load
    only when a run starts."""
    probe = (
        "import sys\n"
        "from snail_envs.training import train\n"
        "try:\n"
        "    train.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('torch', 'stable_baselines3', 'sb3_contrib', 'matplotlib', 'tqdm')\n"
        "print(sorted(name for name in heavy if name in sys.modules))\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "config fields, set by name=value" in shown.stdout
    assert shown.stdout.splitlines()[-1] == "[]"


def test_a_run_and_its_checkpoints_load_as_agents_that_act_alike(tiny_run: dict) -> None:
    agent = make_agent(f"ppo:{tiny_run['run_dir']}", "snail_sprint_v0")
    final = PPOAgent.load(tiny_run["checkpoint"], "snail_sprint_v0")
    policy = PPOAgent.load(tiny_run["policy"])
    rng = np.random.default_rng(0)
    for _ in range(20):
        observation = rng.random(487).astype(np.float32)
        mask = np.zeros(6, dtype=np.int8)
        mask[rng.choice(6, size=2, replace=False)] = 1
        chosen = agent.act(observation, mask)
        assert final.act(observation, mask) == policy.act(observation, mask) == chosen
        assert mask[chosen] == 1


class ConstantPolicy:
    """A stand-in snapshot that always plays `action`."""

    def __init__(self, action: int) -> None:
        self.action = action

    def predict(self, observations, action_masks, deterministic):  # type: ignore[no-untyped-def]
        assert action_masks.shape[0] == observations.shape[0] and not deterministic
        return np.full(observations.shape[0], self.action), None


def test_batched_self_play_plays_one_snapshot_per_game_and_episode() -> None:
    pool = opponents.SelfPlayPool(size=2)
    policy = opponents.SelfPlayPolicy(pool, num_envs=6, seed=0)
    masks = np.ones((6, 4), bool)
    observations = np.zeros((6, 3), np.float32)
    games = np.arange(6)
    policy.begin_episodes(games)  # no snapshot yet: random legal play
    masks[:, 0] = False
    assert set(policy(observations, masks, games).tolist()) <= {1, 2, 3}
    pool.add(ConstantPolicy(1))
    pool.add(ConstantPolicy(2))
    policy.begin_episodes(games)
    first = policy(observations, masks, games)
    assert set(first.tolist()) == {1, 2}  # both snapshots drawn among six games
    assert np.array_equal(policy(observations[::-1], masks, games[::-1]), first[::-1])
    policy.begin_episodes(np.array([0]))  # a new episode in game 0 only
    assert np.array_equal(policy(observations, masks, games)[1:], first[1:])


def test_missing_checkpoints_are_reported() -> None:
    with pytest.raises(FileNotFoundError, match="no trained policy"):
        PPOAgent.load("/nonexistent/policy.pt")


def test_every_shipped_config_is_valid() -> None:
    for env in snail_envs.ENV_NAMES:
        assert load_config(env).env == env
    assert sorted(CONFIGS.glob("*/ppo.yaml")) == sorted(
        map(default_config_path, snail_envs.ENV_NAMES)
    )
    for game in CONFIGS.iterdir():  # every training config of a game: the YAML naming its env
        for other in sorted(set(game.glob("*.yaml")) - set(rule_presets(game.name))):
            env = yaml.safe_load(other.read_text())["env"]
            assert other.parent == default_config_path(env).parent
            assert load_config(env, other).env == env


def test_config_overrides_and_validation() -> None:
    config = load_config(
        "snail_sprint_v0", overrides=["total_timesteps=1000", "env_options.num_players=3"]
    )
    assert config.total_timesteps == 1000 and config.env_options["num_players"] == 3
    with pytest.raises(ValueError, match=r"unknown field.*'learning_rat'"):
        load_config("snail_sprint_v0", overrides=["learning_rat=0.1"])
    with pytest.raises(ValueError, match="total_timesteps must be of type int; got 'many'"):
        load_config("snail_sprint_v0", overrides=["total_timesteps=many"])
    with pytest.raises(ValueError, match="n_envs must be at least 1"):
        load_config("snail_sprint_v0", overrides=["n_envs=0"])
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 4"):
        load_config("snail_sprint_v0", overrides=["env_options.num_players=7"])
    with pytest.raises(ValueError, match=r"^command line, n_envs=0: n_envs must be at least 1"):
        load_config("snail_sprint_v0", overrides=["n_envs=0"])
    with pytest.raises(ValueError, match="opponents must weight the kinds random, heuristic, self"):
        load_config("snail_sprint_v0", overrides=["opponents.expert=1"])
    with pytest.raises(ValueError, match="overrides are written name=value"):
        load_config("snail_sprint_v0", overrides=["total_timesteps"])
    with pytest.raises(ValueError, match="env must be one of"):
        build_config({"env": "chess_v6"})
    assert TrainConfig().torch_threads == 1


def test_train_cli_reports_bad_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        train.main(["--env", "snail_sprint_v0", "gamma=2"])
    assert stopped.value.code == 1
    error = capsys.readouterr().err
    assert error == (
        "snail-train: error: command line, gamma=2: gamma must be in (0, 1]; got 2.0\n"
    )


def record(seats: list[str], returns: list[float], truncated: bool = False) -> GameRecord:
    return GameRecord(seats, returns, [0.0] * len(seats), truncated)


def test_game_results_count_wins_shared_wins_and_losses() -> None:
    assert game_result(record(["a", "b"], [1, -1]), "a") == 1.0
    assert game_result(record(["a", "b"], [1, -1]), "b") == 0.0
    assert game_result(record(["a", "b", "a"], [1, 1, -1]), "a") == 0.5
    assert game_result(record(["a", "b", "b"], [-1, 1, 1]), "b") == 1.0
    assert game_result(record(["a", "b"], [0, 0], truncated=True), "a") == 0.5
    # snap_v2's shared results: each sharer gets 0 and every other seat -1, so a game drawn
    # between two seats pays 0 and 0, a shared best result for both
    assert game_result(record(["a", "b"], [0, 0]), "a") == 0.5
    assert game_result(record(["a", "b"], [0, 0]), "b") == 0.5
    assert game_result(record(["a", "b", "c"], [0, 0, -1]), "b") == 0.5
    assert game_result(record(["a", "b", "c"], [0, 0, -1]), "c") == 0.0


def test_score_rates_and_intervals_on_known_records() -> None:
    pairing = PairingResult(("a", "b"))
    pairing.records = [record(["a", "b"], [1, -1])] * 30 + [record(["b", "a"], [1, -1])] * 70
    rate, low, high = pairing.score("a")
    assert rate == 0.3 and round(low, 4) == 0.2189 and round(high, 4) == 0.3958
    assert pairing.score("b")[0] == 0.7


def test_seats_rotate() -> None:
    assert [seat_order(("a", "b"), 2, g) for g in range(2)] == [["a", "b"], ["b", "a"]]
    assert seat_order(("a", "b"), 3, 1) == ["b", "a", "b"]
    assert [one_against_all("p", "r", 3, g).index("p") for g in range(4)] == [0, 1, 2, 0]


def test_a_tournament_is_deterministic_and_writes_its_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = [
        "--env",
        "snail_sprint_v0",
        "--agents",
        "random",
        "heuristic",
        "ismcts:4",
        "--games",
        "6",
        "--seed",
        "3",
    ]
    first = evaluate.main([*args, "--out", str(tmp_path / "out")])
    second = evaluate.main(args)
    results = first.markdown().partition("#### Provenance")[0]
    assert results == second.markdown().partition("#### Provenance")[0] and "| random |" in results
    assert {p.name for p in (tmp_path / "out").iterdir()} == set(evaluate.REPORTS)
    assert len((tmp_path / "out" / "results.csv").read_text().splitlines()) == 1 + 3
    assert set(first.ratings) == {"random", "heuristic", "ismcts:4"}


def test_a_tournament_saves_every_game_as_a_replay(tmp_path: Path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path.parent)
    args = ["--env=snail_sprint_v0", "--agents", "random", "heuristic", "ismcts:2", "--games=2"]
    tournament = evaluate.main([*args, "--save-replays", str(tmp_path)])
    names = sorted(path.name for path in tmp_path.iterdir())
    assert names == [
        f"{index:02d}-{pairing}-game{game:03d}.jsonl"
        for index, pairing in enumerate(
            ["random-vs-heuristic", "random-vs-ismcts_2", "heuristic-vs-ismcts_2"], start=1
        )
        for game in (1, 2)
    ]
    games = [record for pairing in tournament.pairings for record in pairing.records]
    for name, record in zip(names, games, strict=True):
        replay = read_replay(tmp_path / name)
        check(replay)
        assert list(replay.agents.values()) == record.seats
        assert list(replay.result["returns"].values()) == record.returns
    before = (tmp_path / names[0]).read_text()
    with pytest.raises(SystemExit) as refused:
        evaluate.main([*args, "--seed=1", "--save-replays", str(tmp_path)])
    assert refused.value.code == 1 and "exists already; give --overwrite" in capsys.readouterr().err
    assert (tmp_path / names[0]).read_text() == before
    evaluate.main([*args, "--seed=1", "--save-replays", str(tmp_path), "--overwrite"])
    assert (tmp_path / names[0]).read_text() != before


def test_a_table_tournament_seats_every_agent(tmp_path: Path) -> None:
    tournament = evaluate.run_tournament(
        "pedzace_slimaki_v0",
        ["random", "ismcts:3", "random"],
        games=3,
        table=True,
        options={"num_players": 3},
        progress=False,
    )
    assert [sorted(r.seats) for r in tournament.pairings[0].records] == [
        ["ismcts:3", "random", "random"]
    ] * 3
    written = tournament.write(tmp_path)
    assert [path.name for path in written] == list(evaluate.REPORTS[:-1])  # no matrix
    assert len((tmp_path / "results.csv").read_text().splitlines()) == 1 + 2
    assert json.loads((tmp_path / "results.json").read_text())["matrix"] is None
    with pytest.raises(ValueError, match="give 4 agents"):
        evaluate.run_tournament(
            "pedzace_slimaki_v0",
            ["random"],
            1,
            table=True,
            options={"num_players": 4},
            progress=False,
        )


def test_one_seat_tournaments_put_each_agent_alone_against_the_other() -> None:
    tournament = evaluate.run_tournament(
        "snail_sprint_v0",
        ["heuristic", "random"],
        games=4,
        options={"num_players": 3},
        progress=False,
        seating="one",
    )
    assert [p.agents for p in tournament.pairings] == [
        ("heuristic", "random"),
        ("random", "heuristic"),
    ]
    first = tournament.pairings[0].records
    assert [r.seats.count("heuristic") for r in first] == [1, 1, 1, 1]
    assert [r.seats.index("heuristic") for r in first] == [0, 1, 2, 0]
    (row,) = tournament.rows()
    assert [(side.agent, side.pairing.agents) for side in row] == [
        ("heuristic", ("heuristic", "random")),
        ("random", ("random", "heuristic")),
    ]
    assert "from the games it plays alone, against 2 seats of the other" in tournament.markdown()
    assert tournament.chance == pytest.approx(1 / 3)


@pytest.mark.parametrize("env_name", sorted(HEURISTICS))
def test_the_shipped_baseline_plays_legal_moves(env_name: str) -> None:
    from snail_envs.agents.ppo import shipped_checkpoint

    assert shipped_checkpoint(env_name).stat().st_size < 2_000_000
    tournament = evaluate.run_tournament(env_name, ["ppo", "random"], games=4, progress=False)
    assert len(tournament.pairings[0].records) == 4


def test_the_chart_draws_rates_of_zero_and_one(tmp_path: Path) -> None:
    """A rate of exactly 0 or 1 has an interval bound that rounding can put past the rate."""
    pairing = PairingResult(("a", "b"))
    pairing.records = [record(["a", "b"], [-1, 1])] * 1000
    tournament = evaluate.Tournament(
        SNAP, ["a", "b"], {"num_players": 2}, [pairing], {"a": (20.0, 2.0), "b": (30.0, 2.0)}
    )
    tournament.plot(tmp_path / "chart.png")
    assert (tmp_path / "chart.png").stat().st_size > 1000


def test_a_tournament_without_out_writes_a_new_folder_under_runs_eval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["--env=snail_sprint_v0", "--agents", "random", "heuristic", "--games=2", "--seed=4"]
    for number in (1, 2):
        evaluate.main(args)
        folder = Path("runs", "eval", f"snail_sprint_v0-4-{number}")
        assert capsys.readouterr().out.endswith(f"results folder: {folder}\n")
        assert sorted(path.name for path in folder.iterdir()) == sorted(evaluate.REPORTS)


def test_a_tournament_reports_one_row_per_pair_and_the_score_matrix(tmp_path: Path) -> None:
    agents = ["random", "heuristic", "ismcts:2"]
    evaluate.main(
        ["--env=snail_sprint_v0", "--agents", *agents, "--games=4", "--out", str(tmp_path)]
    )
    results = json.loads((tmp_path / "results.json").read_text())
    pairs = [tuple(side["agent"] for side in row["sides"]) for row in results["rows"]]
    assert pairs == [("random", "heuristic"), ("random", "ismcts:2"), ("heuristic", "ismcts:2")]
    matrix = results["matrix"]
    assert matrix["agents"] == agents and matrix["chance"] == 0.5
    rates = matrix["score_rate"]
    assert [rates[i][i] for i in range(3)] == [None] * 3
    for row in results["rows"]:
        (a, b) = (agents.index(side["agent"]) for side in row["sides"])
        assert [rates[a][b], rates[b][a]] == [side["score_rate"] for side in row["sides"]]
    assert len((tmp_path / "results.csv").read_text().splitlines()) == 1 + 3
    assert (tmp_path / "results_matrix.png").stat().st_size > 1000


def test_a_run_folder_plays_as_ppo_and_the_report_names_its_file(tmp_path: Path) -> None:
    """`ppo:RUN_FOLDER` plays the run's policy.pt, which the provenance names with its hash."""
    import hashlib
    import shutil

    from snail_envs.agents.ppo import shipped_checkpoint

    run = tmp_path / "runs" / "snail_sprint_v0-0-1"
    run.mkdir(parents=True)
    shipped = shipped_checkpoint("snail_sprint_v0")
    shutil.copy(shipped, run / "policy.pt")
    shutil.copy(shipped.with_suffix(".json"), run / "policy.json")
    out = tmp_path / "results"
    args = ["--env=snail_sprint_v0", "--games=2", "--seed=5", "--out", str(out)]
    tournament = evaluate.main([*args, "--agents", "ppo", f"ppo:{run}"])
    assert len(tournament.pairings[0].records) == 2
    results = json.loads((out / "results.json").read_text())
    assert results["agents"] == {"ppo": "ppo", "ppo:snail_sprint_v0-0-1": f"ppo:{run}"}
    provenance = results["provenance"]
    assert provenance["agent_files"] == {
        "ppo": {
            "file": str(shipped.resolve()),
            "sha256": hashlib.sha256(shipped.read_bytes()).hexdigest(),
        },
        f"ppo:{run}": {
            "file": str((run / "policy.pt").resolve()),
            "sha256": hashlib.sha256(shipped.read_bytes()).hexdigest(),
        },
    }
    assert provenance["seed"] == 5 and provenance["env_options"] == {"num_players": 2}
    assert provenance["command"].startswith("snail-eval --env=snail_sprint_v0")
    assert provenance["packages"]["snail_envs"] == snail_envs.__version__
    report = (out / "results.md").read_text()
    assert f"| ppo:snail_sprint_v0-0-1 | `ppo:{run}` | {(run / 'policy.pt').resolve()} |" in report


def test_short_labels_name_trained_agents_by_their_run() -> None:
    labels = evaluate.short_labels(["random", "ppo:runs/a-0-1", "ppo:x/a-0-1/policy.pt", "ppo"])
    assert labels == {
        "random": "random",
        "ppo:runs/a-0-1": "ppo:a-0-1",
        "ppo:x/a-0-1/policy.pt": "ppo:a-0-1#2",
        "ppo": "ppo",
    }


def test_adding_an_agent_leaves_the_other_pairings_games_alone() -> None:
    def games(agents: list[str], seed: int = 0) -> list[GameRecord]:
        tournament = evaluate.run_tournament(
            "snail_sprint_v0", agents, games=4, seed=seed, progress=False
        )
        (pairing,) = [p for p in tournament.pairings if p.agents == ("random", "heuristic")]
        return pairing.records

    alone = games(["random", "heuristic"])
    assert alone == games(["ismcts:2", "random", "heuristic"])
    assert alone == games(["random", "heuristic", "ismcts:2"])
    assert alone != games(["random", "heuristic"], seed=1)


def test_the_training_bar_counts_the_evaluations_between_rollouts_in_its_estimate(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """100 timesteps a second, and an 8-second evaluation every 200 timesteps: at 500 of 1,000
    timesteps, 5 seconds of training and two evaluations (at 600 and 800) remain, 21 seconds."""
    import re

    import tqdm.std

    clock = [0.0]
    monkeypatch.setattr(tqdm.std, "time", lambda: clock[0])
    display = Display(enabled=True)
    with display.training("ppo", 1000, 0) as advance:
        for timesteps in range(10, 510, 10):
            clock[0] += 0.1
            advance(timesteps)
            if timesteps % 200 == 0:
                clock[0] += 8.0
    shown = capsys.readouterr().err.split("\r")
    training = next(meter for meter in shown if "500/1000" in meter)  # as it trains, not closed
    minutes, seconds = re.search(r"<(\d+):(\d+)", training).groups()  # type: ignore[union-attr]
    assert 18 <= 60 * int(minutes) + int(seconds) <= 24, training
