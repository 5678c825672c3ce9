"""The imitation stage: clone a teacher into the network (`snail_envs.training.imitation`).

It saves nothing to resume from: a stop request abandons the cloning under way, nothing of it is
kept, and a run stopped there is started anew.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from snail_envs.agents.ppo import PPOAgent
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import evaluate_point, evaluation_opponents
from snail_envs.training.stages.base import Outcome, Overrides, RunContext, timing


class Imitation:
    """Clone the teacher into the learner's policy; after every round, a point of the learning
    curve and the round's report in the run's progress (`Progress.imitation`)."""

    name: ClassVar[str] = "imitation"
    count: ClassVar[str] = "labelled_states"
    unit: ClassVar[str] = "labelled states"
    resumable: ClassVar[tuple[str, ...]] = ()
    stopping: ClassVar[str] = (
        "in the imitation stage at once, keeping nothing of the cloning (start the run anew)"
    )

    def describe(self, config: TrainConfig) -> str:
        settings = config.imitation
        return (
            f"imitation of {settings.teacher} ({settings.states:,} states, then "
            f"{settings.dagger_rounds} DAgger rounds of {settings.dagger_states:,})"
        )

    def resume(self, run_dir: Path, config: TrainConfig) -> None:
        return None

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        return None

    def skip(self, context: RunContext, state: Any) -> Outcome:
        return Outcome(finished=True, policy=context.model.policy)

    def run(self, context: RunContext, state: Any) -> Outcome:
        """A stop request abandons the cloning at once (the policy is then half-cloned: the run
        keeps nothing of it)."""
        from snail_envs.training.imitation import ImitationRound, imitate

        config, model, stop = context.config, context.model, context.stop

        def after_round(report: ImitationRound) -> None:
            point: dict[str, Any] = {"stage": self.name, self.count: report.labelled_states}
            if config.eval_games > 0:
                where = f"round {report.round}"
                point |= evaluate_point(config, PPOAgent(model), context.display, where)
            context.curve.add(point)
            context.progress.imitation.append(asdict(report))
            agreement = ", ".join(
                f"{kind} {share:.1%} ({count:,})"
                for kind, (share, count) in report.agreement.items()
            )
            scores = ", ".join(
                f"vs {opponent} {point[opponent][0]:.1%}"
                for opponent in evaluation_opponents(config)
                if opponent in point
            )
            print(
                f"round {report.round}: {report.labelled_states:,} labelled states, loss "
                f"{report.loss:.3f}; held-out agreement: {agreement}; {scores}"
            )

        with timing(context.progress, self.name):
            try:
                with stop.abandonable():
                    imitate(
                        model.policy,
                        config.env,
                        config.env_options,
                        config.imitation,
                        gamma=config.gamma,
                        seed=config.seed,
                        progress=context.display.enabled,
                        after_round=after_round,
                    )
            except KeyboardInterrupt:
                if not stop.requested:
                    raise
                return Outcome(finished=False)
        return Outcome(finished=True, policy=model.policy)

    def summary(self, context: RunContext) -> dict[str, Any]:
        return {self.name: context.progress.imitation}

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        return []

    def stopped(self, summary: Mapping[str, Any]) -> str:
        return (
            "in the imitation stage, which is not resumed: nothing of it is kept; run the same "
            "command again to start anew"
        )
