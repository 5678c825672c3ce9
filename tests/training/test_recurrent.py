"""The recurrent policy with masks carried in the observation (`snail_envs.training.recurrent`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces
from sb3_contrib import RecurrentPPO
from stable_baselines3.common.vec_env import VecMonitor

import snail_envs.batched
from snail_envs.training.recurrent import (
    MaskedRecurrentPolicy,
    MasksInObservations,
    RecurrentAgent,
    with_mask,
)
from tests.names import PEDZACE_SLIMAKI

GAMES = 4


def masked_venv() -> MasksInObservations:
    venv = snail_envs.batched.make_vec_env(PEDZACE_SLIMAKI, GAMES, num_players=2)
    return MasksInObservations(VecMonitor(venv))


def small_model(venv: MasksInObservations) -> RecurrentPPO:
    return RecurrentPPO(
        MaskedRecurrentPolicy,
        venv,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        policy_kwargs={"net_arch": [16], "lstm_hidden_size": 8},
        seed=0,
        device="cpu",
    )


def test_observations_end_with_the_masks_of_the_games() -> None:
    venv = masked_venv()
    view = venv.venv.observation_space
    actions = int(venv.action_space.n)
    assert venv.observation_space.shape == (view.shape[0] + actions,)
    observations = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(200):
        masks = venv.venv.action_masks()
        assert np.array_equal(observations[:, -actions:], masks.astype(np.float32))
        assert all(observation in venv.observation_space for observation in observations)
        actions_taken = np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)
        observations, _, dones, infos = venv.step(actions_taken)
        for index in np.flatnonzero(dones):
            final = infos[index]["terminal_observation"]
            assert final.shape == venv.observation_space.shape
            assert (final[-actions:] == 1.0).all()


def test_a_masked_recurrent_policy_gives_illegal_actions_no_probability() -> None:
    venv = masked_venv()
    policy = small_model(venv).policy
    observations = torch.as_tensor(venv.reset())
    masks = observations[:, -venv.num_actions :] > 0.5
    assert (~masks).any()
    layers, _, units = policy.lstm_hidden_state_shape
    state = (torch.zeros(layers, GAMES, units), torch.zeros(layers, GAMES, units))
    distribution, _ = policy.get_distribution(observations, state, torch.ones(GAMES))
    probabilities = distribution.distribution.probs
    assert (probabilities[~masks] == 0).all()
    assert torch.allclose(probabilities.sum(1), torch.ones(GAMES))


def test_recurrent_ppo_with_masks_in_the_observation_trains_on_legal_actions_only() -> None:
    """The batched env raises on an illegal action: a rollout and update of RecurrentPPO through
    it play only legal ones, and the update moves the weights."""
    model = small_model(masked_venv())
    before = [parameter.detach().clone() for parameter in model.policy.parameters()]
    model.learn(256)
    after = list(model.policy.parameters())
    assert any(not torch.equal(old, new) for old, new in zip(before, after, strict=True))


def test_a_recurrent_agent_carries_its_state_through_a_game_and_reset_starts_anew() -> None:
    venv = masked_venv()
    model = small_model(venv)
    observation = venv.venv.reset()[0]
    mask = venv.venv.action_masks()[0]
    agent = RecurrentAgent(model.policy)
    first = agent.act(observation, mask)
    state_after_one = [part.copy() for part in agent._state]
    assert mask[first]
    agent.act(observation, mask)
    assert any(
        not np.array_equal(one, two) for one, two in zip(state_after_one, agent._state, strict=True)
    )
    agent.reset()
    assert agent.act(observation, mask) == first
    assert all(
        np.array_equal(one, two) for one, two in zip(state_after_one, agent._state, strict=True)
    )


def test_an_agent_with_no_legal_action_and_spaces_without_masks_are_refused() -> None:
    venv = masked_venv()
    agent = RecurrentAgent(small_model(venv).policy)
    observation = venv.venv.reset()[0]
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(observation, np.zeros(venv.num_actions, np.int8))
    box = spaces.Box(0, 1, (3,))
    with pytest.raises(ValueError, match="Discrete action space"):
        MaskedRecurrentPolicy(box, box, lambda _: 1e-3)


def test_with_mask_appends_the_mask_as_floats() -> None:
    observation = np.array([0.5, 2.0], np.float32)
    joined = with_mask(observation, np.array([1, 0, 1], np.int8))
    assert joined.dtype == np.float32
    assert joined.tolist() == [0.5, 2.0, 1.0, 0.0, 1.0]
