"""Snap bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameInfo, GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.render import render_ansi, render_rgb
from snail_envs.snap.rules import DEFAULT_MAX_TICKS, MAX_PLAYERS, NUM_ACTIONS, Snap, SnapOptions

SPEC = GameSpec(
    info=GameInfo(
        env_name="snap_v1",
        title="Snap",
        min_players=2,
        max_players=MAX_PLAYERS,
        num_actions=NUM_ACTIONS,
        max_game_length=DEFAULT_MAX_TICKS * MAX_PLAYERS,
        points_range=(-1.0, 1.0),
        hidden_information=True,
        simultaneous=True,
        points_names=("cards",),
    ),
    options_class=SnapOptions,
    new_game=Snap,
    new_observer=SnapObserver,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
)


class raw_env(SnailAECEnv):
    spec = SPEC


class parallel_raw_env(SnailParallelEnv):
    spec = SPEC
