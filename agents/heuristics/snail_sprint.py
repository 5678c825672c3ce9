"""A rule-of-thumb player for Snail Sprint!.

The strategy is `choose`, plain Python that numba also compiles: the batched engine's in-kernel
heuristic (`snail_envs.batched.snail_sprint`) runs this same function on the seat's observation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from snail_envs.core.layout import Vector
from snail_envs.core.options import parse_options
from snail_envs.snail_sprint.observer import OBSERVATION, SPACES
from snail_envs.snail_sprint.rules import NUM_SNAILS, ON_PODIUM, SnailSprintOptions

OWN_RACE_CARD = OBSERVATION.offset("own_race_card")
"""Where the observation's `own_race_card` starts: 1 for each snail on my card."""
SNAIL_SPACES = OBSERVATION.offset("snail_spaces")
"""Where `snail_spaces` starts: snail s on space p at `SNAIL_SPACES + SPACES·s + p`."""


def snail_space(observation: Vector[float], snail: int) -> int:
    """The space `snail` stands on; `ON_PODIUM` once it has finished (no space shows it)."""
    row = SNAIL_SPACES + SPACES * snail
    for space in range(SPACES):
        if observation[row + space] > 0:
            return space
    return ON_PODIUM


def choose(observation: Vector[float], action_mask: Vector[int]) -> int:
    """The snail to move (see `SnailSprintHeuristic`); the mask allows at least one."""
    best, best_mine, best_key = -1, False, 0
    for snail in range(NUM_SNAILS):
        if not action_mask[snail]:
            continue
        mine = observation[OWN_RACE_CARD + snail] > 0
        space = snail_space(observation, snail)
        key = space if mine else -space
        if best < 0 or mine > best_mine or (mine == best_mine and key > best_key):
            best, best_mine, best_key = snail, mine, key
    return best


class SnailSprintHeuristic:
    """Push your own race-card snails, hold the others back.

    Among the snails the roll lets move:
    - a snail on your race card moves before one that is not;
    - of two snails on your card, the one further ahead moves: the podium pays 3, 2, 1, so a
      leader of yours is worth most;
    - of two snails not on your card, the one further behind moves: it is the least likely to
      take a podium place from yours.
    Equal snails: the lower index. No rule option changes the strategy.
    """

    @classmethod
    def for_rules(cls, rule_options: Mapping[str, Any]) -> SnailSprintHeuristic:
        """The heuristic for a table of these rule options (checked; none changes its play)."""
        parse_options(SnailSprintOptions, rule_options, "snail_sprint_v0")
        return cls()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if not np.any(action_mask):
            raise ValueError("no legal action: the mask is all zero")
        # lists: the interpreter indexes them faster than arrays
        return choose(np.asarray(observation).tolist(), np.asarray(action_mask).tolist())

    __call__ = act
