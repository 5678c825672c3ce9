"""One game, one length under each name: the tools count a game's decisions, AEC steps, ticks
and timesteps as `snail_envs.core.length` defines them."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

import snail_envs
from snail_envs.apps.replay import main as replay_main
from snail_envs.apps.replay import read_replay
from snail_envs.demo import random_action
from snail_envs.training.evaluate import Lineup, play_game

SEED = 7


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_a_seeded_game_is_as_long_for_every_tool_that_counts_it(
    env_name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """snail-eval's game, saved as a replay, is as many decisions and AEC steps for
    snail-replay and for the AEC environment that plays its actions again, and as many
    decisions and ticks for the parallel environment that plays them tick by tick."""
    path = tmp_path / "game.jsonl"
    play_game(env_name, ["random", "random"], SEED, Lineup(env_name), {}, replay=path)
    replay = read_replay(path)
    played = [(step.agent, step.action) for step in replay.steps]

    aec = snail_envs.make(env_name, **replay.options)
    aec.reset(seed=replay.seed)
    for agent, action in played:
        assert aec.agent_selection == agent
        aec.step(action)
    length = aec.unwrapped.length
    assert length.aec_steps == len(played)
    assert length.decisions == sum(action is not None for _, action in played)

    replay_main([str(path), "--no-interactive"])
    shown = capsys.readouterr().out
    assert f"[decision {length.decisions}/{length.decisions}]" in shown
    assert f"{length.aec_steps} AEC steps ({length.decisions} decisions) of {env_name} " in shown

    parallel = snail_envs.make_parallel(env_name, **replay.options)
    parallel.reset(seed=replay.seed)
    live = [(agent, action) for agent, action in played if action is not None]
    while parallel.agents:
        acting = parallel.unwrapped.game.acting_seats()
        tick, live = live[: len(acting)], live[len(acting) :]
        parallel.step(dict(tick))
    assert not live
    assert parallel.unwrapped.length.decisions == length.decisions
    assert parallel.unwrapped.length.ticks == length.ticks
    assert length.ticks <= length.decisions < length.aec_steps


class CountingOpponent:
    """A random opponent that counts its decisions."""

    def __init__(self) -> None:
        self.rng = random.Random(SEED)
        self.decisions = 0

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.decisions += 1
        return random_action(action_mask, self.rng)


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_a_learners_timesteps_are_its_seats_decisions(env_name: str) -> None:
    """snail-train's timesteps are the steps of the single-agent view: the learner's seat's
    decisions, the game's decisions less its opponents'."""
    opponent = CountingOpponent()
    view = snail_envs.single_agent(env_name, opponents=opponent, seat=0)
    _, info = view.reset(seed=SEED)
    rng = random.Random(SEED)
    timesteps, over = 0, False
    while not over:
        _, _, terminated, truncated, info = view.step(random_action(info["action_mask"], rng))
        timesteps += 1
        over = terminated or truncated
    assert timesteps == view.game.unwrapped.length.decisions - opponent.decisions
