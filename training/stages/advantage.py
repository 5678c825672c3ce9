"""The advantage stage: advantage-weighted distillation of the rollout search into the network,
round after round (`snail_envs.training.advantage`).

It saves the network it starts from and, after every round, the network, the round's states and
labels and the stage's state (`<run>/advantage/`, `snail_envs.training.rounds`); a stop request
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


def gained(gain: float, value: str) -> str:
    """A mean advantage in its value's units: margin points, or a share of a win."""
    return f"{gain:+.1%} of a win" if value == "win" else f"{gain:+.2f} margin points"


def shown(share: float | None) -> str:
    """A share as a round's line gives it ("none" where nothing was measured)."""
    return "none" if share is None else f"{share:.1%}"


class Advantage(RoundStage):
    """Rounds of paired-rollout labels and advantage-weighted training of the learner's policy;
    the stage's reports are `AdvantageRound`s."""

    name = "advantage"
    count = "measured_states"
    unit = "measured states"

    def describe(self, config: TrainConfig) -> str:
        settings = config.advantage
        return (
            f"advantage-weighted distillation, {settings.rounds} rounds of {settings.states:,} "
            f"of the network's decisions measured by paired rollouts ({settings.worlds} worlds "
            f"each, to the {settings.horizon}'s end, valued by the {settings.value}, "
            f"z {settings.z:g}), trained "
            f"{settings.epochs} epochs"
        )

    def store(self, run_dir: Path, config: TrainConfig) -> RoundStore:
        from snail_envs.training.advantage import round_store

        return round_store(run_dir, config.env, config.env_options)

    def round_arrays(self, states: Any) -> Mapping[str, np.ndarray]:
        from snail_envs.training.advantage import round_arrays

        return round_arrays(states)

    def play_rounds(
        self, context: RunContext, store: RoundStore, done: int, after_round: AfterRound
    ) -> None:
        from snail_envs.training.advantage import advantage

        config = context.config
        advantage(
            context.model.policy,
            config.env,
            config.env_options,
            config.advantage,
            seed=config.seed,
            progress=context.display.enabled,
            first_round=done + 1,
            measured_before=self.reports[-1][self.count] if self.reports else 0,
            after_round=after_round,
        )

    def round_line(self, report: Any, point: dict[str, Any], opponents: list[str]) -> str:
        """A round's report (an `AdvantageRound`) and its point of the curve, in a line."""
        gain = "" if report.gain is None else f" (by {gained(report.gain, report.value)})"
        loss = "none trained" if report.loss is None else f"loss {report.loss:.3f}"
        scores = "".join(
            f"; vs {opponent} {point[opponent][0]:.1%}"
            for opponent in opponents
            if opponent in point
        )
        rate = report.states / max(report.search_seconds, 1e-9)
        return (
            f"round {report.round}: {report.states:,} states measured ({rate:,.1f}/s); the "
            f"search leaves the network at {report.leaves:.1%}{gain}; {loss}; held-out "
            f"advantage-weighted agreement {shown(report.agreement)}{scores}"
        )

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        if not summary.get(self.name):
            return []
        last = summary[self.name][-1]
        return [
            f"advantage-weighted distillation: {last['round']} rounds, "
            f"{last[self.count]:,} states measured; in the last, the search left the network at "
            f"{last['leaves']:.1%}, held-out advantage-weighted agreement "
            f"{shown(last['agreement'])}"
        ]
