"""A run of `snail-train`: its folder, its stages one after the other, the final evaluation and
the summary.

A run's learner is one MaskablePPO model (`RunContext.model`) whose policy every stage trains in
turn (`snail_envs.training.stages`), each starting from the network the stage before ended with.
A new run starts at its first stage; a resumed one in the stage whose saved state is the latest
(`resumption`), the stages before it taken up as they finished (`Stage.skip`). A stop request
ends the stage under way and the run with it: the run then keeps the policy so far, if a stage
made one, skips the final evaluation and says where it stopped (`Stage.stopped`).

The run folder (`snail_envs.training.checkpoints` lists its files) gets the final policy
(`policy.pt`: `ppo:RUN_FOLDER` as an agent), the final evaluation's first games against each
opponent as replays (`replays/`), the learning curve (`learning_curve.png`, TensorBoard) and
`summary.json`.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import snail_envs
from snail_envs.agents.files import write_text
from snail_envs.agents.ppo import POLICY_FILE, PPOAgent, save_policy
from snail_envs.training.checkpoints import (
    CONFIG_FILE,
    Progress,
    latest_checkpoint,
    new_run_dir,
)
from snail_envs.training.config import TrainConfig
from snail_envs.training.curve import (
    FINAL,
    TIMESTEPS,
    LearningCurve,
    evaluation_opponents,
    kept_point,
    plot_summary,
    score_rates,
)
from snail_envs.training.display import Display
from snail_envs.training.interrupts import StopRequests
from snail_envs.training.opponents import SelfPlayPolicy, SelfPlayPool, make_vec_env
from snail_envs.training.stages import STAGES, Overrides, Resumption, RunContext, Stage
from snail_envs.training.stages.base import INIT_FROM

RESUMABLE = (
    "eval_games",
    "final_eval_games",
    "torch_threads",
    *(field for stage in STAGES.values() for field in stage.resumable),
)
"""The fields a resumed run may change (`--resume RUN_DIR total_timesteps=2000000`,
`expert_iteration.rounds=5`): none that would make the saved model, opponents or games another
run's."""


def open_run(config: TrainConfig) -> Path:
    """A new run folder for `config` (printed first), holding its config."""
    run_dir = new_run_dir(config.output_dir, f"{config.env}-{config.seed}")
    print(f"run folder: {run_dir}", flush=True)
    write_config(run_dir, config)
    return run_dir


def write_config(run_dir: Path, config: TrainConfig, overwrite: bool = False) -> None:
    """Write the run's config (`config.json`: what `--resume` continues with)."""
    write_text(run_dir / CONFIG_FILE, json.dumps(asdict(config), indent=2) + "\n", overwrite)


def resumption(run_dir: Path, config: TrainConfig, given: Overrides) -> Resumption:
    """Where the run in `run_dir` resumes: in the last of its stages that saved a state
    (`Stage.resume`). Overrides a stage would not use, a run that saved nothing and a last
    stage with nothing left to do are refused."""
    found = None
    for name in reversed(config.stages):
        found = STAGES[name]().resume(run_dir, config)
        if found is not None:
            break
    for stage in STAGES.values():
        stage().check_overrides(given, None if found is None else found.stage)
    if found is None:
        latest_checkpoint(run_dir, config.stages)  # which says what a run folder holds
        raise FileNotFoundError(f"{run_dir} has no stage's state to resume from")
    if found.exhausted is not None and found.stage == config.stages[-1]:
        raise ValueError(found.exhausted)
    return found


def run(
    config: TrainConfig, run_dir: Path, resumed: Resumption | None, progress_bar: bool
) -> dict[str, Any]:
    """Train in `run_dir` through the config's stages, from the start or from where `resumed`
    says, to their end or a stop request; then save the final policy (if a stage made one),
    evaluate it (unless stopped), draw the learning curve and write the summary."""
    model, pool, self_play = build_learner(config, run_dir)
    progress = Progress.start(config) if resumed is None else resumed.progress
    skipped = 0
    """The stages before the one the run starts at (resumed: those that had finished)."""
    if resumed is not None:
        skipped = config.stages.index(resumed.stage) + resumed.finished
    elif config.init_from:
        start_from(config, model)
    stages = {name: make() for name, make in STAGES.items()}
    curve = LearningCurve(progress.learning_curve, run_dir / "tensorboard")
    with StopRequests() as stop, contextlib.closing(curve):
        context = RunContext(
            config, run_dir, model, pool, self_play, progress, curve, Display(progress_bar), stop
        )
        policy: Any = None  # the run's policy once a stage has finished it
        made_by = INIT_FROM if config.init_from else None
        stopped_in: str | None = None
        for number, name in enumerate(config.stages, start=1):
            stage = stages[name]
            state = resumed.state if resumed is not None and resumed.stage == name else None
            if number <= skipped:  # finished before the run was resumed
                outcome = stage.skip(context, state)
            else:
                print(
                    f"=== stage {number}/{len(config.stages)}: {stage.describe(config)} ===",
                    flush=True,
                )
                outcome = stage.run(context, state)
            if outcome.policy is not None:
                policy = outcome.policy
                made_by = made_by if outcome.kept_start else name
            if not outcome.finished:
                stopped_in = name
                break
            if number < len(config.stages) and policy is not model.policy:
                model.policy.load_state_dict(policy.state_dict())  # the next stage's start
                policy = model.policy
        summary = finish(context, list(stages.values()), policy, made_by, stopped_in)
    return summary


def build_learner(
    config: TrainConfig, run_dir: Path
) -> tuple[Any, SelfPlayPool, SelfPlayPolicy | None]:
    """The run's learner (a MaskablePPO on the training games, its policy anchored where
    `anchor_coef` > 0), its self-play pool, and the pool's player of the batched engine's
    "policy" seats (None without self-play in the batched engine)."""
    import torch

    torch.set_num_threads(config.torch_threads)
    pool = SelfPlayPool(config.self_play_pool)
    self_play = (
        SelfPlayPolicy(pool, config.n_envs, config.seed)
        if config.batched and config.opponents.get("self", 0) > 0
        else None
    )
    venv = make_vec_env(config, pool, self_play)
    model = build_model(config, venv, run_dir, config.seed, config.anchor_coef > 0)
    return model, pool, self_play


def build_model(
    config: TrainConfig,
    venv: Any,
    run_dir: Path,
    seed: int,
    anchored: bool,
    learning_rate: float | None = None,
) -> Any:
    """A MaskablePPO with the config's hyperparameters (its step size `learning_rate` where
    given) on the games `venv`, seeded by `seed`, logging to the run's TensorBoard folder; its
    policy a `LeanPolicy`, or with `anchored` an `AnchoredPolicy` (a `LeanPolicy` too)."""
    from sb3_contrib import MaskablePPO

    from snail_envs.training.finetune import AnchoredPolicy
    from snail_envs.training.lean_policy import LeanPolicy

    return MaskablePPO(
        AnchoredPolicy if anchored else LeanPolicy,
        venv,
        learning_rate=config.learning_rate if learning_rate is None else learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": list(config.net_arch)},
        tensorboard_log=str(run_dir / "tensorboard"),
        seed=seed,
        device="cpu",
        verbose=0,
    )


def start_from(config: TrainConfig, model: Any) -> None:
    """Give `model` the weights of the policy at `config.init_from` (a new run's, before its
    first stage). A resumed run never calls this: its saved state holds the weights."""
    from snail_envs.training.finetune import initial_policy

    assert config.init_from is not None
    saved = initial_policy(config.init_from, config.env, config.env_options, config.net_arch)
    model.policy.load_state_dict(saved.state_dict())


FINAL_SEED = 2 * 10**7
"""The seed of the final evaluation's games (the curve's points play from 10**7)."""


def final_evaluation(context: RunContext, policy: Any) -> dict[str, tuple[float, float, float]]:
    """The final policy's score rates against each evaluation opponent, its first games kept
    as replays; a point of the learning curve. A stop request abandons it (and gives {})."""
    config, stop = context.config, context.stop
    final: dict[str, tuple[float, float, float]] = {}
    games = config.final_eval_games * len(evaluation_opponents(config))
    with (
        contextlib.suppress(KeyboardInterrupt),
        stop.abandonable(),
        context.display.evaluation("final evaluation", games, final=True) as tick,
    ):
        final = score_rates(
            config, PPOAgent(policy), config.final_eval_games, FINAL_SEED, context.run_dir, tick
        )
    if final:
        context.curve.add({"stage": FINAL, TIMESTEPS: context.progress.timesteps, **final})
    return final


def finish(
    context: RunContext,
    stages: list[Stage],
    policy: Any,
    made_by: str | None,
    stopped_in: str | None,
) -> dict[str, Any]:
    """Save the run's policy (if any), evaluate it (unless stopped), draw the learning curve,
    and write and return the summary. `made_by` names the stage whose training made the policy,
    or `INIT_FROM` (None: no stage changed the network it started with)."""
    config, run_dir, progress = context.config, context.run_dir, context.progress
    policy_path = None
    if policy is not None:
        policy_path = save_policy(
            run_dir / POLICY_FILE, policy, config.env, config.env_options, overwrite=True
        )
    final: dict[str, tuple[float, float, float]] = {}
    if policy is not None and config.final_eval_games and not context.stop.requested:
        final = final_evaluation(context, policy)
    num_players = len(snail_envs.make(config.env, **config.env_options).possible_agents)
    curve_path = run_dir / "learning_curve.png"
    stepping = sum(
        progress.stage_seconds.get(stage.name, 0.0) for stage in stages if stage.count == TIMESTEPS
    )
    rate = round(progress.timesteps / stepping) if stepping else None
    summary = {
        "config": asdict(config),
        "run_dir": str(run_dir),
        "timesteps": progress.timesteps,
        "interrupted": context.stop.signal,
        "stopped_in": stopped_in,
        "train_seconds": round(progress.train_seconds, 1),
        "stage_seconds": {name: round(s, 1) for name, s in progress.stage_seconds.items()},
        "timesteps_per_second": rate,
        **{key: value for stage in stages for key, value in stage.summary(context).items()},
        "final_evaluation": {
            opponent: {"score_rate": rate, "ci95": [low, high], "games": config.final_eval_games}
            for opponent, (rate, low, high) in final.items()
        },
        "chance_score_rate": 1 / num_players,
        "learning_curve": progress.learning_curve,
        "ppo_updates": progress.ppo_updates,
        "checkpoint": None if context.checkpoint is None else str(context.checkpoint),
        "policy": None if policy_path is None else str(policy_path),
        "policy_made_by": None if policy_path is None else made_by,
        "kept_policy": None
        if policy_path is None
        else kept_point(progress.learning_curve, made_by, progress.best, progress.timesteps),
        "learning_curve_png": str(curve_path),
        "tensorboard": str(run_dir / "tensorboard"),
        "replays": str(run_dir / "replays") if final else None,
    }
    plot_summary(summary, curve_path)
    write_text(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n", True)
    return summary
