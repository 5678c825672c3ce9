"""The stages of `snail-train`, by name: a run goes through those its config names
(`TrainConfig.stages`), one after the other (`snail_envs.training.run`).

    imitation          clone a teacher into the network (`stages.imitation`)
    expert_iteration   distil the compiled search into the network, round after round
                       (`stages.expert_iteration`)
    advantage          train the network towards the rollout search's measured preferences,
                       weighted by their advantage beyond noise, round after round
                       (`stages.advantage`)
    ppo                MaskablePPO against the configured opponents (`stages.ppo`)
    league             a PSRO-style league of MaskablePPO members (`stages.league`)

Each stage is a class that meets the `Stage` protocol (`stages.base`): its name, what its
points of the learning curve count, how it describes itself, runs, saves and resumes, what it
adds to the run's summary and what a stop in it leaves.

To add a stage (`stages/league.py` is the latest example; a stage that trains round after
round, resumed at its next round, builds on `stages.rounds`, as `stages.advantage` does):

1. write `stages/league.py`, a class that meets `Stage` (the existing stages are the examples:
   `run` trains `RunContext.model.policy`, adds points to `RunContext.curve` and times itself
   with `timing`; `resume` finds what it saved in the run folder; `stopped` says how to go on);
2. add the class to `STAGES` below (and import it): the run, the resume, the learning curve, the
   summary and `--help` find it there;
3. name it in `snail_envs.training.config.STAGES`, the names a config may give in their order
   (a test checks that it and `STAGES` agree), and give its settings a nested dataclass of
   `TrainConfig` (`league.<name>=value`), checked when the config loads.

The registry's order is the order of the stages' entries in the run's summary.
"""

from __future__ import annotations

from snail_envs.training.stages.advantage import Advantage
from snail_envs.training.stages.base import (
    Outcome,
    Overrides,
    Resumption,
    RunContext,
    Stage,
    timing,
)
from snail_envs.training.stages.expert_iteration import ExpertIteration
from snail_envs.training.stages.imitation import Imitation
from snail_envs.training.stages.league import League
from snail_envs.training.stages.ppo import PPO

STAGES: dict[str, type[Stage]] = {
    stage.name: stage for stage in (Imitation, ExpertIteration, Advantage, PPO, League)
}
"""Every stage, by name: a new stage of each for every run (a stage keeps its run's reports)."""

__all__ = ["STAGES", "Outcome", "Overrides", "Resumption", "RunContext", "Stage", "timing"]
