"""The ppo stage: MaskablePPO against the configured opponents (`snail_envs.training.opponents`),
from the weights of the stage before and anchored to them when `anchor_coef` > 0
(`snail_envs.training.finetune`).

It saves weights-only checkpoints (`snail_envs.training.checkpoints`) every `checkpoint_every`
timesteps, at its end, when a stop request ends it after the step under way, and at its start
when it follows another stage (whose network it also keeps as the run's clone, `clone.pt`, its
anchor). A resumed run goes on from the latest checkpoint; a larger `total_timesteps` trains a
finished stage further.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from snail_envs.agents.ppo import load_policy, save_policy
from snail_envs.training.checkpoints import (
    CHECKPOINTS,
    CLONE_FILE,
    Checkpoint,
    latest_checkpoint,
    load_checkpoint,
    restore,
    save_checkpoint,
    set_random_states,
)
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import evaluation_opponents, start_scored_before
from snail_envs.training.stages.base import (
    INIT_FROM,
    Outcome,
    Overrides,
    Resumption,
    RunContext,
    timing,
)

MIN_CURVE_POINTS = 5
"""The fewest points a ppo stage's learning curve has: its start, the points between, its end."""


def evaluation_interval(config: TrainConfig) -> int:
    """Timesteps between two points of the ppo stage's curve: `eval_every`, shortened where the
    run is too short for `MIN_CURVE_POINTS` points (at step 0, every interval, and the final
    evaluation at the end)."""
    return max(1, min(config.eval_every, config.total_timesteps // (MIN_CURVE_POINTS - 1)))


def kept_start(best: dict[str, Any] | None) -> bool:
    """Whether the best policy on record (`KeepBest`) is the one the stage started from, at
    timestep 0: no later point of the stage scored above it."""
    return best is not None and best["timesteps"] == 0


def anchor(model: Any, reference: Any, coef: float, decay_steps: int) -> Any:
    """Pull the policy of `model` (an `AnchoredPolicy`) towards a frozen copy of `reference`
    with a KL of weight `coef` (falling to 0 over `decay_steps` timesteps; 0: kept) while it
    learns; returns the callback that sets and logs the weight (`AnchorSchedule`). Set
    `model.policy.anchor = None` after learning to let it go."""
    from snail_envs.training.finetune import Anchor, AnchorSchedule

    model.policy.anchor = Anchor(reference, coef)
    return AnchorSchedule(model.policy.anchor, coef, decay_steps)


class PPO:
    """MaskablePPO to `total_timesteps` or a stop request. Its policy is the last one, or with
    `keep_best` the best of the curve's points, the policy it started from included (whose
    record is `Progress.best`, its entry in the run's summary)."""

    name: ClassVar[str] = "ppo"
    count: ClassVar[str] = "timesteps"
    unit: ClassVar[str] = "learner timesteps"
    resumable: ClassVar[tuple[str, ...]] = ("total_timesteps", "eval_every", "checkpoint_every")
    stopping: ClassVar[str] = (
        "in the ppo stage after the step under way, with a checkpoint that --resume RUN_DIR "
        "continues from"
    )

    def describe(self, config: TrainConfig) -> str:
        anchor = f", anchored to the clone ({config.anchor_coef:g})" if config.anchor_coef else ""
        return f"MaskablePPO, {config.total_timesteps:,} timesteps{anchor}"

    def resume(self, run_dir: Path, config: TrainConfig) -> Resumption | None:
        """From its latest checkpoint: the policy and its optimizer's state, the timesteps and
        updates, the self-play pool, the random generators, the anchor to the clone, the best
        policy so far (`keep_best`) and the learning curve go on where they stopped. The games
        under way then are not kept: new ones are dealt (from a seed of the run's seed and
        timesteps)."""
        if not any((run_dir / CHECKPOINTS).glob("step_*")):
            return None
        folder = latest_checkpoint(run_dir, config.stages)
        checkpoint = load_checkpoint(folder, config.env)
        done = checkpoint.progress.timesteps
        exhausted = None
        if done >= config.total_timesteps:
            exhausted = (
                f"{run_dir} has trained {done:,} of its total_timesteps="
                f"{config.total_timesteps}; give a larger total_timesteps=N to train on"
            )
        announcement = f"resuming {run_dir} at {done:,} timesteps ({folder.name})"
        finished = exhausted is not None
        return Resumption(
            self.name, checkpoint, checkpoint.progress, finished, exhausted, announcement
        )

    def check_overrides(self, given: Overrides, resumed_in: str | None) -> None:
        return None

    def skip(self, context: RunContext, state: Checkpoint | None) -> Outcome:
        """Its checkpoint (restored, where the run resumes after it) and its policy."""
        from snail_envs.training.finetune import BEST_POLICY_FILE

        config, model = context.config, context.model
        if state is not None:
            self.restore(context, state)
        context.checkpoint = latest_checkpoint(context.run_dir, config.stages)
        best = context.run_dir / BEST_POLICY_FILE
        if config.keep_best and best.is_file():
            model.policy.load_state_dict(load_policy(best, config.env).state_dict())
        return Outcome(True, model.policy, kept_start(context.progress.best))

    def restore(self, context: RunContext, checkpoint: Checkpoint) -> None:
        """Put the checkpoint into the learner, its self-play pool and the random generators,
        and deal new games."""
        config, model = context.config, context.model
        restore(checkpoint, model, context.pool)
        games = np.random.SeedSequence([config.seed, context.progress.timesteps]).generate_state(1)
        assert model.env is not None  # the model was built on its games
        model.env.seed(int(games[0]))
        set_random_states(checkpoint.generators)
        if context.self_play is not None and "self_play" in checkpoint.generators:
            context.self_play.rng.bit_generator.state = checkpoint.generators["self_play"]

    def run(self, context: RunContext, state: Checkpoint | None) -> Outcome:
        config = context.config
        if state is not None:
            self.restore(context, state)
        elif config.stages.index(self.name) > 0 or (config.init_from and config.anchor_coef > 0):
            self.keep_clone(context)
        policy = self.learn(context, state)
        stopped = context.stop.requested and context.progress.timesteps < config.total_timesteps
        return Outcome(not stopped, policy, kept_start(context.progress.best))

    def keep_clone(self, context: RunContext) -> None:
        """Keep the network the stage starts from, the stage before's or `init_from`'s, as the
        run's clone: its anchor, also when resumed."""
        config = context.config
        policy = context.model.policy
        path = context.run_dir / CLONE_FILE
        save_policy(path, policy, config.env, config.env_options, overwrite=True)

    def learn(self, context: RunContext, checkpoint: Checkpoint | None) -> Any:
        """Train, on from `checkpoint` when resumed, with checkpoints when due, at its end, and
        at its start when it follows another stage; returns the stage's policy."""
        from snail_envs.training.callbacks import (
            Checkpoints,
            CurvePoints,
            Snapshots,
            UpdateLosses,
            ppo_callbacks,
        )

        config, run_dir, model = context.config, context.run_dir, context.model
        progress, pool, self_play = context.progress, context.pool, context.self_play
        extra, keep = self.anchor_and_best(context, checkpoint)
        with timing(progress, self.name) as count:

            def save(model: Any) -> Path:
                progress.timesteps, progress.updates = model.num_timesteps, model._n_updates
                progress.best = None if keep is None else keep.best
                count()
                own = {} if self_play is None else {"self_play": self_play.rng.bit_generator.state}
                return save_checkpoint(run_dir, config, model, pool.snapshots, progress, own)

            if checkpoint is None and config.stages.index(self.name) > 0:
                save(model)
            snapshots = Snapshots(config, pool, progress)
            interval = evaluation_interval(config)
            points = CurvePoints(
                self.name, interval, config, progress, context.curve, context.display, context.stop
            )
            checkpoints = Checkpoints(config, progress, save)
            total = config.total_timesteps
            with context.display.training(self.name, total, progress.timesteps) as advance:
                callbacks = ppo_callbacks(
                    UpdateLosses(progress),
                    snapshots,
                    points,
                    extra,
                    checkpoints,
                    context.stop,
                    advance,
                )
                model.learn(
                    total - progress.timesteps,
                    callback=callbacks,
                    reset_num_timesteps=checkpoint is None,
                )
            context.checkpoint = save(model)
        if config.anchor_coef > 0:
            model.policy.anchor = None
        if keep is not None and keep.best is not None:
            return load_policy(keep.path, config.env)
        return model.policy

    def anchor_and_best(
        self, context: RunContext, checkpoint: Checkpoint | None
    ) -> tuple[list[Any], Any]:
        """The callbacks of the anchor to the clone (`anchor_coef` > 0: the policy the stage
        starts from, or resumed the run's clone) and of `keep_best` (also returned, or None)."""
        config, model = context.config, context.model
        extra: list[Any] = []
        if config.anchor_coef > 0:
            clone = (
                model.policy
                if checkpoint is None
                else load_policy(context.run_dir / CLONE_FILE, config.env)
            )
            extra.append(anchor(model, clone, config.anchor_coef, config.anchor_decay_steps))
        keep = self.best_keeper(context, checkpoint) if config.keep_best else None
        return [*extra, keep] if keep is not None else extra, keep

    def best_keeper(self, context: RunContext, checkpoint: Checkpoint | None) -> Any:
        """The `KeepBest` of the stage against the last evaluation opponent. A stage that starts
        after another one's last round scored its start (`start_scored_before`) begins with
        that score as its start's, so that the policy it starts from stays the best unless a
        point of the stage beats it."""
        from snail_envs.training.finetune import BEST_POLICY_FILE, KeepBest

        config, progress = context.config, context.progress
        opponent = evaluation_opponents(config)[-1]
        path = context.run_dir / BEST_POLICY_FILE
        keep = KeepBest(
            progress.learning_curve, opponent, path, config.env, config.env_options, progress.best
        )
        start = start_scored_before(progress.learning_curve, self.name)
        if checkpoint is None and start is not None and opponent in start:
            keep.consider(start, progress.timesteps, context.model.policy)
        return keep

    def summary(self, context: RunContext) -> dict[str, Any]:
        return {"best": context.progress.best}

    def report(self, summary: Mapping[str, Any]) -> list[str]:
        if not summary["best"]:
            return []
        best = summary["best"]
        if kept_start(best):
            start = f"({best['score_rate']:.1%} vs {best['opponent']} at the ppo stage's start)"
            made_by = summary["policy_made_by"]
            if made_by is None:
                return [f"ppo did not beat the untrained network it started from {start}; kept it"]
            if made_by == INIT_FROM:
                return [f"ppo did not beat the policy it started from {start}; kept init_from's"]
            return [f"ppo did not beat the clone {start}; kept the {made_by} policy"]
        return [
            f"kept the policy of timestep {best['timesteps']:,} "
            f"({best['score_rate']:.1%} vs {best['opponent']} at that point of the curve)"
        ]

    def stopped(self, summary: Mapping[str, Any]) -> str:
        return (
            f"at {summary['timesteps']:,} timesteps, checkpoint saved; continue with: "
            f"snail-train --resume {summary['run_dir']}"
        )
