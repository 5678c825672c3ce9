"""The Snail Sprint! and Pędzące Ślimaki heuristics decide as they did when recorded
(`record_race_heuristic_decisions.py`): as agents, and compiled, as the batched engines run them."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import numpy as np
import pytest

from snail_envs.agents import HEURISTICS
from tests.agents.record_race_heuristic_decisions import FIXTURE

RECORDED = np.load(FIXTURE)
VARIANTS: list[tuple[str, dict[str, Any], bool]] = json.loads(str(RECORDED["variants"]))
IDS = [f"{name}-{options}-{'told' if told else 'defaults'}" for name, options, told in VARIANTS]


def decisions(index: int) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The recorded observations, action masks and choices of variant `index`."""
    observations = RECORDED[f"{index}_observations"]
    actions = RECORDED[f"{index}_actions"].tolist()
    masks = np.unpackbits(RECORDED[f"{index}_masks"], axis=1).astype(bool)
    return observations, masks[:, : 6 if VARIANTS[index][0] == "snail_sprint_v0" else 5], actions


def heuristic(index: int) -> Any:
    name, options, told = VARIANTS[index]
    return HEURISTICS[name].for_rules(options) if told else HEURISTICS[name]()


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=IDS)
def test_the_agent_decides_as_recorded(index: int) -> None:
    observations, masks, actions = decisions(index)
    agent = heuristic(index)
    assert [agent.act(o, m) for o, m in zip(observations, masks, strict=True)] == actions


@cache
def compiled_choices() -> Any:
    """The batched engines' compiled strategies, over rows of observations."""
    numba = pytest.importorskip("numba")
    from snail_envs.batched import pedzace_slimaki, snail_sprint

    @numba.njit
    def sprint(observations, masks, parameters, out):
        for row in range(observations.shape[0]):
            out[row] = snail_sprint.choose(observations[row], masks[row])

    @numba.njit
    def pedzace(observations, masks, parameters, out):
        for row in range(observations.shape[0]):
            out[row] = pedzace_slimaki.choose(observations[row], masks[row], parameters)

    return {"snail_sprint_v0": sprint, "pedzace_slimaki_v0": pedzace}


@pytest.mark.parametrize("index", range(len(VARIANTS)), ids=IDS)
def test_the_compiled_strategy_decides_as_recorded(index: int) -> None:
    """With the rule parameters the engine compiles from the options (or, for a bot left to its
    defaults, those the agent reads with)."""
    import snail_envs.batched

    name, options, told = VARIANTS[index]
    observations, masks, actions = decisions(index)
    parameters = np.zeros(0, np.int64)
    if name == "pedzace_slimaki_v0":
        parameters = np.array(heuristic(index).parameters, np.int64)
        if told:
            engine = snail_envs.batched.make(name, 1, **options)
            assert engine.rules["heuristic"][0].tolist() == parameters.tolist()
    out = np.zeros(len(actions), np.int64)
    compiled_choices()[name](observations, masks, parameters, out)
    assert out.tolist() == actions
