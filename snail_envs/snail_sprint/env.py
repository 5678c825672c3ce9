"""Snail Sprint! bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snail_sprint.observer import SnailSprintObserver
from snail_envs.snail_sprint.render import render_ansi, render_rgb
from snail_envs.snail_sprint.rules import FACTS, SnailSprint, SnailSprintOptions

SPEC = GameSpec(
    info=FACTS,
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
