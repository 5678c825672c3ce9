"""Snap bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snap.observer import SnapObserver
from snail_envs.snap.render import render_ansi, render_rgb
from snail_envs.snap.rules import FACTS, Snap, SnapOptions

SPEC = GameSpec(
    info=FACTS,
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
