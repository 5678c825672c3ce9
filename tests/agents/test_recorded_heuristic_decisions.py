"""The Snap and Snailed It! heuristics choose as they did when their decisions were recorded
(`record_heuristic_decisions.py`), both as agents and compiled for the batched engines."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import snail_envs
from snail_envs.snailed_it.rules import NUM_ACTIONS as SNAILED_IT_ACTIONS
from snail_envs.snap.rules import NUM_ACTIONS as SNAP_ACTIONS
from tests.agents.record_heuristic_decisions import FIXTURE, heuristic_for
from tests.names import SNAP

RECORDED = np.load(FIXTURE)
VARIANTS = [
    (
        snail_envs.RETIRED_NAMES.get(env_name, env_name),
        {name: tuple(v) if isinstance(v, list) else v for name, v in options.items()},
    )
    for env_name, options in json.loads(str(RECORDED["variants"]))
]
"""The recorded variants, each under its game's current version (a version bump changes no
heuristic decision: the observations of a retired version are read as the current one's)."""


NUM_ACTIONS = {SNAP: SNAP_ACTIONS, "snailed_it_v0": SNAILED_IT_ACTIONS}


def decisions(index: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The recorded (observation, action mask, action) of variant `index`."""
    observations = RECORDED[f"{index}_observations"]
    masks = np.unpackbits(RECORDED[f"{index}_masks"], axis=1).astype(np.int8)
    masks = masks[:, : NUM_ACTIONS[VARIANTS[index][0]]]
    actions = RECORDED[f"{index}_actions"].tolist()
    return list(zip(observations, masks, actions, strict=True))


IDS = [f"{env_name}-{options}" for env_name, options in VARIANTS]


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=IDS)
def test_the_agent_chooses_as_recorded(index: int) -> None:
    env_name, options = VARIANTS[index]
    heuristic = heuristic_for(env_name, options)
    recorded = decisions(index)
    chosen = [heuristic.act(observation, mask) for observation, mask, _ in recorded]
    assert chosen == [action for *_, action in recorded]


def compiled_choice(env_name: str, heuristic: Any) -> Callable[[np.ndarray, np.ndarray], int]:
    """The strategy as the batched engine compiles it, with the agent's parameters (called from
    Python: the engine's own compile of it is for its kernels only)."""
    pytest.importorskip("numba")
    from snail_envs.batched.compiling import entry_point

    if env_name == SNAP:
        from snail_envs.batched import snap

        snap_choice = entry_point(snap.choose.py_func)
        return lambda observation, mask: snap_choice(
            observation,
            mask,
            heuristic.setup,
            heuristic.errors,
            heuristic.belief_threshold,
            heuristic.delay,
            heuristic.error_rate,
            1.0,
        )
    from snail_envs.batched import snailed_it

    snailed_it_choice = entry_point(snailed_it.choose.py_func)
    lookahead = heuristic.lookahead
    return lambda observation, mask: snailed_it_choice(
        observation,
        mask,
        heuristic.card_points,
        heuristic.card_weight,
        lookahead.numerator,
        lookahead.denominator,
    )


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=IDS)
def test_the_compiled_strategy_chooses_as_recorded(index: int) -> None:
    env_name, options = VARIANTS[index]
    choice = compiled_choice(env_name, heuristic_for(env_name, options))
    recorded = decisions(index)
    chosen = [choice(observation, mask) for observation, mask, _ in recorded]
    assert chosen == [action for *_, action in recorded]
