"""A tournament with your own agent: write the `Agent` protocol, then play it against the library's.

    pip install -e ".[train]"      # snail-eval's ratings (openskill); no torch is loaded here
    python docs/tutorials/tournament.py --games 200

An agent is any object with `act(observation, action_mask) -> int`: it sees only its own seat's
observation vector and mask (`snail_envs.agents.base.Agent`). The index table of the
observation is on the game's page.
"""

import argparse

import numpy as np

from snail_envs.agents.base import Agent
from snail_envs.training.evaluate import score_against

ENV_NAME = "pedzace_slimaki_v0"


class LastLegalAction:
    """Always the highest-numbered legal action: a simple rule, not a good one."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask)[-1])


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    mine = LastLegalAction()
    assert isinstance(mine, Agent)  # the protocol is runtime-checkable
    for opponent in ("random", "heuristic"):
        rate, low, high = score_against(ENV_NAME, mine, opponent, args.games, seed=0)
        print(
            f"mine vs {opponent}: {100 * rate:.1f}% ({100 * low:.1f}-{100 * high:.1f}) "
            f"over {args.games} games"
        )
