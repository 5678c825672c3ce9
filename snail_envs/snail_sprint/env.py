"""Snail Sprint! bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameInfo, GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snail_sprint.observer import SnailSprintObserver
from snail_envs.snail_sprint.render import render_ansi, render_rgb
from snail_envs.snail_sprint.rules import NUM_SNAILS, SnailSprint, SnailSprintOptions

SPEC = GameSpec(
    info=GameInfo(
        env_name="snail_sprint_v0",
        title="Snail Sprint!",
        min_players=2,
        max_players=4,
        num_actions=NUM_SNAILS,
        max_game_length=3 * 37 + 3 * 36,
        points_range=(0.0, 6.0),
        hidden_information=True,
        simultaneous=False,
    ),
    options_class=SnailSprintOptions,
    new_game=SnailSprint,
    new_observer=SnailSprintObserver,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
)


class raw_env(SnailAECEnv):
    spec = SPEC


class parallel_raw_env(SnailParallelEnv):
    spec = SPEC
