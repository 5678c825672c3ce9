"""Snailed It! bound to the generic PettingZoo adapters."""

from __future__ import annotations

from snail_envs.core.aec import SnailAECEnv
from snail_envs.core.game import GameInfo, GameSpec
from snail_envs.core.parallel import SnailParallelEnv
from snail_envs.snailed_it.observer import SnailedItObserver
from snail_envs.snailed_it.render import render_ansi, render_rgb
from snail_envs.snailed_it.rules import (
    DEFAULT_CARD_POINTS,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_VALUES,
    SnailedIt,
    SnailedItOptions,
)

MAX_TURNS_PER_ROUND = NUM_CARDS
"""Every turn leaves one more number card on the rows until the round ends."""
MAX_TOSS_TICKS = NUM_VALUES - 2 + 1
"""A gap fits at most 16 cards, each tossed at most once per window, then one tick of passes."""
MAX_ROUND_POINTS = sum(DEFAULT_CARD_POINTS) * 4

SPEC = GameSpec(
    info=GameInfo(
        env_name="snailed_it_v0",
        title="Snailed It!",
        min_players=2,
        max_players=6,
        num_actions=NUM_ACTIONS,
        max_game_length=SnailedItOptions.max_rounds
        * MAX_TURNS_PER_ROUND
        * (1 + MAX_TOSS_TICKS * 5),
        points_range=(-float(SnailedItOptions.target - 1 + MAX_ROUND_POINTS), 0.0),
        hidden_information=True,
        simultaneous=True,
    ),
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
