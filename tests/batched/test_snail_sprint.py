"""Batched Snail Sprint!: the kernels replay as the reference rules, the heuristic port decides
as the Python heuristic, and the learner's vector env follows the reference game."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

import snail_envs.batched
from agents.heuristics.snail_sprint import SnailSprintHeuristic
from snail_envs.snail_sprint.rules import NUM_SNAILS
from tests.batched.differential import Reference, follow, run_differential

OPTION_SETS = [
    {},
    {"num_players": 3, "board": "B"},
    {"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False},
    {"num_players": 3, "expose_forced_moves": True, "reward": "points"},
    {"num_players": 2, "tin_order": "reversed", "board": "B", "max_turns": 20},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(options: dict) -> None:
    # 5 × 2,000 = 10,000 games; every step compares seat, mask, observation, state, rewards, ends
    run_differential("snail_sprint_v0", options, games=2_000, num_envs=200, seed=len(options))


def test_the_heuristic_port_chooses_as_the_python_heuristic() -> None:
    batch = snail_envs.batched.make("snail_sprint_v0", 256, num_players=4, board="B")
    batch.reset(seed=1)
    python = SnailSprintHeuristic()
    compared = 0
    for _ in range(150):
        ported = batch.heuristic_actions()
        for index in range(batch.num_envs):
            expected = python.act(batch.observation[index], batch.action_mask[index])
            assert ported[index] == expected, f"game {index}"
        compared += batch.num_envs
        batch.step(batch.random_actions())
    assert compared == 150 * 256


def heuristic_plays_the_others(reference: Reference, learner: int) -> None:
    """The Python heuristic plays every seat but `learner` until `learner` is to play."""
    game, observer, heuristic = reference.game, reference.observer, SnailSprintHeuristic()
    while game.outcome is None and not game.truncated and game.turn != learner:
        seat = game.turn
        mask = np.zeros(NUM_SNAILS, np.int8)
        mask[game.legal_actions(seat)] = 1
        game.apply({seat: heuristic.act(observer.observe(game, seat), mask)})


def test_the_learner_vec_env_follows_the_reference_game_against_heuristics() -> None:
    """Each learner's episodes replayed in the reference rules, the other seats played by the
    Python heuristic: the learner's observations, masks, rewards and ends are the kernel's."""
    venv = snail_envs.batched.make_vec_env(
        "snail_sprint_v0", 64, opponents="heuristic", num_players=3
    )
    venv.seed(5)
    observations = venv.reset()
    references = [follow(venv.engine, index) for index in range(venv.num_envs)]
    for index, reference in enumerate(references):
        heuristic_plays_the_others(reference, int(venv.learners[index]))
    rng = np.random.default_rng(0)
    episodes = 0
    while episodes < 300:
        masks = venv.action_masks()
        for index, reference in enumerate(references):
            game, learner = reference.game, int(venv.learners[index])
            assert game.turn == learner
            seen = reference.observer.observe(game, learner)
            assert observations[index].tobytes() == seen.tobytes()
            assert np.flatnonzero(masks[index]).tolist() == game.legal_actions(learner)
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in masks])
        learners = venv.learners.copy()
        observations, rewards, dones, infos = venv.step(actions)
        for index, reference in enumerate(references):
            game, learner = reference.game, int(learners[index])
            game.apply({learner: int(actions[index])})
            heuristic_plays_the_others(reference, learner)
            ended = game.outcome is not None or game.truncated
            assert dones[index] == ended
            if not ended:
                assert rewards[index] == 0
                continue
            episodes += 1
            assert rewards[index] == (1.0 if learner in game.outcome.winners else -1.0)
            final = reference.observer.observe(game, learner)
            assert infos[index]["terminal_observation"].tobytes() == final.tobytes()
            references[index] = follow(venv.engine, index)
            heuristic_plays_the_others(references[index], int(venv.learners[index]))
