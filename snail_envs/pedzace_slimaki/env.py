"""Pędzące Ślimaki bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameInfo, GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.pedzace_slimaki.observer import PedzaceSlimakiObserver
from snail_envs.pedzace_slimaki.render import render_ansi, render_rgb
from snail_envs.pedzace_slimaki.rules import (
    DEFAULT_MAX_TURNS,
    MAX_PLAYERS,
    NUM_SNAILS,
    PedzaceSlimaki,
    PedzaceSlimakiOptions,
)

SPEC = GameSpec(
    info=GameInfo(
        env_name="pedzace_slimaki_v0",
        title="Pędzące Ślimaki",
        min_players=2,
        max_players=MAX_PLAYERS,
        num_actions=NUM_SNAILS,
        max_game_length=DEFAULT_MAX_TURNS,
        points_range=(0.0, PedzaceSlimakiOptions().max_points()),
        hidden_information=True,
        simultaneous=False,
    ),
    options_class=PedzaceSlimakiOptions,
    new_game=PedzaceSlimaki,
    new_observer=PedzaceSlimakiObserver,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
)


class raw_env(SnailAECEnv):
    spec = SPEC


class parallel_raw_env(SnailParallelEnv):
    spec = SPEC
