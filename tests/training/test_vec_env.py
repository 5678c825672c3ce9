"""`snail_envs.make_vec_env`: the single-agent views as one VecEnv, with DummyVecEnv's results."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from stable_baselines3.common.vec_env import DummyVecEnv

import snail_envs
from snail_envs.core.vec_env import SingleAgentVecEnv
from snail_envs.pedzace_slimaki.observer import POINTS_SCALE
from tests.names import SNAP


def masks_of(venv: DummyVecEnv) -> np.ndarray:
    return np.stack(venv.env_method("action_masks"))


LENGTH_LIMITS = {
    SNAP: {"max_flips": 30},
    "snailed_it_v0": {"max_turns": 40},
    "snail_sprint_v0": {"max_turns": 40},
    "pedzace_slimaki_v0": {"max_turns": 12},
}
"""Options that stop some games early, so that truncated episodes are compared too."""


@pytest.mark.parametrize("env_name", snail_envs.available_env_names())
def test_it_steps_exactly_as_dummy_vec_env(env_name: str) -> None:
    """Same seeds and actions: the same observations, rewards, dones, masks and infos, the
    finished episodes' last observations and truncation flags included."""
    options = LENGTH_LIMITS[env_name]
    make = [lambda: snail_envs.single_agent(env_name, num_players=3, **options)] * 4
    ours, reference = SingleAgentVecEnv(make), DummyVecEnv(make)
    ours.seed(7)
    reference.seed(7)
    assert np.array_equal(ours.reset(), reference.reset())
    rng = np.random.default_rng(0)
    finished = truncated = 0
    for _ in range(300):
        masks = masks_of(ours)
        assert masks.dtype == bool and np.array_equal(masks, masks_of(reference))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        ours.step_async(actions)
        reference.step_async(actions)
        observations, rewards, dones, infos = ours.step_wait()
        expected = reference.step_wait()
        assert np.array_equal(observations, expected[0])
        assert np.array_equal(rewards, expected[1]) and np.array_equal(dones, expected[2])
        for info, reference_info in zip(infos, expected[3], strict=True):
            assert info.keys() - {"TimeLimit.truncated"} == reference_info.keys() - {
                "TimeLimit.truncated"
            }
            assert info.get("TimeLimit.truncated", False) == reference_info["TimeLimit.truncated"]
            if "terminal_observation" in info:
                finished += 1
                truncated += info["TimeLimit.truncated"]
                assert np.array_equal(
                    info["terminal_observation"], reference_info["terminal_observation"]
                )
    assert finished > 0 and truncated > 0


def test_margin_rewards_return_the_change_of_the_learners_lead() -> None:
    """Pędzące Ślimaki (no seat goes out): each episode returns the learner's points less the
    mean of the others', as its last view shows them, less that lead at its first decision."""
    venv = snail_envs.make_vec_env("pedzace_slimaki_v0", 4, num_players=3, reward="margin")
    points = venv.envs[0].game.unwrapped._observer.observation_layout["points"]

    def leads(views: np.ndarray) -> np.ndarray:
        scores = views[:, points][:, :3].astype(np.float64) * POINTS_SCALE
        return scores[:, 0] - scores[:, 1:].mean(axis=1)

    venv.seed(3)
    first = leads(venv.reset())
    rng = np.random.default_rng(3)
    returns = np.zeros(venv.num_envs)
    episodes = behind = 0
    while episodes < 60:
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks_of(venv)])
        observations, rewards, dones, infos = venv.step(actions)
        returns += rewards
        for index in np.flatnonzero(dones):
            last = leads(infos[index]["terminal_observation"][None])[0]
            assert returns[index] == pytest.approx(last - first[index], abs=1e-4)
            returns[index] = 0
            behind += first[index] < 0
            first[index] = leads(observations[index][None])[0]
            episodes += 1
    assert behind > 0, "the others never scored before the learner's first turn"


def test_masks_and_observations_handed_out_are_copies() -> None:
    venv = snail_envs.make_vec_env("snail_sprint_v0", 2)
    observations = venv.reset()
    masks = venv.env_method("action_masks")
    observations[:] = -1
    masks[0][:] = False
    assert venv.env_method("action_masks")[0].any()
    assert not (venv.observations == -1).all()
    assert [mask.tolist() for mask in venv.env_method("action_masks", indices=[1])] == [
        venv.masks[1].tolist()
    ]


def test_other_methods_reach_the_views() -> None:
    venv = snail_envs.make_vec_env(SNAP, 2, seat=1)
    venv.reset()
    assert venv.get_attr("learner") == ["player_1", "player_1"]
    assert venv.env_method("action_masks", indices=0)[0].dtype == bool


def test_maskable_ppo_trains_on_it() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    venv = snail_envs.make_vec_env("pedzace_slimaki_v0", 2, num_players=2)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    assert model.num_timesteps == 64


def test_a_bad_action_anywhere_steps_no_environment() -> None:
    """Every action is checked before any game moves: an illegal action in the last game, a
    float, or too few actions leave every game as it was."""
    venv = snail_envs.make_vec_env("snail_sprint_v0", 3, num_players=3)
    venv.seed(0)
    venv.reset()
    states = [env.game.unwrapped.state() for env in venv.envs]
    legal = np.array([np.flatnonzero(mask)[0] for mask in masks_of(venv)])
    illegal = legal.copy()
    illegal[2] = np.flatnonzero(~masks_of(venv)[2])[0]
    for actions, problem in (
        (illegal, rf"environment 2 \(none stepped\): player_.: action {illegal[2]} is illegal"),
        ([*legal[:2], 1.5], r"environment 2 \(none stepped\): .* must be an integer, got 1\.5"),
        (legal[:2], "actions must give one action for each of the 3 environments"),
    ):
        venv.step_async(actions)
        with pytest.raises(ValueError, match=problem):
            venv.step_wait()
        assert all(
            np.array_equal(env.game.unwrapped.state(), state)
            for env, state in zip(venv.envs, states, strict=True)
        )
    venv.step(legal)


def test_an_illegal_action_is_played_where_the_views_penalize_it() -> None:
    venv = snail_envs.make_vec_env("snail_sprint_v0", 2, illegal_action="penalize")
    venv.reset()
    illegal = np.array([np.flatnonzero(~mask)[0] for mask in masks_of(venv)])
    _, rewards, dones, _ = venv.step(illegal)
    assert dones.all() and (rewards == -1).all()


def test_bad_arguments_are_rejected() -> None:
    assert snail_envs.make_vec_env(SNAP, np.int64(2)).num_envs == 2
    for bad in (0, True, 2.0):
        with pytest.raises(ValueError, match="num_envs must be an integer at least 1"):
            snail_envs.make_vec_env(SNAP, bad)
    with pytest.raises(ValueError, match="unknown environment"):
        snail_envs.make_vec_env("chess_v6", 2)
    with pytest.raises(ValueError, match="action_masks"):
        SingleAgentVecEnv([lambda: gymnasium.make("CartPole-v1")])
