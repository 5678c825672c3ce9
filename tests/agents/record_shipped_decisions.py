"""Record the shipped baselines' decisions over random play, for `test_checkpoints.py`:
`python -m tests.agents.record_shipped_decisions`, after a new baseline is shipped.

A baseline is shipped from its training run as its small playing form:
`snail-convert RUN/policy.pt agents/checkpoints/ENV.pt --env ENV --policy-only --overwrite`
(`ENV-PRESET.pt` for one trained under a preset; docs/results.md gives each run's command). The
fixture `data/shipped_decisions.npz` holds, for each shipped baseline (by its file's name), the
first 500 decisions of random games under the rule options it was trained with (every seat's,
`snail_envs.agents.convert.recorded_observations`) and the action the baseline chose at each, so
that a change of the loader or the network code that changes its play fails the test.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from snail_envs.agents import make_agent
from snail_envs.agents.convert import recorded_observations
from snail_envs.agents.ppo import CHECKPOINTS

FIXTURE = Path(__file__).parent / "data" / "shipped_decisions.npz"
DECISIONS = 500


def trained_options(baseline: str) -> dict:
    """The rule options the shipped baseline `baseline` (`ENV` or `ENV-PRESET`, the name of its
    file) was trained with."""
    return json.loads((CHECKPOINTS / f"{baseline}.json").read_text())["env_options"]


def record() -> dict[str, np.ndarray]:
    arrays = {}
    for path in sorted(CHECKPOINTS.glob("*.pt")):
        baseline, env_name = path.stem, path.stem.partition("-")[0]
        options = trained_options(baseline)
        observations, masks = recorded_observations(env_name, options, DECISIONS)
        agent = make_agent("ppo", env_name, options=options)
        arrays[f"{baseline}/observations"] = observations
        arrays[f"{baseline}/action_masks"] = masks
        arrays[f"{baseline}/actions"] = np.array(
            [agent.act(seen, mask) for seen, mask in zip(observations, masks, strict=True)]
        )
    return arrays


if __name__ == "__main__":
    np.savez_compressed(FIXTURE, **record())
    print(f"wrote {FIXTURE}")
