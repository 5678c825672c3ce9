"""The league stage: its meta-strategies, its frozen population in the learner env, a tiny
league end to end, its resume, and the settings refused when the config loads."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

import snail_envs.batched
from snail_envs.agents.ppo import load_policy, save_policy
from snail_envs.training import league as league_module
from snail_envs.training import train
from snail_envs.training.config import LeagueConfig, load_config
from snail_envs.training.league import (
    LeagueState,
    Member,
    Population,
    load_member,
    opponent_weights,
    solve,
)
from snail_envs.training.meta_strategy import nash_mixture, pfsp_weights, zero_sum
from snail_envs.training.opponents import FrozenPopulation

torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parents[2]
FAST = "snail_sprint_v0"
TINY_LEAGUE = [
    "stages=[imitation, league]",
    "imitation.states=500",
    "imitation.dagger_rounds=0",
    "imitation.epochs=1",
    "imitation.n_envs=16",
    "anchor_coef=0",
    "keep_best=false",
    "league.rounds=2",
    "league.timesteps=128",
    "league.eval_deals=2",
    "league.magnet_coef=0.1",
    "n_envs=2",
    "n_steps=64",
    "batch_size=64",
    "n_epochs=1",
    "eval_games=2",
    "final_eval_games=2",
]
"""Two rounds of 128 timesteps a member, two duplicate deals a cell, from a clone of 500 states."""
ROCK_PAPER_SCISSORS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])


def test_the_nash_mixture_of_rock_paper_scissors_is_uniform() -> None:
    assert np.allclose(nash_mixture(ROCK_PAPER_SCISSORS), [1 / 3, 1 / 3, 1 / 3])


def test_a_dominated_member_gets_no_weight_in_the_nash_mixture() -> None:
    """A fourth member that loses to each of rock, paper and scissors."""
    payoff = np.zeros((4, 4))
    payoff[:3, :3] = ROCK_PAPER_SCISSORS
    payoff[:3, 3], payoff[3, :3] = 0.5, -0.5
    mixture = nash_mixture(payoff)
    assert mixture[3] == 0 and np.allclose(mixture[:3], 1 / 3)


def test_a_strictly_better_member_takes_the_whole_nash_mixture() -> None:
    scores = np.array([[0.5, 0.9], [0.1, 0.5]])  # member 0 beats member 1 nine games in ten
    assert np.allclose(nash_mixture(zero_sum(scores)), [1.0, 0.0])


def test_pfsp_weighs_the_members_the_best_beats_least_the_most() -> None:
    scores = np.array([[0.5, 1.0, 0.75], [0.0, 0.5, 0.5], [0.25, 0.5, 0.5]])
    weights = pfsp_weights(scores, best=0, exponent=2.0)
    assert np.allclose(weights, np.array([0.25, 0.0, 0.0625]) / 0.3125)
    assert np.allclose(pfsp_weights(scores, best=0, exponent=0.0), 1 / 3)


def test_the_league_weighs_its_members_by_the_meta_solver_it_is_given() -> None:
    members = [Member("heuristic", "heuristic", True), Member("clone", "clone", False)]
    scores = [[0.5, 0.75], [0.25, 0.5]]
    state = LeagueState(FAST, {}, 0, members, scores, [], [], "clone", {})
    solve(state)
    assert state.meta_strategy == [1.0, 0.0] and state.best == "clone"
    assert opponent_weights(state, LeagueConfig(meta_solver="nash")).tolist() == [1.0, 0.0]
    pfsp = opponent_weights(state, LeagueConfig(meta_solver="pfsp"))  # the clone's row
    assert np.allclose(pfsp, np.array([0.75**2, 0.5**2]) / (0.75**2 + 0.5**2))


class Always:
    """A frozen member that always plays `action`, and counts the seats it was asked for."""

    def __init__(self, action: int) -> None:
        self.action, self.asked = action, 0

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        self.asked += games.size
        return np.full(games.size, self.action, np.int64)


def test_a_frozen_population_draws_one_member_per_game_by_its_weights() -> None:
    first, second, never = Always(0), Always(1), Always(2)
    population = FrozenPopulation([first, second, never], [3.0, 1.0, 0.0], seed=0)  # type: ignore[list-item]
    games = np.arange(4000)
    population.begin_episodes(games)
    asked = np.repeat(games, 2)  # two seats of every game
    actions = population(
        np.zeros((asked.size, 1), np.float32), np.ones((asked.size, 3), bool), asked
    )
    per_game = actions.reshape(-1, 2)
    assert (per_game[:, 0] == per_game[:, 1]).all()  # one member plays all seats of a game
    assert never.asked == 0 and 0.7 < np.mean(per_game[:, 0] == 0) < 0.8


def test_a_frozen_population_needs_a_weight_per_member() -> None:
    with pytest.raises(ValueError, match="one non-negative weight per member"):
        FrozenPopulation([Always(0)], [0.0], seed=0)  # type: ignore[list-item]


def network_of(env_name: str) -> Any:
    """A fresh network for the batched `env_name`'s two-player observations and actions."""
    engine = snail_envs.batched.make(env_name, 1, num_players=2)
    return MaskableActorCriticPolicy(
        engine.observation_space, engine.action_space, lambda _: 1e-3, net_arch=[8]
    )


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)


@pytest.fixture(scope="module")
def leagues(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A tiny league of two rounds; the same league stopped by SIGINT as its round 2 begins
    training, then resumed."""
    out = tmp_path_factory.mktemp("league")
    whole = train.main(
        ["--env", FAST, "--league", *TINY_LEAGUE, f"output_dir={out / 'whole'}", "--no-progress"]
    )
    games = league_module.training_games

    def interrupted(config: Any, population: Any, state: Any, *args: Any) -> Any:
        if len(state.members) == 4:  # heuristic, random, clone, round_1: round 2
            os.kill(os.getpid(), signal.SIGINT)
        return games(config, population, state, *args)

    errors = io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stderr(errors),
        pytest.raises(SystemExit),
    ):
        patch.setattr(league_module, "training_games", interrupted)
        train.main(
            [
                "--env",
                FAST,
                "--league",
                *TINY_LEAGUE,
                f"output_dir={out / 'stopped'}",
                "--no-progress",
            ]
        )
    (run,) = (out / "stopped").iterdir()
    stopped_state = json.loads((run / "league" / "state.json").read_text())
    resumed = train.main(["--resume", str(run), "--no-progress"])
    return {"whole": whole, "stopped_state": stopped_state, "resumed": resumed}


def test_a_tiny_league_saves_its_population_matrix_and_meta_strategy(
    leagues: dict[str, Any],
) -> None:
    summary = leagues["whole"]
    folder = Path(summary["run_dir"]) / "league"
    state = json.loads((folder / "state.json").read_text())
    names = ["heuristic", "random", "clone", "round_1", "round_2"]
    assert state["rounds_done"] == 2 and [m["name"] for m in state["members"]] == names
    for name in ("clone", "round_1", "round_2"):
        load_policy(folder / f"{name}.pt", FAST)  # weights only, beside their descriptions
    scores = np.array(state["scores"])
    assert scores.shape == (5, 5) and np.allclose(np.diag(scores), 0.5)
    assert np.allclose(scores + scores.T, 1.0)  # two players: each game's score is shared
    assert np.isclose(sum(state["meta_strategy"]), 1.0)
    assert state["best"] in ("clone", "round_1", "round_2")
    assert (folder / "payoff.png").stat().st_size > 0
    table = (folder / "payoff.md").read_text()
    assert all(f"| {name} |" in table for name in names)
    assert summary["policy_made_by"] == "league" and summary["league"]["best"] == state["best"]
    assert summary["config"]["learning_rate"] == 0.0001  # --league read league.yaml
    round_1 = state["reports"][0]
    assert round_1["members"] == ["round_1"] and np.isclose(
        sum(round_1["opponents"]["round_1"].values()), 1
    )


def test_a_league_stopped_in_a_round_resumes_it_as_the_uninterrupted_league_played_it(
    leagues: dict[str, Any],
) -> None:
    assert leagues["stopped_state"]["rounds_done"] == 1
    whole = Path(leagues["whole"]["run_dir"]) / "league"
    resumed = Path(leagues["resumed"]["run_dir"]) / "league"
    first, second = weights(whole / "round_2.pt"), weights(resumed / "round_2.pt")
    assert first.keys() == second.keys() and all(torch.equal(first[n], second[n]) for n in first)
    states = [json.loads((folder / "state.json").read_text()) for folder in (whole, resumed)]
    for key in ("scores", "meta_strategy", "best", "reports"):
        assert states[0][key] == states[1][key]


def test_a_finished_league_plays_more_rounds_only_when_asked(leagues: dict[str, Any]) -> None:
    with pytest.raises(
        ValueError, match=r"has played 2 rounds of its league, of its league\.rounds=2"
    ):
        train.resume(leagues["whole"]["run_dir"])


def test_a_league_folder_of_another_game_is_refused(
    leagues: dict[str, Any], tmp_path: Path
) -> None:
    config = load_config("snail_sprint_v0", overrides=[*TINY_LEAGUE, "env_options.num_players=3"])
    run = Path(leagues["whole"]["run_dir"])
    with pytest.raises(
        ValueError, match=r"is a league of snail_sprint_v0 with options \{'num_players': 2\}"
    ):
        Population(run, config).load()


def test_a_member_file_that_is_not_weights_is_named(tmp_path: Path) -> None:
    broken = tmp_path / "member.pt"
    broken.write_bytes(b"not a tensor file")
    (tmp_path / "member.json").write_text("{}")
    with pytest.raises(ValueError, match=f"member ppo:{broken}: "):
        load_member(f"ppo:{broken}", FAST, {})


def test_a_member_of_another_game_is_refused_when_the_config_loads(tmp_path: Path) -> None:
    path = save_policy(
        tmp_path / "other.pt", network_of("pedzace_slimaki_v0"), "pedzace_slimaki_v0"
    )
    with pytest.raises(ValueError, match=r"league.population: member ppo:.*other.pt"):
        load_config(FAST, overrides=[*TINY_LEAGUE, f"league.population=[clone, 'ppo:{path}']"])


def test_members_learn_at_the_leagues_step_size_and_a_ppo_stage_goes_on_from_the_best(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`league.learning_rate` is the members' step size; a ppo stage after the league keeps the
    run's, and starts from (and is anchored to) the league's best member."""
    from snail_envs.training import run as run_module

    built: list[float] = []
    build = run_module.build_model

    def recording(*args: Any, **kwargs: Any) -> Any:
        model = build(*args, **kwargs)
        built.append(model.learning_rate)
        return model

    monkeypatch.setattr(run_module, "build_model", recording)
    overrides = [
        *TINY_LEAGUE,
        "stages=[imitation, league, ppo]",
        "league.rounds=1",
        "league.learning_rate=0.0005",
        "learning_rate=0.0002",
        "anchor_coef=0.02",
        "total_timesteps=128",
        f"output_dir={tmp_path}",
    ]
    summary = train.main(["--env", FAST, *overrides, "--no-progress"])
    assert built[0] == 0.0002 and built[1:] == [0.0005]  # the run's learner, then round_1
    run = Path(summary["run_dir"])
    best = json.loads((run / "league" / "state.json").read_text())["best"]
    start, league_best = weights(run / "clone.pt"), weights(run / "league" / f"{best}.pt")
    assert all(torch.equal(start[name], league_best[name]) for name in league_best)
    assert summary["policy_made_by"] == "ppo"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["league.rounds=0"], "league.rounds must be at least 1; got 0"),
        (["league.meta_solver=elo"], "league.meta_solver must be one of nash, pfsp; got 'elo'"),
        (
            ["league.population=[clone, heuristics]"],
            r"unknown member 'heuristics' \(did you mean 'heuristic'\?\)",
        ),
        (["league.population=[random, heuristic]"], "league.population must hold clone"),
        (["league.population=[clone]"], "at least two distinct members"),
        (["league.eval_deals=0"], "league.eval_deals must be at least 1"),
        (
            ["league.population=[clone, 'ppo:a/b.pt', 'ppo:a/b']"],
            "two members would be named ppo_a_b",
        ),
        (["stages=[league]"], "it needs a stage before league or an init_from"),
        (["league.learning_rate=2"], r"league.learning_rate must be in \(0, 1\) or null; got 2"),
    ],
)
def test_bad_league_settings_are_refused_when_the_config_loads(
    overrides: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message) as refused:
        load_config(FAST, overrides=[*TINY_LEAGUE, *overrides])
    assert "\n" not in str(refused.value)


def test_the_league_flag_and_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        train.main(["--env", FAST, "--league", "--config", "configs/snail_sprint/ppo.yaml"])
    assert "--league reads configs/<game>/league.yaml; --config another" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["--help"])
    shown = capsys.readouterr().out
    for name in LeagueConfig.__dataclass_fields__:
        assert f"\n  league.{name} (" in shown, name


@pytest.fixture(scope="module")
def local_ray() -> Any:
    """Ray on this machine with one CPU, its workers importing this checkout, its files in a
    folder of its own (short, for Ray's socket paths), never in the system's `ray` folder."""
    ray = pytest.importorskip("ray")
    from snail_envs.training.rllib_train import local_ray_environment

    folder = tempfile.mkdtemp(prefix="league-")
    with local_ray_environment(folder):
        try:
            ray.init(
                num_cpus=1,
                include_dashboard=False,
                _temp_dir=folder,
                runtime_env={"env_vars": {"PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}},
            )
        except Exception as problem:  # Ray fails to start in many ways, each a reason to skip
            pytest.skip(f"a local Ray cannot start here: {problem}")
        yield ray
        ray.shutdown()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow  # a local Ray starts in about 15 s
def test_a_round_trained_on_ray_is_the_round_trained_here(
    leagues: dict[str, Any], local_ray: Any, tmp_path: Path
) -> None:
    """A round of a member and an exploiter, from the tiny league's clone (also a frozen
    `ppo:PATH` member): as Ray tasks on a local Ray, and in this process."""
    clone = Path(leagues["whole"]["run_dir"]) / "league" / "clone.pt"
    one_round = [
        *TINY_LEAGUE,
        "stages=[league]",
        "league.rounds=1",
        "league.exploiter=true",
        f"league.population=[clone, random, 'ppo:{clone}']",
    ]
    folders = []
    for where, address in (("here", []), ("ray", ["league.address=auto"])):
        summary = train.main(
            [
                "--env",
                FAST,
                "--init-from",
                str(clone),
                *one_round,
                *address,
                f"output_dir={tmp_path / where}",
                "--no-progress",
            ]
        )
        folders.append(Path(summary["run_dir"]) / "league")
    for member in ("round_1", "exploiter_1"):
        here, there = (weights(folder / f"{member}.pt") for folder in folders)
        assert all(torch.equal(here[name], there[name]) for name in here), member
