"""What the stages that train round after round share (`expert_iteration`, `advantage`): their
files in the run folder (`snail_envs.training.rounds`), a point of the learning curve and a line
after every round, and their stop and resume.

Such a stage saves the network it starts from and, after every round, the network, the round's
states and the stage's state; a stop request abandons the round under way, and a resumed run
goes on at the next round. `<stage>.rounds` is the setting a resumed run may raise to do more.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from snail_envs.agents.ppo import PPOAgent
from snail_envs.training.checkpoints import read_progress
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import evaluate_point, evaluation_opponents
from snail_envs.training.rounds import RoundStore, StageState
from snail_envs.training.stages.base import Outcome, Overrides, Resumption, RunContext, timing

AfterRound = Callable[[Any, Any], None]
"""What a stage's rounds call after each round, with the round's report (a dataclass with
`round` and the stage's count) and its states."""


class RoundStage:
    """A stage of rounds; a subclass names itself, says what its points count, and writes
    `store`, `round_arrays`, `play_rounds`, `round_line`, `describe` and `report`. Its reports,
    one a round (as mappings), are its entry in the run's summary."""

    name: ClassVar[str]
    count: ClassVar[str]
    unit: ClassVar[str]
    resumable: ClassVar[tuple[str, ...]]
    stopping: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.resumable = (f"{cls.name}.rounds",)
        cls.stopping = (
            f"in the {cls.name} stage at once, abandoning the round under way (--resume "
            "RUN_DIR continues at that round)"
        )

    def __init__(self) -> None:
        self.reports: list[dict[str, Any]] = []

    # ----------------------------------------------------------------- what a stage writes

    def store(self, run_dir: Path, config: TrainConfig) -> RoundStore:
        """The stage's files in the run folder `run_dir`."""
        raise NotImplementedError

    def round_arrays(self, states: Any) -> Mapping[str, np.ndarray]:
        """A round's states, as the arrays its file holds."""
        raise NotImplementedError

    def play_rounds(
        self, context: RunContext, store: RoundStore, done: int, after_round: AfterRound
    ) -> None:
        """The rounds after the first `done` (whose reports are `self.reports`), on
        `context.model.policy`, calling `after_round` after each."""
        raise NotImplementedError

    def round_line(self, report: Any, point: dict[str, Any], opponents: list[str]) -> str:
        """A round's report and its point of the learning curve, in a line."""
        raise NotImplementedError

    # ----------------------------------------------------------------- the Stage protocol

    def settings(self, config: TrainConfig) -> Any:
        """The stage's own settings (`config.<stage>`)."""
        return getattr(config, self.name)

    def resume(self, run_dir: Path, config: TrainConfig) -> Resumption | None:
        """At the round after the last one it finished (or its first), from that round's
        network, with its reports and the run's progress (`<stage>/state.json`). A state of
        another game, rule options or settings, or a missing round file, is refused with a
        `ValueError` or `FileNotFoundError` that names it."""
        store = self.store(run_dir, config)
        if not store.exists():
            return None
        state = store.load_state(self.settings(config))
        progress = read_progress(state.progress, f"{run_dir}'s {self.name} state")
        rounds = self.settings(config).rounds
        exhausted = None
        if state.rounds_done >= rounds:
            exhausted = (
                f"{run_dir} has done {state.rounds_done} rounds of its {self.name} stage, "
                f"of its {self.name}.rounds={rounds}; give a larger {self.name}.rounds=N to do "
                "more"
            )
        announcement = (
            f"resuming {run_dir} in its {self.name} stage after round {state.rounds_done} of "
            f"{rounds}"
        )
        return Resumption(self.name, state, progress, False, exhausted, announcement)

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        rounds = f"{self.name}.rounds"
        if rounds in given and resumed_in != self.name:
            raise ValueError(
                f"command line, {given[rounds][1]}: only a run stopped in (or ended with) its "
                f"{self.name} stage can do more rounds"
            )

    def skip(self, context: RunContext, state: Any) -> Outcome:
        """Its reports, for the run's summary."""
        config = context.config
        store = self.store(context.run_dir, config)
        if store.exists():
            self.reports = store.load_state(self.settings(config)).reports
        return Outcome(finished=True, policy=context.model.policy)

    def run(self, context: RunContext, state: Any) -> Outcome:
        """From the start or, resumed, after the rounds of `state` (a `StageState`, whose last
        round's network the policy takes). It saves the network it starts from, and after every
        round the network, the round's states and the stage's state (`RoundStore`), then adds a
        point to the learning curve and the round's report. A stop request abandons the round
        under way and puts the network of the last round finished back."""
        self.reports = [] if state is None else list(state.reports)
        finished = self.rounds(context, state)
        return Outcome(finished, context.model.policy if finished or self.reports else None)

    def rounds(self, context: RunContext, state: StageState | None) -> bool:
        """The rounds (`run`); returns whether the stage finished."""
        config, model, progress = context.config, context.model, context.progress
        settings = self.settings(config)
        store = self.store(context.run_dir, config)

        def save(done: int, states: Any = None, policy: Any = None) -> None:
            stage = StageState(rounds_done=done, reports=self.reports, progress=asdict(progress))
            arrays = None if states is None else self.round_arrays(states)
            store.save(stage, settings, policy, arrays)

        done = 0 if state is None else state.rounds_done
        with timing(progress, self.name) as count:
            if state is None:
                count()
                save(0, policy=model.policy)
            else:
                model.policy.load_state_dict(store.load_policy(done).state_dict())
            kept = copy.deepcopy(model.policy.state_dict())
            """The weights of the last round finished (or the stage's start)."""

            def after_round(report: Any, states: Any) -> None:
                nonlocal kept
                self.reports.append(asdict(report))
                kept = copy.deepcopy(model.policy.state_dict())
                count()
                save(report.round, states, model.policy)
                point = self.add_point(context, self.reports[-1])
                save(report.round)  # with the round's point of the curve
                opponents = evaluation_opponents(config)
                print(self.round_line(report, point, opponents), flush=True)

            try:
                with context.stop.abandonable():
                    if self.reports and not any(
                        point["stage"] == self.name
                        and point[self.count] == self.reports[-1][self.count]
                        for point in context.curve.points
                    ):  # stopped while the last round's point was measured
                        self.add_point(context, self.reports[-1])
                        save(done)
                    self.play_rounds(context, store, done, after_round)
            except KeyboardInterrupt:
                if not context.stop.requested:
                    raise
                model.policy.load_state_dict(kept)
                return False
        return True

    def add_point(self, context: RunContext, report: dict[str, Any]) -> dict[str, Any]:
        """The learning curve's point after a round (its report): the network's score rates,
        where the run evaluates."""
        config = context.config
        point: dict[str, Any] = {
            "stage": self.name,
            self.count: report[self.count],
            "timesteps": context.progress.timesteps,
        }
        if config.eval_games > 0:
            point |= evaluate_point(
                config, PPOAgent(context.model), context.display, f"round {report['round']}"
            )
        context.curve.add(point)
        return point

    def summary(self, context: RunContext) -> dict[str, Any]:
        return {self.name: self.reports}

    def stopped(self, summary: Mapping[str, Any]) -> str:
        done = len(summary[self.name])
        rounds = summary["config"][self.name]["rounds"]
        saved = "before its first round ended (its start saved)"
        if done:
            saved = f"after {done} of its {rounds} rounds, each saved"
        return (
            f"in the {self.name} stage {saved}; continue with: snail-train --resume "
            f"{summary['run_dir']}"
        )
