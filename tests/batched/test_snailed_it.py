"""Batched Snailed It!: ticks with toss windows replay as the reference rules, and the learner's
vector env acts in both phases of its seat; the heuristic port decides as the Python heuristic."""

from __future__ import annotations

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import numpy as np
import pytest

import snail_envs.batched
from agents.heuristics.snailed_it import SnailedItHeuristic
from snail_envs.batched.snailed_it import round_9
from snail_envs.snailed_it.rules import PASS, PLAY_ACTIONS
from tests.batched.differential import run_differential, run_learner_replay

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


@pytest.mark.parametrize(
    "options",
    [{"num_players": 4}, {"num_players": 6, "hand_size": 5, "card_points": list(range(1, 19))}],
    ids=str,
)
def test_the_heuristic_port_chooses_as_the_python_heuristic(options: dict) -> None:
    batch = snail_envs.batched.make("snailed_it_v0", 128, **options)
    python = SnailedItHeuristic(card_points=batch.options.card_points)
    batch.reset(seed=1)
    plays = tosses = 0
    for _ in range(150):
        ported = batch.heuristic_actions()
        for index, slot in zip(*np.nonzero(batch.seats >= 0), strict=True):
            view, mask = batch.observations[index, slot], batch.action_masks[index, slot]
            assert ported[index, slot] == python.act(view, mask), f"game {index}, slot {slot}"
            if mask[:PLAY_ACTIONS].any():
                plays += 1
            elif ported[index, slot] != PASS:
                tosses += 1
        batch.step(batch.random_actions())
    assert plays > 5_000 and tosses > 500


def test_the_port_rounds_gains_as_python_does() -> None:
    rng = np.random.default_rng(0)
    halves = (rng.integers(-(10**11), 10**11, 20_000) + 0.5) / 1e9
    values = np.concatenate(
        [rng.uniform(-300, 300, 20_000), halves, np.nextafter(halves, 1), np.nextafter(halves, -1)]
    )
    assert [round_9(x) for x in values.tolist()] == [round(x, 9) for x in values.tolist()]


def test_the_learner_vec_env_follows_the_reference_game_against_heuristics() -> None:
    run_learner_replay(
        "snailed_it_v0",
        {"num_players": 3, "hand_size": 5, "target": 8},
        lambda options: SnailedItHeuristic(card_points=options.card_points),
        episodes=100,
    )


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
