"""The race games' redraws mirror the reference's draw for draw: a world redrawn in the kernel,
its chance outcomes handed to the reference's `redraw_hidden`, is the world the reference draws.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import snail_envs.batched
from tests.batched.test_search_worlds import acting_seat, game_in_progress

SITUATIONS = [
    ("snail_sprint_v0", {}),
    ("snail_sprint_v0", {"num_players": 4, "race_cards": ["YPK", "GOB", "YPK", "KPY", "GOB"]}),
    ("pedzace_slimaki_v0", {}),
    ("pedzace_slimaki_v0", {"num_players": 5, "rounds": 3}),
]
"""Default rules, and the most seats (Snail Sprint's with copies of a card among the cards)."""


@pytest.mark.parametrize(("env_name", "options"), SITUATIONS)
def test_the_same_chance_redraws_the_same_world_as_the_reference(env_name, options) -> None:
    rng = random.Random(7)
    for seed in range(6):
        game, observer = game_in_progress(env_name, options, seed, ticks=seed * 8)
        seat = acting_seat(game, rng)
        batch = snail_envs.batched.make(env_name, 8, **options)
        batch.load(0, game, seed=seed)
        batch.redraw(seat, seed=seed)
        for world in range(batch.num_envs):
            twin = copy.deepcopy(game)
            twin.redraw_hidden(seat, batch.replay_chance(world))
            observer.reset(twin)
            np.testing.assert_array_equal(batch.state()[world], observer.state(twin))
