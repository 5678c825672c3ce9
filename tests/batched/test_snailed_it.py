"""Batched Snailed It!: ticks with toss windows replay as the reference rules, and the learner's
vector env acts in both phases of its seat."""

from __future__ import annotations

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from snail_envs.snailed_it.rules import PASS, PLAY_ACTIONS
from tests.batched.differential import run_differential

# (options, games): 10,000 games in all. A default game is ~160 ticks of up to 5 acting seats,
# each compared with the reference observer; smaller hands, lower targets and fewer rounds make
# most of the games short, to keep this affordable.
OPTION_SETS = [
    ({}, 1_000),
    ({"num_players": 6, "reward": "points", "max_rounds": 1}, 1_000),
    ({"num_players": 2, "hand_size": 5, "target": 30, "max_turns": 60}, 1_000),
    ({"num_players": 3, "target": 8}, 1_500),
    ({"num_players": 5, "hand_size": 4, "max_rounds": 2}, 1_500),
    ({"num_players": 4, "hand_size": 3, "target": 6}, 2_500),
    (
        {"num_players": 3, "hand_size": 6, "max_rounds": 1, "card_points": [3] * 18},
        1_500,
    ),
]


@pytest.mark.parametrize(("options", "games"), OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(options: dict, games: int) -> None:
    run_differential("snailed_it_v0", options, games=games, num_envs=100, seed=len(options))


@pytest.mark.parametrize("reward", ["winlose", "points"])
def test_the_learner_plays_and_tosses_from_its_own_seat(reward: str) -> None:
    venv = snail_envs.batched.make_vec_env(
        "snailed_it_v0", 64, num_players=4, target=200, max_rounds=2, reward=reward
    )
    layout = venv.engine.observation_layout
    window, totals = layout["toss_window"], layout["totals"]
    venv.seed(4)
    observations = venv.reset()
    returns = np.zeros(venv.num_envs)
    rng = np.random.default_rng(0)
    episodes = tosses = 0
    while episodes < 200:
        masks = venv.action_masks()
        in_window = observations[:, window][:, 0] == 1
        assert (masks[in_window, PASS]).all(), "a toss window always allows passing"
        assert not masks[in_window, :PLAY_ACTIONS].any()
        assert not masks[~in_window, PLAY_ACTIONS:].any()
        tosses += int(masks[in_window, PLAY_ACTIONS:PASS].sum())
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        observations, rewards, dones, infos = venv.step(actions)
        returns += rewards
        for index in np.flatnonzero(dones):
            final = infos[index]["terminal_observation"]
            own_total = round(float(final[totals][0]) * 200)
            if reward == "points":
                assert returns[index] == -own_total
            else:
                lowest = final[totals][:4].min()
                assert returns[index] == (1.0 if final[totals][0] == lowest else -1.0)
            returns[index] = 0
            episodes += 1
    assert tosses > 0, "the learner never could toss"
