"""A rule-of-thumb player for Snail Sprint!."""

from __future__ import annotations

import numpy as np

from snail_envs.snail_sprint.observer import OBSERVATION
from snail_envs.snail_sprint.rules import NUM_SNAILS, ON_PODIUM


class SnailSprintHeuristic:
    """Push your own race-card snails, hold the others back.

    Among the snails the roll lets move:
    - a snail on your race card moves before one that is not;
    - of two snails on your card, the one further ahead moves: the podium pays 3, 2, 1, so a
      leader of yours is worth most;
    - of two snails not on your card, the one further behind moves: it is the least likely to
      take a podium place from yours.
    """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        pieces = OBSERVATION.as_dict(observation)
        mine = pieces["own_race_card"] > 0
        board = pieces["snail_spaces"].reshape(NUM_SNAILS, -1)
        space = [int(np.argmax(row)) if row.any() else ON_PODIUM for row in board]
        legal = np.flatnonzero(action_mask)
        return int(max(legal, key=lambda s: (mine[s], space[s] if mine[s] else -space[s])))

    __call__ = act
