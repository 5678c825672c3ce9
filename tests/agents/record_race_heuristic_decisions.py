"""Record the Snail Sprint! and Pędzące Ślimaki heuristics' decisions over random play, for
`test_recorded_race_heuristic_decisions.py`:

    python -m tests.agents.record_race_heuristic_decisions

The fixture `data/race_heuristic_decisions.npz` was recorded with the heuristics of commit
ba20f6f (before each strategy was written once for the agents and the kernels). Play: every seat
acts as the heuristic with chance 1/2, else uniformly at random among its legal actions, so that
the tables are varied and still reach the ends of races; recorded: every decision with two legal
actions or more. A variant is played by the heuristic told the rule options (`told`), or built
with its defaults only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents.heuristics.pedzace_slimaki import PedzaceSlimakiHeuristic
from snail_envs.agents.heuristics.snail_sprint import SnailSprintHeuristic
from snail_envs.core.testing import deciding_agents
from snail_envs.pedzace_slimaki.rules import COLOURS, PedzaceSlimakiOptions

FIXTURE = Path(__file__).parent / "data" / "race_heuristic_decisions.npz"
DECISIONS_PER_VARIANT = 500

EVERY_CARD = [[a, b] for i, a in enumerate(COLOURS) for b in COLOURS[i + 1 :]]
"""All ten pairs of snails: 9·8·7·6 ways for four opponents to hold the cards I cannot see."""

VARIANTS: list[tuple[str, dict[str, Any], bool]] = [
    ("snail_sprint_v0", {}, True),
    ("snail_sprint_v0", {"num_players": 3, "board": "B"}, True),
    (
        "snail_sprint_v0",
        {"num_players": 4, "tin_order": "shuffled", "tin_top_stacking": False},
        True,
    ),
    ("snail_sprint_v0", {"tin_order": "reversed", "expose_forced_moves": True}, True),
    ("pedzace_slimaki_v0", {}, True),
    ("pedzace_slimaki_v0", {"num_players": 3, "rounds": 3}, True),
    ("pedzace_slimaki_v0", {"num_players": 4, "rounds": 3}, True),
    ("pedzace_slimaki_v0", {"num_players": 5}, True),
    ("pedzace_slimaki_v0", {"num_players": 3, "snail_face_backwards": True}, True),
    ("pedzace_slimaki_v0", {"num_players": 3, "snail_face_backwards": True}, False),
    (
        "pedzace_slimaki_v0",
        {"board_length": 8, "mushrooms": [2, 5], "place_points": [3, 2, 1]},
        True,
    ),
    ("pedzace_slimaki_v0", {"board_length": 60, "mushrooms": [], "rounds": 3}, True),
    (
        "pedzace_slimaki_v0",
        {"num_players": 3, "cards": [["blue", "red"], ["green", "purple"], ["yellow", "red"]]},
        True,
    ),
    (
        "pedzace_slimaki_v0",
        {"num_players": 3, "cards": [["blue", "red"], ["green", "purple"], ["yellow", "red"]]},
        False,
    ),
    ("pedzace_slimaki_v0", {"num_players": 4, "cards": EVERY_CARD, "rounds": 3}, True),
    ("pedzace_slimaki_v0", {"num_players": 5, "cards": EVERY_CARD}, True),
]


def recorded_heuristic(env_name: str, options: dict[str, Any], told: bool) -> Any:
    """The heuristic of commit ba20f6f, told the rule options it reads or with its defaults."""
    if env_name == "snail_sprint_v0":
        return SnailSprintHeuristic()
    if not told:
        return PedzaceSlimakiHeuristic()
    rules = PedzaceSlimakiOptions(**options)
    return PedzaceSlimakiHeuristic(
        cards=rules.cards,
        place_points=rules.place_points,
        snail_face_backwards=rules.snail_face_backwards,
    )


def record(env_name: str, options: dict[str, Any], told: bool, seed: int) -> dict[str, np.ndarray]:
    """(observations, masks, actions) of the heuristic's decisions in games of random play."""
    env = snail_envs.make(env_name, **options)
    heuristic = recorded_heuristic(env_name, options, told)
    rng = np.random.default_rng(seed)
    observations, masks, actions = [], [], []
    episode = 0
    while len(actions) < DECISIONS_PER_VARIANT:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in deciding_agents(env):
            seen = env.observe(agent)
            observation, mask = seen["observation"], seen["action_mask"]
            action = heuristic.act(observation, mask)
            if np.count_nonzero(mask) > 1 and len(actions) < DECISIONS_PER_VARIANT:
                observations.append(observation)
                masks.append(mask)
                actions.append(action)
            if rng.random() < 0.5:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
    return {
        "observations": np.array(observations, np.float32),
        "masks": np.packbits(np.array(masks, np.uint8), axis=1),
        "actions": np.array(actions, np.int8),
    }


def main() -> None:
    arrays: dict[str, np.ndarray] = {}
    for index, (env_name, options, told) in enumerate(VARIANTS):
        for name, values in record(env_name, options, told, seed=1000 * index).items():
            arrays[f"{index}_{name}"] = values
    arrays["variants"] = np.array(json.dumps(VARIANTS))
    np.savez_compressed(FIXTURE, **arrays)


if __name__ == "__main__":
    main()
