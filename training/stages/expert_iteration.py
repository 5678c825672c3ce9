"""The expert iteration stage: the compiled search, guided by the network, teaches the network
round after round (`snail_envs.training.expert_iteration`).

It saves the network it starts from and, after every round, the network, the round's states and
the stage's state (`RoundStore`, `<run>/expert_iteration/`); a stop request abandons the round
under way, and a resumed run goes on at the next round.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any, ClassVar

from snail_envs.agents.ppo import PPOAgent
from snail_envs.training.checkpoints import Progress
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import evaluate_point, evaluation_opponents
from snail_envs.training.stages.base import Outcome, Overrides, Resumption, RunContext, timing


def round_line(report: Any, point: dict[str, Any], opponents: list[str]) -> str:
    """A round's report (an `ExpertIterationRound`) and its point of the curve, in a line."""
    agreement = ", ".join(
        f"{kind} {share:.1%} ({n:,})" for kind, (share, n) in report.agreement.items()
    )
    kl = "" if report.kl is None else f", KL(search ‖ network) {report.kl:.3f}"
    scores = "".join(
        f"; vs {opponent} {point[opponent][0]:.1%}" for opponent in opponents if opponent in point
    )
    rate = report.states / max(report.search_seconds, 1e-9)
    return (
        f"round {report.round}: {report.states:,} states searched ({rate:,.1f}/s), "
        f"loss {report.loss:.3f}; the network played the search's choice "
        f"{report.prior_agreement:.1%} before distilling; held-out agreement: "
        f"{agreement or 'none held out'}{kl}{scores}"
    )


class ExpertIteration:
    """Rounds of search and distillation into the learner's policy; the stage's reports, one a
    round (`ExpertIterationRound`, as mappings), are its entry in the run's summary."""

    name: ClassVar[str] = "expert_iteration"
    count: ClassVar[str] = "searched_states"
    unit: ClassVar[str] = "searched states"
    resumable: ClassVar[tuple[str, ...]] = ("expert_iteration.rounds",)
    stopping: ClassVar[str] = (
        "in the expert_iteration stage at once, abandoning the round under way (--resume "
        "RUN_DIR continues at that round)"
    )

    def __init__(self) -> None:
        self.reports: list[dict[str, Any]] = []

    def describe(self, config: TrainConfig) -> str:
        expert = config.expert_iteration
        guide = "PUCT, the network as prior" if expert.prior else "UCB1"
        return (
            f"expert iteration, {expert.rounds} rounds of {expert.states:,} states searched "
            f"({expert.iterations} iterations each, {guide}, value {expert.value}; the learner "
            f"played by the {expert.play}), distilled {expert.epochs} epochs"
        )

    def resume(self, run_dir: Path, config: TrainConfig) -> Resumption | None:
        """At the round after the last one it finished (or its first), from that round's
        network, with the states of the rounds it trains on, its reports and the run's progress
        (`expert_iteration/state.json`). A state of another game, rule options or settings, or
        a missing round file, is refused with a `ValueError` or `FileNotFoundError` that names
        it."""
        from snail_envs.training.expert_iteration import RoundStore

        store = RoundStore(run_dir, config.env, config.env_options)
        if not store.exists():
            return None
        expert = store.load_state(config.expert_iteration)
        try:
            progress = Progress(**expert.progress)
        except TypeError as problem:
            raise ValueError(f"{run_dir}'s expert_iteration state garbles {problem}") from None
        rounds = config.expert_iteration.rounds
        exhausted = None
        if expert.rounds_done >= rounds:
            exhausted = (
                f"{run_dir} has done {expert.rounds_done} rounds of its expert_iteration stage, "
                f"of its expert_iteration.rounds={rounds}; give a larger "
                "expert_iteration.rounds=N to do more"
            )
        announcement = (
            f"resuming {run_dir} in its expert_iteration stage after round "
            f"{expert.rounds_done} of {rounds}"
        )
        return Resumption(self.name, expert, progress, False, exhausted, announcement)

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        if "expert_iteration.rounds" in given and resumed_in != self.name:
            raise ValueError(
                f"command line, {given['expert_iteration.rounds'][1]}: only a run stopped in "
                "(or ended with) its expert_iteration stage can do more rounds"
            )

    def skip(self, context: RunContext, state: Any) -> Outcome:
        """Its reports, for the run's summary."""
        from snail_envs.training.expert_iteration import RoundStore

        config = context.config
        store = RoundStore(context.run_dir, config.env, config.env_options)
        if store.exists():
            self.reports = store.load_state(config.expert_iteration).reports
        return Outcome(finished=True, policy=context.model.policy)

    def run(self, context: RunContext, state: Any) -> Outcome:
        """From the start or, resumed, after the rounds of `state` (a `StageState`, whose last
        round's network the policy takes). It saves the network it starts from, and after every
        round the network, the round's states and the stage's state (`RoundStore`), then adds a
        point to the learning curve and the round's report. A stop request abandons the round
        under way and puts the network of the last round finished back."""
        finished, self.reports = self.rounds(context, state)
        return Outcome(finished, context.model.policy if finished or self.reports else None)

    def rounds(self, context: RunContext, state: Any) -> tuple[bool, list[dict[str, Any]]]:
        """The rounds (`run`); returns whether the stage finished, and its reports so far."""
        from snail_envs.training.expert_iteration import (
            ExpertIterationRound,
            RoundStore,
            StageState,
            expert_iteration,
            kept_rounds,
        )

        config, run_dir, model = context.config, context.run_dir, context.model
        progress, curve, display, stop = (
            context.progress,
            context.curve,
            context.display,
            context.stop,
        )

        settings = config.expert_iteration
        store = RoundStore(run_dir, config.env, config.env_options)
        reports: list[dict[str, Any]] = [] if state is None else list(state.reports)

        def save(done: int, data: Any = None, policy: Any = None) -> None:
            stage = StageState(rounds_done=done, reports=reports, progress=asdict(progress))
            store.save(stage, settings, policy, data)

        def add_point(report: dict[str, Any]) -> dict[str, Any]:
            point: dict[str, Any] = {
                "stage": self.name,
                self.count: report[self.count],
                "timesteps": progress.timesteps,
            }
            if config.eval_games > 0:
                point |= evaluate_point(
                    config, PPOAgent(model), display, f"round {report['round']}"
                )
            curve.add(point)
            return point

        done = 0 if state is None else state.rounds_done
        with timing(progress, self.name) as count:
            if state is None:
                count()
                save(0, policy=model.policy)
            else:
                model.policy.load_state_dict(store.load_policy(done).state_dict())
            earlier = [store.load_data(k) for k in kept_rounds(settings, done + 1)]
            kept = copy.deepcopy(model.policy.state_dict())
            """The weights of the last round finished (or the stage's start)."""

            def after_round(report: ExpertIterationRound, fresh: Any) -> None:
                nonlocal kept
                reports.append(asdict(report))
                kept = copy.deepcopy(model.policy.state_dict())
                count()
                save(report.round, fresh, model.policy)
                point = add_point(reports[-1])
                save(report.round)  # with the round's point of the curve
                print(round_line(report, point, evaluation_opponents(config)), flush=True)

            try:
                with stop.abandonable():
                    if reports and not any(
                        point["stage"] == self.name and point[self.count] == reports[-1][self.count]
                        for point in curve.points
                    ):  # stopped while the last round's point was measured
                        add_point(reports[-1])
                        save(done)
                    expert_iteration(
                        model.policy,
                        config.env,
                        config.env_options,
                        settings,
                        gamma=config.gamma,
                        seed=config.seed,
                        progress=display.enabled,
                        first_round=done + 1,
                        earlier=earlier,
                        searched_before=reports[-1]["searched_states"] if reports else 0,
                        after_round=after_round,
                    )
            except KeyboardInterrupt:
                if not stop.requested:
                    raise
                model.policy.load_state_dict(kept)
                return False, reports
        return True, reports

    def summary(self, context: RunContext) -> dict[str, Any]:
        return {self.name: self.reports}

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        if not summary.get(self.name):
            return []
        last = summary[self.name][-1]
        share = last["agreement"].get("all", [None])[0]
        agreed = "" if share is None else f", held-out agreement with the search {share:.1%}"
        return [
            f"expert iteration: {last['round']} rounds, {last['searched_states']:,} states "
            f"searched{agreed}"
        ]

    def stopped(self, summary: Mapping[str, Any]) -> str:
        done = len(summary[self.name])
        rounds = summary["config"][self.name]["rounds"]
        saved = "before its first round ended (its start saved)"
        if done:
            saved = f"after {done} of its {rounds} rounds, each saved"
        return (
            f"in the expert_iteration stage {saved}; continue with: snail-train --resume "
            f"{summary['run_dir']}"
        )
