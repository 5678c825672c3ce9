"""Snailed It! bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snailed_it.observer import SnailedItObserver
from snail_envs.snailed_it.render import render_ansi, render_rgb
from snail_envs.snailed_it.rules import FACTS, SnailedIt, SnailedItOptions

SPEC = GameSpec(
    info=FACTS,
    options_class=SnailedItOptions,
    new_game=SnailedIt,
    new_observer=SnailedItObserver,
    render_ansi=render_ansi,
    render_rgb=render_rgb,
)


class raw_env(SnailAECEnv):
    spec = SPEC


class parallel_raw_env(SnailParallelEnv):
    spec = SPEC
