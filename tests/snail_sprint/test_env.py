"""Snail Sprint! through the PettingZoo APIs: conformance, harness checks, bad input, goldens."""

from __future__ import annotations

from pathlib import Path

import pytest

from snail_envs import snail_sprint_v0
from snail_envs.core import testing

GOLDEN = Path(__file__).parent / "golden"
OPTION_SETS = [
    {},
    {"num_players": 3, "board": "B"},
    {"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False},
    {"num_players": 3, "expose_forced_moves": True, "reward": "points"},
    {"num_players": 2, "tin_order": "reversed", "max_turns": 20},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_pettingzoo_conformance(options: dict) -> None:
    testing.check_pettingzoo_conformance(snail_sprint_v0, **options)


def test_docstring_is_the_spec_table() -> None:
    testing.check_docstring(snail_sprint_v0)


@pytest.mark.parametrize(
    ("options", "seed"),
    [({"num_players": 3}, 7), ({"num_players": 4, "board": "B", "tin_order": "shuffled"}, 8)],
)
def test_golden_playthrough(options: dict, seed: int, golden) -> None:
    name = "_".join(f"{k}-{v}" for k, v in sorted(options.items()))
    golden(GOLDEN / f"{name}_seed{seed}.txt", testing.playthrough("snail_sprint_v0", options, seed))
