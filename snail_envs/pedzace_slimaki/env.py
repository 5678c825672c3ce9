"""Pędzące Ślimaki bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.pedzace_slimaki.observer import PedzaceSlimakiObserver
from snail_envs.pedzace_slimaki.render import render_ansi, render_rgb
from snail_envs.pedzace_slimaki.rules import FACTS, PedzaceSlimaki, PedzaceSlimakiOptions

SPEC = GameSpec(
    info=FACTS,
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
