"""Batched Snail Sprint!: the kernels replay as the reference rules, the in-kernel heuristic
decides as the heuristic agent, and the learner's vector env follows the reference game."""

from __future__ import annotations

import numba  # noqa: F401  (the batched engines need it; a missing numba fails here)
import pytest

import snail_envs.batched
from snail_envs.agents.heuristics.snail_sprint import SnailSprintHeuristic
from tests.batched.differential import run_differential, run_learner_replay
from tests.marks import slow
from tests.names import SNAIL_SPRINT

OPTION_SETS = [
    {},
    slow({"num_players": 3, "board": "B"}),
    slow({"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False}),
    slow({"num_players": 3, "expose_forced_moves": True, "reward": "points"}),
    slow({"num_players": 2, "tin_order": "reversed", "board": "B", "max_turns": 20}),
    slow({"num_players": 4, "board": "B", "reward": "margin"}),
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_random_games_replay_exactly_through_the_reference_rules(options: dict) -> None:
    # 6 × 2,000 = 12,000 games; every step compares seat, mask, observation, state, rewards, ends
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


@pytest.mark.parametrize("options", [{}, {"board": "B", "tin_order": "shuffled"}], ids=str)
def test_the_note_of_the_spaces_showing_each_symbol_follows_the_track(options: dict) -> None:
    # a move changes the note's bits of the two spaces it touches, and no other: after every step
    # of random play the note equals the one written from the track as it is
    batch = snail_envs.batched.make(SNAIL_SPRINT, 300, num_players=4, **options)
    batch.reset(seed=7)
    holds_one = batch.rules["holds_one"][0]
    checked = 0
    for _ in range(120):
        batch.step(batch.random_actions())
        for g in batch.games[batch.games["showing_noted"] == 1]:
            expected = [0] * len(g["showing"])
            for space in range(1, len(g["top"])):
                top = int(g["top"][space])
                shown = int(g["printed"][space]) if top < 0 else 0 if holds_one[space] else 1 << top
                for symbol in range(len(expected)):
                    expected[symbol] |= (shown >> symbol & 1) << space
            assert [int(bits) for bits in g["showing"]] == expected
            checked += 1
    assert checked > 120 * 250


@pytest.mark.parametrize(
    ("opponents", "reward"),
    [
        ("heuristic", "winlose"),
        ({"heuristic": 1, "policy": 1}, "winlose"),
        ("policy", "winlose"),
        ({"heuristic": 1, "policy": 1}, "margin"),
    ],
    ids=str,
)
def test_the_learner_vec_env_follows_the_reference_game_against_heuristics(
    opponents, reward: str
) -> None:
    run_learner_replay(
        "snail_sprint_v0",
        {"num_players": 3, "reward": reward},
        lambda options: SnailSprintHeuristic(),
        episodes=300,
        opponents=opponents,
    )


@pytest.mark.parametrize(
    ("option", "default"),
    [({"track_length": 12}, 36), ({"snails": 3, "race_cards": ("Y", "P", "K")}, 6)],
)
def test_a_shorter_track_or_fewer_snails_are_refused_naming_the_option(
    option: dict, default: int
) -> None:
    name = next(iter(option))
    with pytest.raises(ValueError, match=f"plays only {name}={default}, not "):
        snail_envs.batched.make(SNAIL_SPRINT, num_envs=2, **option)
