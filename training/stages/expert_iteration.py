"""The expert iteration stage: the compiled search, guided by the network, teaches the network
round after round (`snail_envs.training.expert_iteration`).

It saves the network it starts from and, after every round, the network, the round's states and
the stage's state (`<run>/expert_iteration/`, `snail_envs.training.rounds`); a stop request
abandons the round under way, and a resumed run goes on at the next round (`stages.rounds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.training.config import TrainConfig
from snail_envs.training.rounds import RoundStore
from snail_envs.training.stages.base import RunContext
from snail_envs.training.stages.rounds import AfterRound, RoundStage


class ExpertIteration(RoundStage):
    """Rounds of search and distillation into the learner's policy; the stage's reports are
    `ExpertIterationRound`s."""

    name = "expert_iteration"
    count = "searched_states"
    unit = "searched states"

    def describe(self, config: TrainConfig) -> str:
        expert = config.expert_iteration
        guide = "PUCT, the network as prior" if expert.prior else "UCB1"
        return (
            f"expert iteration, {expert.rounds} rounds of {expert.states:,} states searched "
            f"({expert.iterations} iterations each, {guide}, value {expert.value}; the learner "
            f"played by the {expert.play}), distilled {expert.epochs} epochs"
        )

    def store(self, run_dir: Path, config: TrainConfig) -> RoundStore:
        from snail_envs.training.expert_iteration import round_store

        return round_store(run_dir, config.env, config.env_options)

    def round_arrays(self, states: Any) -> Mapping[str, np.ndarray]:
        from snail_envs.training.expert_iteration import round_arrays

        return round_arrays(states)

    def play_rounds(
        self, context: RunContext, store: RoundStore, done: int, after_round: AfterRound
    ) -> None:
        """The rounds after `done`, each training on the states of the rounds before it that
        `expert_iteration.keep_rounds` keeps (read from the run folder)."""
        from snail_envs.training.expert_iteration import expert_iteration, kept_rounds, round_states

        config = context.config
        settings = config.expert_iteration
        expert_iteration(
            context.model.policy,
            config.env,
            config.env_options,
            settings,
            gamma=config.gamma,
            seed=config.seed,
            progress=context.display.enabled,
            first_round=done + 1,
            earlier=[round_states(store.load_data(k)) for k in kept_rounds(settings, done + 1)],
            searched_before=self.reports[-1]["searched_states"] if self.reports else 0,
            after_round=after_round,
        )

    def round_line(self, report: Any, point: dict[str, Any], opponents: list[str]) -> str:
        """A round's report (an `ExpertIterationRound`) and its point of the curve, in a line."""
        agreement = ", ".join(
            f"{kind} {share:.1%} ({n:,})" for kind, (share, n) in report.agreement.items()
        )
        kl = "" if report.kl is None else f", KL(search ‖ network) {report.kl:.3f}"
        scores = "".join(
            f"; vs {opponent} {point[opponent][0]:.1%}"
            for opponent in opponents
            if opponent in point
        )
        rate = report.states / max(report.search_seconds, 1e-9)
        return (
            f"round {report.round}: {report.states:,} states searched ({rate:,.1f}/s), "
            f"loss {report.loss:.3f}; the network played the search's choice "
            f"{report.prior_agreement:.1%} before distilling; held-out agreement: "
            f"{agreement or 'none held out'}{kl}{scores}"
        )

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
