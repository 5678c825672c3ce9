"""Record the Snap and Snailed It! heuristics' decisions over random play, for
`test_recorded_heuristic_decisions.py`: `python -m tests.agents.record_heuristic_decisions`.

The fixture `data/heuristic_decisions.npz` was recorded with the heuristics of commit ba20f6f
(before the strategies were written once for the agents and the kernels). Play: every seat acts
as the heuristic with chance 1/2, else uniformly at random among its legal actions, so that the
tables are varied but reach the late ticks of windows; recorded: every decision of a seat with a
choice to make (Snap: a seat that may call; Snailed It!: a seat with two legal actions or more).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents.heuristics.snailed_it import SnailedItHeuristic
from snail_envs.agents.heuristics.snap import SnapHeuristic
from snail_envs.snailed_it.rules import DEFAULT_CARD_POINTS
from tests.names import SNAP

FIXTURE = Path(__file__).parent / "data" / "heuristic_decisions.npz"
DECISIONS_PER_VARIANT = 400

VARIANTS: list[tuple[str, dict[str, Any]]] = [
    (SNAP, {}),
    (SNAP, {"num_players": 4, "ruleset": "snap_pot"}),
    (SNAP, {"num_players": 4, "ruleset": "snap_pot", "slapjack": True}),
    (SNAP, {"num_players": 3, "double": True, "slapjack": True}),
    (SNAP, {"num_players": 2, "speed": True, "ruleset": "snap_pot", "double": True}),
    (SNAP, {"num_players": 3, "speed": True, "slapjack": True}),
    (SNAP, {"num_players": 3, "single_pile": True, "slapjack": True}),
    (SNAP, {"num_players": 3, "ruleset": "snap_pot", "match_key": "picture"}),
    (SNAP, {"num_players": 3, "reaction_ticks": 5, "reaction_delay": (0, 2, 4)}),
    (SNAP, {"num_players": 3, "flipper_may_call": False, "session": "best_of_3"}),
    (SNAP, {"num_players": 8, "ruleset": "snap_pot"}),
    (
        SNAP,
        {"num_players": 4, "ruleset": "snap_pot", "slapjack": True, "glimpse_error": (0.6, 0.3)},
    ),
    (
        SNAP,
        {
            "num_players": 2,
            "match_key": "picture",
            "pictures": 5,
            "glimpse_error": (0.6, 0.3, 0.0),
        },
    ),
    (SNAP, {"num_players": 3, "single_pile": True, "glimpse_error": (0.9, 0.5)}),
    ("snailed_it_v0", {}),
    ("snailed_it_v0", {"num_players": 2, "hand_size": 5}),
    ("snailed_it_v0", {"num_players": 4}),
    ("snailed_it_v0", {"num_players": 6, "hand_size": 5, "card_points": list(range(1, 19))}),
]


def heuristic_for(env_name: str, options: dict[str, Any]) -> Any:
    """The game's heuristic with its defaults, for these rule options."""
    if env_name == SNAP:
        return SnapHeuristic(**options)
    return SnailedItHeuristic(card_points=options.get("card_points", DEFAULT_CARD_POINTS))


def record(env_name: str, options: dict[str, Any], seed: int) -> dict[str, np.ndarray]:
    """(observations, masks, actions) of the heuristic's decisions in games of random play."""
    env = snail_envs.make_parallel(env_name, **options)
    heuristic = heuristic_for(env_name, options)
    rng = np.random.default_rng(seed)
    observations, masks, actions = [], [], []
    episode = 0
    while len(actions) < DECISIONS_PER_VARIANT:
        views, _ = env.reset(seed=seed + episode)
        episode += 1
        while env.agents and len(actions) < DECISIONS_PER_VARIANT:
            chosen = {}
            for agent in env.agents:
                observation = views[agent]["observation"]
                mask = views[agent]["action_mask"]
                if not mask.any():  # not acting in this tick
                    continue
                action = heuristic.act(observation, mask)
                if np.count_nonzero(mask) > 1 and rng.random() < 0.5:
                    observations.append(observation)
                    masks.append(mask)
                    actions.append(action)
                if rng.random() < 0.5:
                    action = int(rng.choice(np.flatnonzero(mask)))
                chosen[agent] = action
            views, *_ = env.step(chosen)
    return {
        "observations": np.array(observations, np.float32),
        "masks": np.packbits(np.array(masks, np.uint8), axis=1),
        "actions": np.array(actions, np.int16),
    }


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    for index, (env_name, options) in enumerate(VARIANTS):
        for name, values in record(env_name, options, seed=1000 * index).items():
            arrays[f"{index}_{name}"] = values
    arrays["variants"] = np.array(json.dumps(VARIANTS))
    np.savez_compressed(FIXTURE, **arrays)


if __name__ == "__main__":
    main()
