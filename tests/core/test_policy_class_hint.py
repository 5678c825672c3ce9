"""The single-agent views give a flat Box: a Dict-space policy is told which policy fits."""

from __future__ import annotations

import re

import pytest

import snail_envs
from snail_envs.core.single_agent import MULTI_INPUT_HINT, FlatObservation
from snail_envs.registry import GAMES


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.env_name)
def test_the_view_is_a_flat_box_whose_spaces_name_the_policy_that_fits(game) -> None:
    view = snail_envs.single_agent(game.env_name)
    assert isinstance(view.observation_space, FlatObservation)
    assert (
        view.observation_space
        == snail_envs.make(game.env_name).observation_space("player_0")["observation"]
    )
    with pytest.raises(AttributeError, match=re.escape('use MaskablePPO("MlpPolicy", ...)')):
        view.observation_space.spaces  # noqa: B018


def test_maskable_ppo_with_multi_input_policy_says_to_use_mlp_policy() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = snail_envs.make_vec_env(GAMES[-1].env_name, 2)
    with pytest.raises(AttributeError) as failed:
        sb3_contrib.MaskablePPO("MultiInputPolicy", venv)
    assert str(failed.value) == MULTI_INPUT_HINT
    sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=8)
