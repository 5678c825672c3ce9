"""Compact views (`compact_views=True`): the same games as float views, each mark as 0 or 1 and
each other entry as the integer its piece divides by its scale, widened exactly to the float
views by `float_observations()`; the masks packed 8 actions a byte (`full_action_masks()`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import snail_envs.batched
from tests.marks import slow

STEPS = 250
CASES = [
    ("snap_v2", {}),
    slow("snap_v2", {"num_players": 3, "session": "best_of_3", "slapjack": True}),
    ("snap_v2", {"num_players": 4, "single_pile": True, "slapjack": True, "max_flips": 300}),
    ("snap_v2", {"num_players": 3, "ruleset": "snap_pot", "double": True}),
    ("snailed_it_v0", {}),
    ("snailed_it_v0", {"num_players": 3, "target": 12, "max_rounds": 4}),
    ("snail_sprint_v0", {}),
    slow("snail_sprint_v0", {"num_players": 4}),
    ("pedzace_slimaki_v0", {"num_players": 3, "previews": True, "choice_counts": True}),
    slow("pedzace_slimaki_v0", {"rounds": 3, "snail_face_backwards": True}),
]
Scales = dict[str, Callable[[Any], int]]
SCALES: dict[str, Scales] = {
    "snap_v2": {
        "pile_sizes": lambda options: options.deck_size,
        "stack_sizes": lambda options: options.deck_size,
        "last_gain": lambda options: options.deck_size,
    },
    "snailed_it_v0": {
        "hand_sizes": lambda options: 72,
        "penalty_pile_size": lambda options: 72,
        "tossed_pile_size": lambda options: 72,
        "rounds_played": lambda options: options.max_rounds,
    },
    "snail_sprint_v0": {
        "tower_levels": lambda options: 5,
        "dice": lambda options: 2,
    },
    "pedzace_slimaki_v0": {
        "points": lambda options: 10,
        "choice_counts": lambda options: 10,
    },
}
"""Pieces whose descriptions divide an integer by a scale, and that scale under the options."""


def assert_entries_are_the_integers_of_the_float_views(
    compact: Any, codes: np.ndarray, views: np.ndarray
) -> None:
    """0 exactly where the float view is 0; each scaled piece's entries its integers."""
    assert ((codes == 0) == (views == 0)).all()
    layout = compact.observation_layout
    shown = {piece.name for piece in layout.pieces}
    for piece, scale in SCALES[compact.env_name].items():
        if piece in shown:
            where = layout[piece]
            widened = (codes[..., where] / scale(compact.options)).astype(np.float32)
            assert (widened == views[..., where]).all(), piece


@pytest.mark.parametrize(("env_name", "options"), CASES, ids=str)
def test_compact_views_play_the_float_views_games_and_widen_to_them(
    env_name: str, options: dict[str, Any]
) -> None:
    make = snail_envs.batched.make
    floats = make(env_name, 48, final_observations=True, **options)
    compact = make(env_name, 48, final_observations=True, compact_views=True, **options)
    assert compact.observations.dtype == compact.views_dtype == compact.compact_dtype
    assert compact.final_observations.dtype == compact.compact_dtype
    packed = (compact.num_actions + 7) // 8
    assert compact.action_masks.shape[2] == packed and compact.action_masks.dtype == np.uint8
    floats.reset(seed=5)
    compact.reset(seed=5)
    whole = np.zeros_like(compact.observations)
    ended_games = 0
    for _ in range(STEPS):
        assert (compact.seats == floats.seats).all()
        assert (compact.full_action_masks() == floats.action_masks).all()
        acting = floats.seats >= 0
        assert (compact.float_observations()[acting] == floats.observations[acting]).all()
        whole[:] = 0
        compact.kernels.observe_slots(compact.games, compact.rules, compact.seats, whole)
        assert (whole[acting] == compact.observations[acting]).all(), "brought up to date"
        assert_entries_are_the_integers_of_the_float_views(
            compact, compact.observations[acting], floats.observations[acting]
        )
        actions = floats.random_actions()
        floats.step(actions)
        compact.step(actions)
        assert (compact.rewards == floats.rewards).all()
        assert (compact.terminated == floats.terminated).all()
        assert (compact.truncated == floats.truncated).all()
        ended = floats.terminated | floats.truncated
        ended_games += int(ended.sum())
        assert_entries_are_the_integers_of_the_float_views(
            compact, compact.final_observations[ended], floats.final_observations[ended]
        )
    assert ended_games, "no game ended: the final views went unchecked"


def test_float_observations_leave_the_empty_slots_zero() -> None:
    batch = snail_envs.batched.make("snailed_it_v0", 16, compact_views=True)
    batch.reset(seed=0)
    views = batch.float_observations()
    assert views.dtype == np.float32 and views.shape == (16, 4, batch.observation_layout.size)
    assert not views[batch.seats < 0].any()
    assert views[batch.seats >= 0].any(axis=1).all()


@pytest.mark.parametrize(
    ("env_name", "options", "message"),
    [
        ("snap_v2", {"glimpse_error": (0.5,), "recall": "perfect"}, "needs recall='none'"),
        ("snap_v2", {"max_flips": 40_000}, "needs max_flips of at most 32767; got 40000"),
        ("snailed_it_v0", {"target": 300}, "needs target of at most 255; got 300"),
        ("pedzace_slimaki_v0", {"max_turns": None}, "needs a max_turns"),
    ],
)
def test_options_whose_entries_compact_views_cannot_hold_are_named(
    env_name: str, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        snail_envs.batched.make(env_name, 4, compact_views=True, **options)
    snail_envs.batched.make(env_name, 4, **options)  # float views hold them


def test_compact_views_is_a_bool() -> None:
    with pytest.raises(ValueError, match="compact_views must be True or False"):
        snail_envs.batched.make("snail_sprint_v0", 4, compact_views="yes")


def test_an_illegal_action_under_packed_masks_raises_naming_the_legal_ones() -> None:
    batch = snail_envs.batched.make("snailed_it_v0", 4, compact_views=True)
    batch.reset(seed=1)
    game, slot = np.argwhere(batch.seats >= 0)[0]
    legal = np.flatnonzero(batch.full_action_masks()[game, slot])
    illegal = next(action for action in range(batch.num_actions) if action not in legal)
    actions = batch.random_actions()
    actions[game, slot] = illegal
    with pytest.raises(ValueError, match=f"action {illegal} is illegal now; legal actions: "):
        batch.step(actions)
    actions[game, slot] = batch.num_actions
    with pytest.raises(ValueError, match=f"action {batch.num_actions} is illegal now"):
        batch.step(actions)
