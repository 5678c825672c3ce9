"""The ppo stage's Stable-Baselines3 callbacks: self-play snapshots, the learning curve's points,
the updates' losses, checkpoints, the end of learning on a stop request, and the training bar.

Each sees the run's `Progress`, which says when the next snapshot, point and checkpoint are due,
so that a resumed run goes on where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback, CallbackList

from snail_envs.agents.ppo import PPOAgent
from snail_envs.training.checkpoints import Progress
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import LearningCurve, evaluate_point, start_scored_before
from snail_envs.training.display import Display
from snail_envs.training.interrupts import StopRequests
from snail_envs.training.opponents import SelfPlayPool


class Snapshots(BaseCallback):
    """Adds the learner's policy to the self-play pool at the start (of a run whose pool is
    still empty) and every `self_play_every` steps."""

    def __init__(self, config: TrainConfig, pool: SelfPlayPool, progress: Progress) -> None:
        super().__init__()
        self.config, self.pool, self.progress = config, pool, progress

    def _on_training_start(self) -> None:
        if not self.pool.snapshots:
            self.pool.add(self.model.policy)

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.progress.next_snapshot:
            self.pool.add(self.model.policy)
            self.progress.next_snapshot += self.config.self_play_every
        return True


class CurvePoints(BaseCallback):
    """Scores the learner against each evaluation opponent at the stage's start (unless the
    last round of the stage before has just scored the same policy, at the same place on the
    curve) and every `interval` steps before its end, where the final evaluation takes over
    (games a stop request abandons: the point is measured again when the run resumes). Its
    points name the stage `stage`."""

    def __init__(
        self,
        stage: str,
        interval: int,
        config: TrainConfig,
        progress: Progress,
        curve: LearningCurve,
        display: Display,
        stop: StopRequests,
    ) -> None:
        super().__init__()
        self.stage, self.interval, self.config, self.progress = stage, interval, config, progress
        self.curve, self.display, self.stop = curve, display, stop

    def _on_training_start(self) -> None:
        if self.model.num_timesteps < self.progress.next_evaluation:
            return
        if start_scored_before(self.curve.points, self.stage) is not None:
            self.progress.next_evaluation += self.interval
        else:
            self.measure()

    def _on_step(self) -> bool:
        due = self.progress.next_evaluation <= self.num_timesteps < self.config.total_timesteps
        return self.measure() if due else True

    def measure(self) -> bool:
        if self.config.eval_games > 0:
            try:
                with self.stop.abandonable():
                    at = f"{self.model.num_timesteps:,}"
                    rates = evaluate_point(self.config, PPOAgent(self.model), self.display, at)
            except KeyboardInterrupt:
                return False
            self.curve.add({"stage": self.stage, "timesteps": self.model.num_timesteps, **rates})
        while self.progress.next_evaluation <= self.model.num_timesteps:
            self.progress.next_evaluation += self.interval
        return True


UPDATE_VALUES = {
    "loss": "train/loss",
    "entropy": "train/entropy_loss",
    "approx_kl": "train/approx_kl",
}
"""What `Progress.ppo_updates` records of each update, by the name SB3's logger gives it (its
`entropy_loss` is the entropy negated: the record keeps the entropy)."""
UPDATE_COUNT = "train/n_updates"
"""SB3's count of the gradient steps made so far (`Progress.updates`), which names an update."""


class UpdateLosses(BaseCallback):
    """Records each PPO update's loss, entropy and approximate KL, as SB3's logger holds them
    after the update, in `Progress.ppo_updates` at the timesteps of the rollout it learnt from.
    An update is read before the next rollout starts and when learning ends (SB3 writes its
    values out, and clears them, only after the next rollout)."""

    def __init__(self, progress: Progress) -> None:
        super().__init__()
        self.progress = progress

    def _on_rollout_start(self) -> None:
        self.record()

    def _on_training_end(self) -> None:
        self.record()

    def _on_step(self) -> bool:
        return True

    def record(self) -> None:
        logged = self.model.logger.name_to_value
        updates = self.progress.ppo_updates
        if UPDATE_COUNT not in logged:
            return  # no update since SB3 last wrote its values out
        made = int(logged[UPDATE_COUNT])
        if updates and updates[-1]["updates"] == made:
            return  # a stop ended learning before the next update: this one is recorded
        values = {name: float(logged[key]) for name, key in UPDATE_VALUES.items()}
        values["entropy"] = -values["entropy"]
        updates.append({"timesteps": self.model.num_timesteps, "updates": made, **values})


class Checkpoints(BaseCallback):
    """Saves a checkpoint (`save`) every `checkpoint_every` steps."""

    def __init__(
        self, config: TrainConfig, progress: Progress, save: Callable[[Any], Path]
    ) -> None:
        super().__init__()
        self.config, self.progress, self.save = config, progress, save

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.progress.next_checkpoint:
            self.progress.next_checkpoint += self.config.checkpoint_every
            self.save(self.model)
        return True


class StopOnRequest(BaseCallback):
    """Ends learning at the first step after a stop request (SIGINT, SIGTERM)."""

    def __init__(self, stop: StopRequests) -> None:
        super().__init__()
        self.stop = stop

    def _on_step(self) -> bool:
        return not self.stop.requested


class TrainingBar(BaseCallback):
    """Moves the display's training bar to the timesteps learnt."""

    def __init__(self, advance: Callable[[int], None]) -> None:
        super().__init__()
        self.advance = advance

    def _on_step(self) -> bool:
        self.advance(self.num_timesteps)
        return True


def ppo_callbacks(
    losses: UpdateLosses,
    snapshots: Snapshots,
    points: CurvePoints,
    extra: Sequence[BaseCallback],
    checkpoints: Checkpoints,
    stop: StopRequests,
    advance: Callable[[int], None],
) -> CallbackList:
    """The ppo stage's callbacks, in the order they see each step: the updates' losses (before
    a rollout: the update before it), self-play snapshots and the learning curve when due, then
    `extra` (which see each new point of the curve), checkpoints when due, the end of learning
    when a stop is requested, and the training bar."""
    return CallbackList(
        [losses, snapshots, points, *extra, checkpoints, StopOnRequest(stop), TrainingBar(advance)]
    )
