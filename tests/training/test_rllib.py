"""Training on Ray RLlib: the env adapter, the masking module, the exported agent, and tiny runs
on a local Ray (one turn-based game, one with simultaneous windows).

These tests need the `rllib` extra; without Ray they fail at import with the install hint.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import snail_envs
from snail_envs.agents import make_agent
from snail_envs.agents.ppo import save_policy as save_ppo_policy
from snail_envs.agents.rllib_policy import (
    INSTALL_HINT,
    POLICY_FILE,
    RLlibAgent,
    rllib_missing,
    save_policy,
)
from snail_envs.training import evaluate, rllib_train
from tests.names import SNAP

try:
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode

    from snail_envs.training.rllib_env import SnailMultiAgentEnv
    from snail_envs.training.rllib_module import MaskedPolicyModule, policy_state, state_from_sb3
except ModuleNotFoundError as missing:
    raise rllib_missing(missing) from None

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------- the env adapter


def random_actions(
    env: SnailMultiAgentEnv, observations: dict[str, Any], rng: np.random.Generator
) -> dict[str, int]:
    """A random legal action for every agent given an observation, but those that are done (as
    RLlib does)."""
    return {
        agent: int(rng.choice(np.flatnonzero(seen["action_mask"])))
        for agent, seen in observations.items()
        if agent in env.agents
    }


def play(env: SnailMultiAgentEnv, seed: int) -> Iterator[tuple[dict, dict, tuple]]:
    """Random legal play of one game: (observations, actions, step results) for every step."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    while True:
        actions = random_actions(env, observations, rng)
        results = env.step(actions)
        yield observations, actions, results
        observations, _, terminated, truncated, _ = results
        if terminated["__all__"] or truncated["__all__"]:
            return


def test_agents_and_spaces_are_the_games() -> None:
    env = SnailMultiAgentEnv({"env": "snail_sprint_v0", "options": {"num_players": 3}})
    game = snail_envs.make_parallel("snail_sprint_v0", num_players=3)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    for agent in env.possible_agents:
        assert env.get_observation_space(agent) == game.observation_space(agent)
        assert env.get_action_space(agent) == game.action_space(agent)
    env.reset(seed=1)
    assert env.agents == env.possible_agents


@pytest.mark.parametrize(
    ("env_name", "simultaneous"),
    [("snail_sprint_v0", False), ("pedzace_slimaki_v0", False), (SNAP, True)],
)
def test_exactly_the_seats_that_act_now_get_observations(env_name: str, simultaneous: bool) -> None:
    env = SnailMultiAgentEnv({"env": env_name})
    first, _ = env.reset(seed=3)
    observed = [len(first)]
    for _, _, (seen, _, terminated, truncated, _) in play(env, seed=3):
        acting = [agent for agent in env.agents if env.game.legal_actions(agent)]
        assert sorted(agent for agent in seen if agent in env.agents) == sorted(acting)
        assert all(seen[agent]["action_mask"].any() for agent in acting)
        if not (terminated["__all__"] or truncated["__all__"]):
            observed.append(len(acting))
    assert max(observed) > 1 if simultaneous else set(observed) == {1}


@pytest.mark.parametrize("env_name", snail_envs.ENV_NAMES)
def test_rllib_episodes_credit_every_seat_with_its_own_rewards(env_name: str) -> None:
    """RLlib's own episode bookkeeping accepts every step, and each seat's return there is its
    return in the PettingZoo game (a terminal reward reaches seats that did not act last)."""
    env = SnailMultiAgentEnv({"env": env_name})
    twin = snail_envs.make_parallel(env_name)
    for seed in range(3):
        episode = MultiAgentEpisode(
            observation_space=env.observation_spaces,
            action_space=env.action_spaces,
            agent_to_module_mapping_fn=rllib_train.shared_policy,
        )
        observations, infos = env.reset(seed=seed)
        twin.reset(seed=seed)
        episode.add_env_reset(observations=observations, infos=infos)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        for _, actions, (observations, rewards, terminated, truncated, infos) in play(env, seed):
            _, twin_rewards, _, _, _ = twin.step(actions)
            assert rewards == twin_rewards
            for agent, reward in twin_rewards.items():
                returns[agent] += reward
            episode.add_env_step(
                observations, actions, rewards, infos, terminateds=terminated, truncateds=truncated
            )
        assert episode.is_done and not twin.agents
        credited = {agent: single.get_return() for agent, single in episode.agent_episodes.items()}
        assert credited == returns
        assert sorted(set(returns.values())) in ([-1.0, 1.0], [1.0])


def test_a_seat_that_goes_out_gets_its_last_reward_and_observation_then_leaves() -> None:
    env = SnailMultiAgentEnv({"env": SNAP, "options": {"num_players": 4}})
    for seed in range(20):
        gone: set[str] = set()
        for _, actions, (seen, rewards, terminated, _, _) in play(env, seed):
            assert not gone & (set(actions) | set(rewards) | set(seen))
            out = {a for a, done in terminated.items() if done and a != "__all__"}
            if out and not terminated["__all__"]:
                for agent in out:
                    assert rewards[agent] == -1.0
                    assert not seen[agent]["action_mask"].any()
                    assert agent not in env.agents
                gone |= out
        if gone:
            return
    pytest.fail("no seat went out early in 20 games of four-player Snap")


def test_truncation_ends_the_game_for_every_seat_with_a_last_observation() -> None:
    env = SnailMultiAgentEnv({"env": SNAP, "options": {"max_ticks": 6}})
    steps = list(play(env, seed=0))
    _, _, (seen, _, terminated, truncated, _) = steps[-1]
    assert len(steps) == 6
    assert truncated["__all__"] and not terminated["__all__"]
    assert set(seen) == set(env.possible_agents) and all(truncated[a] for a in seen)


# ----------------------------------------------------------------- the masking module


def module_for(env_name: str, hidden: list[int]) -> tuple[MaskedPolicyModule, Any]:
    env = SnailMultiAgentEnv({"env": env_name})
    agent = env.possible_agents[0]
    module = MaskedPolicyModule(
        observation_space=env.get_observation_space(agent),
        action_space=env.get_action_space(agent),
        model_config={"hidden": hidden},
    )
    return module, env


def random_batch(size: int, observation_size: int, num_actions: int) -> dict[str, torch.Tensor]:
    rng = np.random.default_rng(0)
    masks = (rng.random((size, num_actions)) < 0.4).astype(np.int8)
    masks[np.arange(size), rng.integers(num_actions, size=size)] = 1
    masks[0] = 0  # a finished seat's last observation: nothing is legal
    return {
        "observation": torch.as_tensor(rng.random((size, observation_size), dtype=np.float32)),
        "action_mask": torch.as_tensor(masks),
    }


def test_the_module_never_samples_a_forbidden_action() -> None:
    module, env = module_for(SNAP, [8])
    observations = random_batch(
        200, env.get_observation_space("player_0")["observation"].shape[0], 4
    )
    output = module.forward_exploration({Columns.OBS: observations})
    logits = output[Columns.ACTION_DIST_INPUTS]
    distribution = module.get_exploration_action_dist_cls().from_logits(logits)
    for _ in range(5):
        actions = distribution.sample()
        legal = observations["action_mask"][torch.arange(200), actions] == 1
        assert legal[1:].all()
    assert torch.isfinite(distribution.logp(actions)[1:]).all()
    assert torch.isfinite(distribution.entropy()).all()
    values = module.compute_values({Columns.OBS: observations})
    assert values.shape == (200,)


def test_the_exported_policy_is_the_modules_policy(tmp_path: Path) -> None:
    module, env = module_for("snail_sprint_v0", [16, 8])
    size = env.get_observation_space("player_0")["observation"].shape[0]
    path = save_policy(
        tmp_path / POLICY_FILE,
        policy_state(module.get_state()),
        size,
        6,
        [16, 8],
        "snail_sprint_v0",
    )
    agent = make_agent(f"rllib:{tmp_path}", "snail_sprint_v0")
    batch = random_batch(50, size, 6)
    logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
    for row in range(1, 50):
        chosen = agent.act(batch["observation"][row].numpy(), batch["action_mask"][row].numpy())
        assert chosen == int(torch.argmax(logits[row]))
    sampler = RLlibAgent.load(path, deterministic=False, seed=4)
    mask = np.array([0, 1, 0, 1, 0, 0], dtype=np.int8)
    assert {sampler.act(batch["observation"][1].numpy(), mask) for _ in range(50)} == {1, 3}


def sb3_policy(env_name: str, hidden: list[int]) -> Any:
    """A fresh policy network of `snail-train` for the game."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    view = snail_envs.single_agent(env_name)
    return MaskableActorCriticPolicy(
        view.observation_space, view.action_space, lambda _: 1e-3, net_arch=hidden
    )


def test_a_policy_trained_by_train_becomes_the_modules_networks(tmp_path: Path) -> None:
    """What `--init-from` gives the learner: the module plays and values as the SB3 policy."""
    module, env = module_for("snail_sprint_v0", [16, 8])
    size = env.get_observation_space("player_0")["observation"].shape[0]
    sb3 = sb3_policy("snail_sprint_v0", [16, 8])
    module.set_state(state_from_sb3(sb3.state_dict(), [16, 8]))
    batch = random_batch(50, size, 6)
    logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
    masks = batch["action_mask"][1:].bool()
    expected = sb3.get_distribution(batch["observation"][1:], masks).distribution.logits
    legal = torch.log_softmax(logits[1:].masked_fill(~masks, -torch.inf), dim=1)
    assert torch.allclose(legal[masks], expected[masks], atol=1e-5)
    values = module.compute_values({Columns.OBS: batch})
    assert torch.allclose(values, sb3.predict_values(batch["observation"]).flatten(), atol=1e-6)
    save_ppo_policy(tmp_path / "policy.pt", sb3, "snail_sprint_v0")
    with pytest.raises(SystemExit):
        rllib_train.parse_args(
            ["--env=snail_sprint_v0", f"--init-from={tmp_path / 'policy.pt'}", "--hidden", "8"]
        )
    args = rllib_train.parse_args(
        ["--env=snail_sprint_v0", f"--init-from={tmp_path / 'policy.pt'}", "--hidden", "16", "8"]
    )
    assert args.init_from == tmp_path / "policy.pt"


def test_rllib_agents_name_their_policy_and_game(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="rllib:PATH"):
        make_agent("rllib", SNAP)
    with pytest.raises(FileNotFoundError, match="no trained policy"):
        make_agent(f"rllib:{tmp_path}", SNAP)
    module, _ = module_for(SNAP, [4])
    save_policy(tmp_path / POLICY_FILE, policy_state(module.get_state()), 71, 4, [4], SNAP)
    with pytest.raises(ValueError, match=f"trained on {SNAP}, not snail_sprint_v0"):
        make_agent(f"rllib:{tmp_path}", "snail_sprint_v0")


def test_without_ray_the_script_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from training import rllib_train\n"
        f"rllib_train.main(['--env', '{SNAP}', '--iterations', '1'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and done.stderr.startswith(INSTALL_HINT), done.stderr


# ----------------------------------------------------------------- the script


def test_flags_become_the_runs_settings() -> None:
    args = rllib_train.parse_args(
        [f"--env={SNAP}", "-o", "num_players=3", "--lambda=0.9", "--hidden", "8", "8"]
    )
    assert args.options == {"num_players": 3} and args.lambda_ == 0.9 and args.hidden == [8, 8]
    assert args.address is None and args.num_env_runners == 2
    assert args.output_dir == Path("runs/rllib") and not args.trust_checkpoint


def test_a_runs_steps_are_called_ticks_in_its_lines_and_on_its_curve() -> None:
    """RLlib's env steps are ticks of the parallel environment (`snail_envs.core.length`), not
    the learner timesteps that snail-train's curve counts."""
    from snail_envs.training.curve import curve_figure

    line = {"iteration": 1, "seconds": 2.0, "env_steps": 4000, "episodes": 30}
    assert "4000 ticks, 30 games" in rllib_train.iteration_text(line)
    curve = [{"stage": "ppo", "timesteps": 4000, "random": (0.6, 0.4, 0.8)}]
    drawn = curve_figure(curve, "a run", 0.5, units={"ppo": rllib_train.TICKS})
    assert [axes.get_xlabel() for axes in drawn.axes] == ["ticks (RLlib's env steps)"]


def test_help_describes_every_flag_with_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        rllib_train.parse_args(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "Env steps (ticks) sampled per iteration. (default: 4000)" in text
    assert "--eval-every EVAL_EVERY Iterations between two evaluation points" in text
    assert "The discount of future rewards. (default: 0.99)" in text
    flags = [word for word in text.split() if word.startswith("--") and word != "--help"]
    assert len(set(flags)) >= 20
    assert text.count("(default: ") >= len(set(flags))


def test_local_runs_keep_rays_log_lines_off_the_terminal(tmp_path: Path) -> None:
    """Only errors of Ray's driver logger, no relayed worker lines; no restartable env runners
    on one machine (their setup costs an error-level line of Ray's on every run)."""
    assert rllib_train.ray_log_settings(logs=False) == {
        "logging_level": 40,
        "log_to_driver": False,
    }
    assert rllib_train.ray_log_settings(logs=True) == {}
    local = rllib_train.build_config(rllib_train.Args(env=SNAP), tmp_path)
    cluster = rllib_train.build_config(rllib_train.Args(env=SNAP, address="auto"), tmp_path)
    assert not local.restart_failed_env_runners and cluster.restart_failed_env_runners
    assert local.log_level == "ERROR"


def test_resuming_from_a_pickled_checkpoint_needs_trust(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as refused:
        rllib_train.main([f"--env={SNAP}", f"--output-dir={tmp_path}", f"--resume={tmp_path}"])
    error = capsys.readouterr().err
    assert refused.value.code == 1 and error.count("\n") == 1
    assert "RLlib checkpoint: its files are pickles" in error and "--trust-checkpoint" in error
    assert not any(tmp_path.iterdir())  # refused before any run folder or Ray


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        (ConnectionError("Failed to connect to Ray cluster at 10.0.0.9:6379"), "cannot reach"),
        ("authentication", "refused this client's token"),
    ],
)
def test_a_cluster_out_of_reach_or_refusing_ends_with_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys,
    failure: Any,
    message: str,  # type: ignore[no-untyped-def]
) -> None:
    import ray
    from ray.exceptions import AuthenticationError

    if failure == "authentication":
        failure = AuthenticationError("Token mismatch: the cluster expects another token.")

    def refuse(**kwargs: Any) -> None:
        raise failure

    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(SystemExit) as stopped:
        rllib_train.main([f"--env={SNAP}", "--address=10.0.0.9:6379", f"--output-dir={tmp_path}"])
    error = capsys.readouterr().err
    assert stopped.value.code == 1 and error.count("\n") == 1, error
    assert error.startswith("snail-rllib: error: ") and message in error
    assert "10.0.0.9:6379" in error


def test_a_long_ray_folder_is_reached_through_a_short_link(tmp_path: Path) -> None:
    """Ray's Unix sockets live below its temporary folder, and their paths may not exceed 107
    bytes."""
    with rllib_train.short_alias(Path("/srv/ray")) as path:
        assert path == "/srv/ray"
    deep = tmp_path / ("a-long-folder-name" * 4) / "ray"
    deep.mkdir(parents=True)
    with rllib_train.short_alias(deep) as path:
        assert len(path) <= rllib_train.MAX_SOCKET_DIR
        assert Path(path).resolve() == deep.resolve()
    assert not Path(path).exists() and not Path(path).parent.exists()


# ----------------------------------------------------------------- tiny runs on a local Ray

TINY = [
    "--iterations=2",
    "--train-batch-size=64",
    "--minibatch-size=32",
    "--num-epochs=1",
    "--hidden",
    "16",
    "--checkpoint-every=1",
    "--eval-every=1",
    "--eval-games=2",
]
RUNS = {"snail_sprint_v0": 1, SNAP: 0}
"""The games of the tiny runs (turn-based, simultaneous) and their env runner actors. One run
samples in a remote actor like on a cluster; the other in this process, to spare a second actor
start (seconds) in CI."""


def ray_traces(folder: Path) -> set[str]:
    return {name for name in os.listdir(folder) if name.startswith("ray")}


@pytest.fixture(scope="module")
def tiny_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both runs on one local Ray started by the script's own `ray_session` (one Ray start,
    ~7 s, for both), with the home folder pointed at an empty temporary one (and matplotlib's
    font cache elsewhere)."""
    out = tmp_path_factory.mktemp("rllib")
    home = out / "home"
    home.mkdir()
    system_temp = Path(tempfile.gettempdir())
    before = ray_traces(system_temp)
    # the runs' own temporary files (the short links to Ray's folder) go to a short folder of
    # their own, apart from those of tests running beside them
    own_temp = Path(tempfile.mkdtemp(prefix="r-"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tempfile, "tempdir", str(own_temp))
        patch.setenv("HOME", str(home))
        # matplotlib's font cache, built once per user for every program that draws
        patch.setenv("MPLCONFIGDIR", str(out / "matplotlib"))
        with rllib_train.ray_session(None, out / "ray", num_cpus=2):
            summaries = {
                env: rllib_train.main(
                    [f"--env={env}", f"--num-env-runners={runners}", f"--output-dir={out}", *TINY]
                )
                for env, runners in RUNS.items()
            }
            with pytest.warns(UserWarning, match="runs any code pickled in it"):
                resumed = rllib_train.main(
                    [
                        f"--env={SNAP}",
                        "--num-env-runners=0",
                        f"--output-dir={out / 'resumed'}",
                        f"--resume={summaries[SNAP]['checkpoint']}",
                        "--trust-checkpoint",
                        *TINY,
                    ]
                )
            sb3 = sb3_policy("snail_sprint_v0", [16])
            save_ppo_policy(out / "sb3.pt", sb3, "snail_sprint_v0")
            initialised = rllib_train.main(
                [
                    "--env=snail_sprint_v0",
                    "--num-env-runners=0",
                    f"--output-dir={out / 'initialised'}",
                    f"--init-from={out / 'sb3.pt'}",
                    "--lr=0.000000001",
                    *TINY,
                ]
            )
    left = {name for name in os.listdir(own_temp) if name.startswith(("ray", "snail-ray"))}
    shutil.rmtree(own_temp)
    return {
        "out": out,
        "home": home,
        "new_ray_traces": (ray_traces(system_temp) - before) | left,
        "summaries": summaries,
        "resumed": resumed,
        "sb3": sb3,
        "initialised": initialised,
    }


@pytest.mark.slow
@pytest.mark.parametrize("env_name", list(RUNS))
def test_a_tiny_run_writes_checkpoints_and_its_policy(
    tiny_runs: dict[str, Any], env_name: str
) -> None:
    summary = tiny_runs["summaries"][env_name]
    run = tiny_runs["out"] / f"{env_name}-0-1"
    assert Path(summary["run_dir"]) == run and Path(summary["policy"]) == run / POLICY_FILE
    assert Path(summary["checkpoint"]) == run / "checkpoints" / "iteration_0002"
    for iteration in (1, 2):
        checkpoint = run / "checkpoints" / f"iteration_{iteration:04d}"
        assert (checkpoint / POLICY_FILE).is_file() and (checkpoint / "policy.json").is_file()
        assert (checkpoint / "learner_group").is_dir()
    assert not list(run.rglob(".*"))  # no temporary file or folder left behind
    lines = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [1, 2]
    assert lines[-1]["env_steps"] >= 128
    saved = json.loads((run / "summary.json").read_text())
    assert saved["final_evaluation"]["random"]["games"] == 2
    assert len(saved["iteration_seconds"]) == 2


@pytest.mark.slow
@pytest.mark.parametrize("env_name", list(RUNS))
def test_a_tiny_run_draws_its_learning_curve_and_logs_tensorboard(
    tiny_runs: dict[str, Any], env_name: str
) -> None:
    run = tiny_runs["out"] / f"{env_name}-0-1"
    summary = json.loads((run / "summary.json").read_text())
    opponents = ["random", "heuristic"]
    assert [point["timesteps"] for point in summary["learning_curve"]] == [64, 128]
    for point in summary["learning_curve"]:
        for opponent in opponents:
            rate, low, high = point[opponent]
            assert 0 <= low <= rate <= high <= 1
    lines = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert all(sorted(line["evaluation"]) == sorted(opponents) for line in lines)
    assert summary["final_evaluation"] == lines[-1]["evaluation"]
    assert (run / "learning_curve.png").read_bytes().startswith(b"\x89PNG")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    board = EventAccumulator(str(run / "tensorboard"))
    board.Reload()
    tags = set(board.Tags()["scalars"])
    assert {"train/policy_loss", "train/entropy", "eval/score_vs_random"} <= tags
    assert "eval/score_vs_heuristic" in tags
    assert [event.step for event in board.Scalars("eval/score_vs_random")] == [64, 128]


@pytest.mark.slow
def test_a_run_resumes_from_a_checkpoint(tiny_runs: dict[str, Any]) -> None:
    run = tiny_runs["out"] / "resumed" / f"{SNAP}-0-1"
    assert Path(tiny_runs["resumed"]["checkpoint"]) == run / "checkpoints" / "iteration_0004"
    lines = [json.loads(line) for line in (run / "progress.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [3, 4]


@pytest.mark.slow
def test_a_run_starts_from_a_policy_of_train(tiny_runs: dict[str, Any]) -> None:
    """With a step size too small to change an action, the exported policy plays as the SB3
    policy it started from."""
    agent = RLlibAgent.load(tiny_runs["initialised"]["policy"], "snail_sprint_v0")
    batch = random_batch(100, 487, 6)
    observations, masks = batch["observation"].numpy(), batch["action_mask"].numpy()
    expected = [
        int(tiny_runs["sb3"].predict(o, action_masks=m.astype(bool), deterministic=True)[0])
        for o, m in zip(observations[1:], masks[1:], strict=True)
    ]
    played = [agent.act(o, m) for o, m in zip(observations[1:], masks[1:], strict=True)]
    assert played == expected


@pytest.mark.slow
@pytest.mark.parametrize("env_name", list(RUNS))
def test_the_trained_policy_plays_legal_moves_in_a_tournament(
    tiny_runs: dict[str, Any], env_name: str
) -> None:
    spec = f"rllib:{tiny_runs['out'] / f'{env_name}-0-1'}"
    tournament = evaluate.run_tournament(env_name, [spec, "random"], games=4, progress=False)
    assert len(tournament.pairings[0].records) == 4  # an illegal move would have raised


@pytest.mark.slow
def test_runs_write_nothing_outside_their_folder(tiny_runs: dict[str, Any]) -> None:
    assert not any(tiny_runs["home"].iterdir())
    assert not tiny_runs["new_ray_traces"]
    assert (tiny_runs["out"] / "ray" / "session_latest").is_symlink()  # maybe via the alias
