"""Train an agent on one game through the configured stages, then evaluate it.

    python -m training.train --env snail_sprint_v0
    python -m training.train --env pedzace_slimaki_v0 total_timesteps=300000 \
        env_options.num_players=3
    python -m training.train --env snail_sprint_v0 n_envs=256 opponents.self=0
    python -m training.train --env snail_sprint_v0 batched=false
    python -m training.train --env snail_sprint_v0 "stages=[ppo]" anchor_coef=0
    python -m training.train --env snail_sprint_v0 "stages=[ppo]" --init-from runs/clone/policy.pt

The hyperparameters and rule options come from `configs/<game>/ppo.yaml` (see
`training.config.TrainConfig` for every field); `name=value` arguments override them. A run goes
through the stages its config names: `imitation` clones a teacher (the game's heuristic by
default) into the network on states of the batched engine (`training.imitation`), `ppo` trains
it with MaskablePPO, from the cloned weights and anchored to them (`training.finetune`). The
learner
holds one seat of the game, drawn anew each episode; the other seats are played by opponents
drawn from the configured mix of random players, the game's heuristic, and frozen snapshots of the
learner itself (self-play). The games run in the batched engine (`snail_envs.batched`, its
learner vector env: random and heuristic opponents are played inside its kernels, the snapshots
answer for all the games waiting on them at once); with `batched=false`, each game is a
`snail_envs.single_agent` view of the Python environment instead. A run writes, under
`<output_dir>/<env>-<seed>/`: TensorBoard logs, checkpoints, the final model, a learning curve
(score rate against random and heuristic players after every imitation round and as PPO goes
on) and `summary.json`.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from agents import HEURISTICS, RandomAgent, make_agent
from agents.ppo import PPOAgent
from training.config import TrainConfig, load_config
from training.evaluate import score_against
from training.finetune import Anchor, AnchoredPolicy, AnchorSchedule, KeepBest, initial_policy


class SelfPlayPool:
    """Frozen snapshots of the learner's policy; each episode an opponent seat drawn from the pool
    plays one snapshot (random play until the first snapshot exists)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.snapshots: list[Any] = []
        self._rng = random.Random(0)
        self._current: Any = None
        self._fallback = RandomAgent(0)

    def add(self, policy: Any) -> None:
        self.snapshots = [*self.snapshots, copy.deepcopy(policy)][-self.size :]

    def reset(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._fallback.reset(seed)
        self._current = self._rng.choice(self.snapshots) if self.snapshots else None

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self._current is None:
            return self._fallback.act(observation, action_mask)
        action, _ = self._current.predict(
            observation, action_masks=action_mask.astype(bool), deterministic=False
        )
        return int(action)


class SelfPlayPolicy:
    """The self-play pool playing the "policy" seats of the batched engine's games: each game's
    episode draws one snapshot, which plays every policy seat of that game (random play until the
    first snapshot exists)."""

    def __init__(self, pool: SelfPlayPool, num_envs: int, seed: int) -> None:
        self.pool = pool
        self._rng = np.random.default_rng(seed)
        self._playing: list[Any] = [None] * num_envs

    def begin_episodes(self, games: np.ndarray) -> None:
        for game in games.tolist():
            snapshots = self.pool.snapshots
            self._playing[game] = (
                snapshots[self._rng.integers(len(snapshots))] if snapshots else None
            )

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        actions = np.zeros(games.size, np.int64)
        players: dict[int, list[int]] = {}
        for row, game in enumerate(games.tolist()):
            players.setdefault(id(self._playing[game]), []).append(row)
        for rows in players.values():
            snapshot = self._playing[int(games[rows[0]])]
            if snapshot is None:
                keys = self._rng.random(masks[rows].shape)
                actions[rows] = np.argmax(np.where(masks[rows], keys, -1.0), axis=1)
            else:
                actions[rows], _ = snapshot.predict(
                    observations[rows], action_masks=masks[rows], deterministic=False
                )
        return actions


def opponent_mix(config: TrainConfig, pool: SelfPlayPool) -> tuple[list[Any], list[float]]:
    """A fresh set of opponent callables (one per kind with weight > 0) and their weights."""
    makers = {
        "random": lambda: RandomAgent(config.seed),
        "heuristic": lambda: make_agent("heuristic", config.env, options=config.env_options),
        "self": lambda: pool,
    }
    if config.opponents.get("heuristic", 0) > 0 and config.env not in HEURISTICS:
        raise ValueError(f"no heuristic agent for {config.env}; set opponents.heuristic=0")
    kinds = [kind for kind, weight in config.opponents.items() if weight > 0]
    return [makers[kind]() for kind in kinds], [config.opponents[kind] for kind in kinds]


def make_vec_env(config: TrainConfig, pool: SelfPlayPool) -> Any:
    from stable_baselines3.common.vec_env import VecMonitor

    if config.batched:
        from snail_envs.batched import make_vec_env as make_batched_vec_env

        opponents = {
            "policy" if kind == "self" else kind: weight
            for kind, weight in config.opponents.items()
            if weight > 0
        }
        policy = SelfPlayPolicy(pool, config.n_envs, config.seed) if "policy" in opponents else None
        try:
            venv = make_batched_vec_env(
                config.env, config.n_envs, opponents=opponents, policy=policy, **config.env_options
            )
        except ValueError as problem:
            raise ValueError(
                f"{problem} (batched=false trains on the Python environment instead)"
            ) from problem
        venv.seed(config.seed)
        return VecMonitor(venv)

    from snail_envs.core.vec_env import SingleAgentVecEnv

    def make(index: int) -> Any:
        def build() -> Any:
            opponents, weights = opponent_mix(config, pool)
            env = snail_envs.single_agent(
                config.env, opponents=opponents, opponent_weights=weights, **config.env_options
            )
            env.reset(seed=config.seed * 1000 + index)
            return env

        return build

    venv = SingleAgentVecEnv([make(i) for i in range(config.n_envs)])
    venv.seed(config.seed)
    return VecMonitor(venv)


def evaluation_opponents(config: TrainConfig) -> list[str]:
    return ["random", "heuristic"] if config.env in HEURISTICS else ["random"]


def build_callbacks(
    config: TrainConfig, pool: SelfPlayPool, curve: list[dict[str, Any]], extra: list[Any]
) -> Any:
    """Self-play snapshots, the learning curve, `extra` callbacks (which see each new point of
    the curve), then checkpoints."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList, CheckpointCallback

    class Snapshots(BaseCallback):
        """Adds the learner's policy to the self-play pool every `self_play_every` steps."""

        def _on_training_start(self) -> None:
            pool.add(self.model.policy)
            self._next = config.self_play_every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next:
                pool.add(self.model.policy)
                self._next += config.self_play_every
            return True

    class LearningCurve(BaseCallback):
        """Scores the learner against each evaluation opponent every `eval_every` steps."""

        def _on_training_start(self) -> None:
            self._next = 0

        def _on_step(self) -> bool:
            if self.num_timesteps >= self._next and config.eval_games > 0:
                self._next += config.eval_every
                point = {"stage": "ppo", "timesteps": self.num_timesteps}
                point |= curve_point(config, self.model)
                for opponent in evaluation_opponents(config):
                    self.logger.record(f"eval/score_vs_{opponent}", point[opponent][0])
                curve.append(point)
            return True

    checkpoints = CheckpointCallback(
        save_freq=max(1, config.checkpoint_every // config.n_envs),
        save_path=str(config.run_dir / "checkpoints"),
        name_prefix="ppo",
    )
    return CallbackList([Snapshots(), LearningCurve(), *extra, checkpoints])


def curve_point(config: TrainConfig, model: Any) -> dict[str, Any]:
    """The model's score rate (and 95% interval) against each evaluation opponent."""
    learner = PPOAgent(model)
    return {
        opponent: score_against(
            config.env,
            learner,
            opponent,
            config.eval_games,
            seed=10_000_000,
            options=config.env_options,
        )
        for opponent in evaluation_opponents(config)
    }


CURVE_KEYS = ("stage", "timesteps", "labelled_states")
"""The keys of a learning curve's point that are not opponents."""


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str, chance: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    cloned = max((p["labelled_states"] for p in curve if p["stage"] == "imitation"), default=0)
    steps = [
        point["labelled_states"] if point["stage"] == "imitation" else cloned + point["timesteps"]
        for point in curve
    ]
    opponents = [key for key in curve[0] if key not in CURVE_KEYS] if curve else []
    for opponent in opponents:
        rates = np.array([point[opponent] for point in curve])
        axes.plot(steps, rates[:, 0], marker="o", label=f"vs {opponent}")
        axes.fill_between(steps, rates[:, 1], rates[:, 2], alpha=0.2)
    axes.axhline(chance, color="grey", linestyle="--", label=f"chance ({chance:.0%})")
    if cloned:
        axes.axvline(cloned, color="black", linewidth=0.8)
        axes.text(cloned, 0.97, " imitation | ppo ", ha="center", va="top", fontsize=8)
        axes.set_xlabel("labelled states (imitation), then learner timesteps (ppo)")
    else:
        axes.set_xlabel("learner timesteps")
    axes.set_ylabel("score rate (win 1, shared ½), 95% CI")
    axes.set_ylim(0, 1)
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


def train(config: TrainConfig, progress_bar: bool = True) -> dict[str, Any]:
    """Run one training job; returns its summary (also written to summary.json)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config.torch_threads)
    run_dir = config.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    pool = SelfPlayPool(config.self_play_pool)
    venv = make_vec_env(config, pool)
    model = MaskablePPO(
        AnchoredPolicy if config.anchor_coef > 0 else "MlpPolicy",
        venv,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": list(config.net_arch)},
        tensorboard_log=str(run_dir / "tensorboard"),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )
    if config.init_from:
        saved = initial_policy(config.init_from, config.env, config.env_options, config.net_arch)
        model.policy.load_state_dict(saved.state_dict())
    curve: list[dict[str, Any]] = []
    started = time.perf_counter()
    stage_seconds: dict[str, float] = {}
    imitation: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    for number, stage in enumerate(config.stages, start=1):
        print(f"=== stage {number}/{len(config.stages)}: {describe_stage(config, stage)} ===")
        begun = time.perf_counter()
        if stage == "imitation":
            imitation = run_imitation(config, model, curve, progress_bar)
        else:
            best = run_ppo(config, model, pool, curve, progress_bar)
        stage_seconds[stage] = round(time.perf_counter() - begun, 1)
    train_seconds = time.perf_counter() - started
    model_path = run_dir / "model.zip"
    model.save(model_path)
    policy_path = run_dir / "policy.pt"
    model.policy.save(policy_path)
    learner = PPOAgent(model)
    num_players = len(snail_envs.make(config.env, **config.env_options).possible_agents)
    final = (
        {
            opponent: score_against(
                config.env,
                learner,
                opponent,
                config.final_eval_games,
                seed=20_000_000,
                options=config.env_options,
            )
            for opponent in evaluation_opponents(config)
        }
        if config.final_eval_games
        else {}
    )
    curve_path = run_dir / "learning_curve.png"
    plot_curve(curve, curve_path, f"{config.env}: {' then '.join(config.stages)}", 1 / num_players)
    summary = {
        "config": asdict(config),
        "train_seconds": round(train_seconds, 1),
        "stage_seconds": stage_seconds,
        "timesteps_per_second": (
            round(config.total_timesteps / stage_seconds["ppo"]) if "ppo" in stage_seconds else None
        ),
        "imitation": imitation,
        "best": best,
        "final_evaluation": {
            opponent: {"score_rate": rate, "ci95": [low, high], "games": config.final_eval_games}
            for opponent, (rate, low, high) in final.items()
        },
        "chance_score_rate": 1 / num_players,
        "learning_curve": curve,
        "model": str(model_path),
        "policy": str(policy_path),
        "learning_curve_png": str(curve_path),
        "tensorboard": str(run_dir / "tensorboard"),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def describe_stage(config: TrainConfig, stage: str) -> str:
    if stage == "imitation":
        settings = config.imitation
        return (
            f"imitation of {settings.teacher} ({settings.states:,} states, then "
            f"{settings.dagger_rounds} DAgger rounds of {settings.dagger_states:,})"
        )
    anchor = f", anchored to the clone ({config.anchor_coef:g})" if config.anchor_coef else ""
    return f"MaskablePPO, {config.total_timesteps:,} timesteps{anchor}"


def run_imitation(
    config: TrainConfig, model: Any, curve: list[dict[str, Any]], progress_bar: bool
) -> list[dict[str, Any]]:
    """Clone the teacher into the model's policy; a point of the curve after every round."""
    from training.imitation import ImitationRound, imitate

    def after_round(report: ImitationRound) -> None:
        point = {"stage": "imitation", "labelled_states": report.labelled_states}
        if config.eval_games > 0:
            point |= curve_point(config, model)
        curve.append(point)
        agreement = ", ".join(
            f"{kind} {share:.1%} ({count:,})" for kind, (share, count) in report.agreement.items()
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

    reports = imitate(
        model.policy,
        config.env,
        config.env_options,
        config.imitation,
        gamma=config.gamma,
        seed=config.seed,
        progress=progress_bar,
        after_round=after_round,
    )
    return [asdict(report) for report in reports]


def run_ppo(
    config: TrainConfig,
    model: Any,
    pool: SelfPlayPool,
    curve: list[dict[str, Any]],
    progress_bar: bool,
) -> dict[str, Any] | None:
    """MaskablePPO, anchored to the clone when `anchor_coef` > 0; with `keep_best`, the model
    ends as the best policy of the curve's points, which this returns (timesteps, score)."""
    extra: list[Any] = []
    if config.anchor_coef > 0:
        model.policy.anchor = Anchor(model.policy, config.anchor_coef)
        extra.append(
            AnchorSchedule(model.policy.anchor, config.anchor_coef, config.anchor_decay_steps)
        )
    keep = None
    if config.keep_best:
        opponent = evaluation_opponents(config)[-1]
        keep = KeepBest(curve, opponent, config.run_dir / "best_model.zip")
        extra.append(keep)
    model.learn(
        config.total_timesteps,
        callback=build_callbacks(config, pool, curve, extra),
        progress_bar=progress_bar,
    )
    if config.anchor_coef > 0:
        model.policy.anchor = None
    if keep is None or keep.best is None:
        return None
    model.set_parameters(str(keep.path))
    return {"timesteps": keep.best_timesteps, "opponent": keep.opponent, "score_rate": keep.best[0]}


def print_summary(summary: dict[str, Any]) -> None:
    config = summary["config"]
    stages = ", ".join(
        f"{stage} {seconds:.0f} s" for stage, seconds in summary["stage_seconds"].items()
    )
    timesteps = (
        f" ({config['total_timesteps']:,} PPO timesteps)" if "ppo" in config["stages"] else ""
    )
    print(f"\n=== {config['env']} {config['env_options'] or ''}: {stages}{timesteps} ===")
    if summary["best"]:
        best = summary["best"]
        print(
            f"kept the policy of timestep {best['timesteps']:,} "
            f"({best['score_rate']:.1%} vs {best['opponent']} at that point of the curve)"
        )
    print(
        f"learner in one seat, opponents in the others; chance score rate "
        f"{summary['chance_score_rate']:.0%}"
    )
    for opponent, result in summary["final_evaluation"].items():
        low, high = result["ci95"]
        verdict = "above chance" if low > summary["chance_score_rate"] else "not above chance"
        print(
            f"vs {opponent:<9} score rate {result['score_rate']:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}, {result['games']} games): {verdict}"
        )
    print(
        f"model: {summary['model']} (the policy alone: {summary['policy']})\n"
        f"learning curve: {summary['learning_curve_png']}\n"
        f"tensorboard: tensorboard --logdir {summary['tensorboard']}"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True, choices=snail_envs.available_env_names())
    parser.add_argument("--config", help="a YAML config (default: configs/<game>/ppo.yaml)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--init-from", metavar="PATH", help="start from a saved policy (the init_from field)"
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="name=value",
        help="override config fields, e.g. total_timesteps=50000",
    )
    args = parser.parse_intermixed_args(argv)
    overrides = [*args.overrides, *([f"init_from={args.init_from}"] if args.init_from else [])]
    try:
        config = load_config(args.env, args.config, overrides)
    except ValueError as problem:
        parser.error(str(problem))
    summary = train(config, progress_bar=not args.no_progress)
    print_summary(summary)
    return summary


if __name__ == "__main__":
    main()
