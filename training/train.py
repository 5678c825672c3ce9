"""Train an agent on one game through the configured stages, then evaluate it.

    snail-train --env snail_sprint_v0
    snail-train --env pedzace_slimaki_v0 total_timesteps=300000 \
        env_options.num_players=3
    snail-train --env snail_sprint_v0 n_envs=256 opponents.self=0
    snail-train --env snail_sprint_v0 batched=false
    snail-train --env snail_sprint_v0 "stages=[ppo]" anchor_coef=0
    snail-train --env snail_sprint_v0 "stages=[ppo]" --init-from RUN_DIR/policy.pt
    snail-train --env pedzace_slimaki_v0 "stages=[imitation, expert_iteration]"
    snail-train --resume runs/snail_sprint_v0-0-1      # continue a stopped run

The hyperparameters and rule options come from `configs/<game>/ppo.yaml` (see
`snail_envs.training.config.TrainConfig` for every field); `name=value` arguments override them. A
run goes through the stages its config names: `imitation` clones a teacher (the game's heuristic by
default) into the network on states of the batched engine (`snail_envs.training.imitation`), `ppo`
trains it with MaskablePPO, from the cloned weights and anchored to them
(`snail_envs.training.finetune`), and `expert_iteration` (after imitation, before or after ppo)
distils the compiled search's visit counts, the search guided by the network, into the network
round after round (`snail_envs.training.expert_iteration`). The learner holds one seat of the
game, drawn anew each episode;
the other seats are played by opponents drawn from the configured mix of random players, the game's
heuristic, and frozen snapshots of the learner itself (self-play). The games run in the batched
engine (`snail_envs.batched`, its learner vector env: random and heuristic opponents are played
inside its kernels, the snapshots answer for all the games waiting on them at once); with
`batched=false`, each game is a `snail_envs.single_agent` view of the Python environment instead.

Each run writes a new folder, `<output_dir>/<env>-<seed>-<n>/` (printed first; a rerun never
mixes into an earlier run's): its config, TensorBoard logs, weights-only checkpoints of the ppo
stage, the clone the ppo stage starts from (the imitation or expert iteration stage's network),
the expert iteration stage's rounds (`expert_iteration/`), the final policy (`ppo:RUN_FOLDER` as
an agent; with `keep_best`, the best of the ppo stage), a learning curve (score rate against
random and heuristic players after every imitation and expert iteration round, at the ppo
stage's start, every `eval_every` timesteps (closer in a short run, for at least five points)
and in the final evaluation at its end; drawn in `learning_curve.png` and TensorBoard at the same
steps) and `summary.json`;
`snail_envs.training.checkpoints` lists them. The final evaluation also keeps its first games
against each opponent as replays (`replays/vs-random-game1.jsonl`, ...: see `snail-replay`). Every
file is written atomically.

Ctrl-C or SIGTERM stops a run cleanly, with its summary and no traceback (a second Ctrl-C stops
at once). In the ppo stage, learning ends after the step under way and a checkpoint is saved;
`--resume RUN_DIR` continues the run from its latest checkpoint. In the imitation stage, the
cloning under way is abandoned and nothing of it is kept: the imitation stage is never resumed
(`--resume` refuses a run stopped there, which has no checkpoint); the run is started anew. The
ppo stage saves a checkpoint at its start when it follows another stage, so that no stop or
crash after that stage costs its work again. In the expert iteration stage, the round under way
is abandoned; the stage saves the network it starts from and every round it finishes, and
`--resume RUN_DIR` continues at the next round (`expert_iteration.rounds=N` adds rounds to a
finished stage).

`--init-from PATH` (the `init_from` field) starts a new run's network from a weights-only policy
saved by an earlier run, before its first stage; the run's config keeps it, and `--resume`
continues from the checkpoint without applying it again.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import random
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents import HEURISTICS, RandomAgent, make_agent
from snail_envs.agents.cli import command_errors, console_script
from snail_envs.agents.files import atomic_path, write_text
from snail_envs.agents.ppo import POLICY_FILE, PPOAgent, load_policy, save_policy
from snail_envs.training.checkpoints import (
    CHECKPOINTS,
    CLONE_FILE,
    CONFIG_FILE,
    Checkpoint,
    Progress,
    latest_checkpoint,
    load_checkpoint,
    new_run_dir,
    read_progress,
    read_run_config,
    restore,
    save_checkpoint,
    set_random_states,
)
from snail_envs.training.config import TrainConfig, describe_fields, load_config, parse_overrides
from snail_envs.training.evaluate import score_against
from snail_envs.training.finetune import (
    BEST_POLICY_FILE,
    Anchor,
    AnchoredPolicy,
    AnchorSchedule,
    KeepBest,
    initial_policy,
)
from snail_envs.training.interrupts import StopRequests


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
        self.rng = np.random.default_rng(seed)
        self._playing: list[Any] = [None] * num_envs

    def begin_episodes(self, games: np.ndarray) -> None:
        for game in games.tolist():
            snapshots = self.pool.snapshots
            self._playing[game] = (
                snapshots[self.rng.integers(len(snapshots))] if snapshots else None
            )

    def __call__(self, observations: np.ndarray, masks: np.ndarray, games: np.ndarray) -> Any:
        actions = np.zeros(games.size, np.int64)
        players: dict[int, list[int]] = {}
        for row, game in enumerate(games.tolist()):
            players.setdefault(id(self._playing[game]), []).append(row)
        for rows in players.values():
            snapshot = self._playing[int(games[rows[0]])]
            if snapshot is None:
                keys = self.rng.random(masks[rows].shape)
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


def make_vec_env(config: TrainConfig, pool: SelfPlayPool, policy: SelfPlayPolicy | None) -> Any:
    """The training games: the batched engine's learner vector env (`policy` plays its "policy"
    seats, the self-play opponents), or with `batched=false` single-agent views of the Python
    environment."""
    from stable_baselines3.common.vec_env import VecMonitor

    if config.batched:
        from snail_envs.batched import make_vec_env as make_batched_vec_env

        opponents = {
            "policy" if kind == "self" else kind: weight
            for kind, weight in config.opponents.items()
            if weight > 0
        }
        try:
            venv = make_batched_vec_env(
                config.env,
                config.n_envs,
                opponents=opponents,
                policy=policy if "policy" in opponents else None,
                **config.env_options,
            )
        except ValueError as problem:
            raise ValueError(
                f"{problem} (batched=false trains on the Python environment instead)"
            ) from problem
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

    return VecMonitor(SingleAgentVecEnv([make(i) for i in range(config.n_envs)]))


def evaluation_opponents(config: TrainConfig) -> list[str]:
    return ["random", "heuristic"] if config.env in HEURISTICS else ["random"]


FINAL_REPLAYS = 3
"""How many games of the final evaluation against each opponent the run keeps as replays."""


def score_rates(
    config: TrainConfig,
    learner: PPOAgent,
    games: int,
    seed: int,
    run_dir: Path | None = None,
    after_game: Callable[[], None] | None = None,
) -> dict[str, tuple[float, float, float]]:
    """The learner's score rate (with its 95% interval) against each evaluation opponent. With
    `run_dir`, the first `FINAL_REPLAYS` games against each are kept in its `replays/` folder,
    the learner named `ppo:RUN_DIR` (its final policy). `after_game` is called after each game
    (a progress bar's tick)."""
    return {
        opponent: score_against(
            config.env,
            learner,
            opponent,
            games,
            seed=seed,
            options=config.env_options,
            name="player" if run_dir is None else f"ppo:{run_dir}",
            replays=None if run_dir is None else run_dir / "replays",
            replay_games=FINAL_REPLAYS,
            after_game=after_game,
        )
        for opponent in evaluation_opponents(config)
    }


MIN_CURVE_POINTS = 5
"""The fewest points a ppo stage's learning curve has: its start, the points between, its end."""


def evaluation_interval(config: TrainConfig) -> int:
    """Timesteps between two points of the ppo stage's curve: `eval_every`, shortened where the
    run is too short for `MIN_CURVE_POINTS` points (at step 0, every interval, and the final
    evaluation at the end)."""
    return max(1, min(config.eval_every, config.total_timesteps // (MIN_CURVE_POINTS - 1)))


class Display:
    """The run's progress on the terminal, one display for all of it: a bar of the ppo stage's
    timesteps, and below it a bar of the games of each evaluation while it runs (the final
    evaluation's bar stays). Disabled, it shows nothing."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._training: Any = None

    @contextlib.contextmanager
    def training(self, total: int, done: int) -> Iterator[Callable[[int], None]]:
        """A bar of the timesteps from `done` to `total`; yields the function that moves it to
        a number of timesteps."""
        from tqdm.auto import tqdm

        bar = tqdm(total=total, initial=done, desc="ppo", unit="step", disable=not self.enabled)
        self._training = bar

        def advance(timesteps: int) -> None:
            bar.update(min(timesteps, total) - bar.n)

        try:
            yield advance
        finally:
            self._training = None
            bar.close()

    @contextlib.contextmanager
    def evaluation(self, description: str, games: int, final: bool = False) -> Iterator[Any]:
        """A bar of `games` games (below the training bar while it shows); yields its tick."""
        from tqdm.auto import tqdm

        bar = tqdm(
            total=games,
            desc=description,
            unit="game",
            position=0 if self._training is None else 1,
            leave=final,
            disable=not self.enabled,
        )
        try:
            yield lambda: bar.update(1)
        finally:
            bar.close()


COUNTS = {"imitation": "labelled_states", "expert_iteration": "searched_states", "ppo": "timesteps"}
"""What the points of each stage count on the learning curve's one axis."""
UNITS = {
    "imitation": "labelled states",
    "expert_iteration": "searched states",
    "ppo": "learner timesteps",
}


def curve_stages(curve: list[dict[str, Any]]) -> tuple[list[int], list[tuple[int, str]]]:
    """Where each point of a learning curve lies on its one axis, and where each stage after
    the first starts there. Each stage's points lie at their own count (`COUNTS`: the imitation
    rounds' labelled states, the expert iteration rounds' searched states, the ppo stage's
    timesteps) after the counts the stages before it ended at (the ppo stage's at the
    timesteps of the points after it); the final evaluation's at the ppo stage's timesteps, or
    at the end of the axis if it lies further."""
    order: list[str] = []
    ends: dict[str, int] = {}
    steps: list[int] = []
    starts: list[tuple[int, str]] = []

    def offset(stage: str) -> int:
        before = order[: order.index(stage)] if stage in order else order
        return sum(ends[other] for other in before)

    for point in curve:
        stage = point["stage"]
        if "ppo" in order and "timesteps" in point:
            ends["ppo"] = max(ends["ppo"], point["timesteps"])
        if stage == "final":
            if "ppo" not in order and point["timesteps"] > 0:
                starts.append((offset("ppo"), "ppo"))
            steps.append(max([offset("ppo") + point["timesteps"], *steps]))
            continue
        if stage not in order:
            if order:
                starts.append((offset(stage), stage))
            order.append(stage)
        count = point[COUNTS[stage]]
        ends[stage] = max(ends.get(stage, 0), count)
        steps.append(offset(stage) + count)
    return steps, starts


def curve_steps(curve: list[dict[str, Any]]) -> list[int]:
    """Where each point of a learning curve lies on its one axis (`curve_stages`)."""
    return curve_stages(curve)[0]


class LearningCurve:
    """The run's learning curve: its points (`Progress.learning_curve`), each also written to
    TensorBoard (`eval/score_vs_<opponent>`, in `<run>/tensorboard/eval`) at the step where the
    PNG draws it (`curve_steps`)."""

    def __init__(self, points: list[dict[str, Any]], folder: Path) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.points = points
        self._writer = SummaryWriter(str(folder / "eval"))

    def add(self, point: dict[str, Any]) -> None:
        self.points.append(point)
        step = curve_steps(self.points)[-1]
        for opponent, value in point.items():
            if opponent not in CURVE_KEYS:
                self._writer.add_scalar(f"eval/score_vs_{opponent}", value[0], step)
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def evaluate_point(
    config: TrainConfig, learner: PPOAgent, display: Display, where: str
) -> dict[str, tuple[float, float, float]]:
    """The score rates of one point of the learning curve (`eval_games` against each
    opponent), with a bar of its games described by `where`."""
    games = config.eval_games * len(evaluation_opponents(config))
    with display.evaluation(f"evaluation at {where}", games) as tick:
        return score_rates(config, learner, config.eval_games, 10**7, after_game=tick)


def build_callbacks(
    config: TrainConfig,
    pool: SelfPlayPool,
    progress: Progress,
    curve: LearningCurve,
    display: Display,
    checkpoint: Callable[[Any], Path],
    stop: StopRequests,
    extra: Sequence[Any] = (),
) -> Any:
    """The ppo stage's callbacks: self-play snapshots and the learning curve when `progress`
    says they are due, then `extra` (which see each new point of the curve), checkpoints when
    due, the end of learning when a stop is requested, and the training bar of `display`."""
    from stable_baselines3.common.callbacks import BaseCallback, CallbackList

    interval = evaluation_interval(config)

    class Snapshots(BaseCallback):
        """Adds the learner's policy to the self-play pool at the start (of a run whose pool is
        still empty) and every `self_play_every` steps."""

        def _on_training_start(self) -> None:
            if not pool.snapshots:
                pool.add(self.model.policy)

        def _on_step(self) -> bool:
            if self.num_timesteps >= progress.next_snapshot:
                pool.add(self.model.policy)
                progress.next_snapshot += config.self_play_every
            return True

    class CurvePoints(BaseCallback):
        """Scores the learner against each evaluation opponent at the stage's start (unless
        the last round of the stage before has just scored the same policy, at the same place
        on the curve) and every `evaluation_interval` steps before its end, where the final
        evaluation takes over (games a stop request abandons: the point is measured again when
        the run resumes)."""

        def _on_training_start(self) -> None:
            if self.model.num_timesteps < progress.next_evaluation:
                return
            if curve.points and curve.points[-1]["stage"] in ("imitation", "expert_iteration"):
                progress.next_evaluation += interval
            else:
                self.measure()

        def _on_step(self) -> bool:
            due = progress.next_evaluation <= self.num_timesteps < config.total_timesteps
            return self.measure() if due else True

        def measure(self) -> bool:
            if config.eval_games > 0:
                try:
                    with stop.abandonable():
                        at = f"{self.model.num_timesteps:,}"
                        rates = evaluate_point(config, PPOAgent(self.model), display, at)
                except KeyboardInterrupt:
                    return False
                curve.add({"stage": "ppo", "timesteps": self.model.num_timesteps, **rates})
            while progress.next_evaluation <= self.model.num_timesteps:
                progress.next_evaluation += interval
            return True

    class Checkpoints(BaseCallback):
        """Saves a checkpoint every `checkpoint_every` steps."""

        def _on_step(self) -> bool:
            if self.num_timesteps >= progress.next_checkpoint:
                progress.next_checkpoint += config.checkpoint_every
                checkpoint(self.model)
            return True

    class StopOnRequest(BaseCallback):
        """Ends learning at the first step after a stop request (SIGINT, SIGTERM)."""

        def _on_step(self) -> bool:
            return not stop.requested

    class TrainingBar(BaseCallback):
        """Moves the display's training bar to the timesteps learnt."""

        def __init__(self, advance: Callable[[int], None]) -> None:
            super().__init__()
            self.advance = advance

        def _on_step(self) -> bool:
            self.advance(self.num_timesteps)
            return True

    def callbacks(advance: Callable[[int], None]) -> Any:
        return CallbackList(
            [
                Snapshots(),
                CurvePoints(),
                *extra,
                Checkpoints(),
                StopOnRequest(),
                TrainingBar(advance),
            ]
        )

    return callbacks


CURVE_KEYS = ("stage", "timesteps", "labelled_states", "searched_states")
"""The keys of a learning curve's point that are not opponents."""


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str, chance: float) -> None:
    """Draw the learning curve to `path` (atomically): each stage's points by its own count,
    after the stages before it (`curve_stages`; a line where each stage starts), the final
    evaluation's as a star; an opponent's line joins the points that measured it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    steps, starts = curve_stages(curve)
    opponents = list(dict.fromkeys(k for point in curve for k in point if k not in CURVE_KEYS))
    for opponent in opponents:
        measured = [index for index, point in enumerate(curve) if opponent in point]
        at = [steps[index] for index in measured]
        rates = np.array([curve[index][opponent] for index in measured])
        (line,) = axes.plot(at, rates[:, 0], marker="o", label=f"vs {opponent}")
        axes.fill_between(at, rates[:, 1], rates[:, 2], alpha=0.2, color=line.get_color())
        finals = [row for row, index in enumerate(measured) if curve[index]["stage"] == "final"]
        axes.plot(
            [at[row] for row in finals],
            rates[finals, 0],
            marker="*",
            markersize=14,
            linestyle="none",
            color=line.get_color(),
            label="final evaluation" if opponent == opponents[-1] and finals else None,
        )
    axes.axhline(chance, color="grey", linestyle="--", label=f"chance ({chance:.0%})")
    stages = [point["stage"] for point in curve if point["stage"] != "final"][:1]
    stages += [stage for _, stage in starts]
    for (step, stage), before in zip(starts, stages, strict=False):
        axes.axvline(step, color="black", linewidth=0.8)
        axes.text(step, 0.97, f" {before} | {stage} ", ha="center", va="top", fontsize=8)
    if len(stages) > 1:
        label = ", then ".join(f"{UNITS[stage]} ({stage})" for stage in stages)
        axes.set_xlabel(label, fontsize=8 if len(stages) > 2 else None)
    else:
        axes.set_xlabel(UNITS[stages[0]] if stages else "learner timesteps")
    axes.set_ylabel("score rate (win 1, shared ½), 95% CI")
    axes.set_ylim(0, 1)
    axes.set_xlim(left=0)
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    with atomic_path(path, overwrite=True) as temporary:
        figure.savefig(temporary, dpi=100)
    plt.close(figure)


def train(config: TrainConfig, progress_bar: bool = True) -> dict[str, Any]:
    """Run one training job in a new run folder (printed first); returns its summary (also
    written to summary.json). A stop request (Ctrl-C, SIGTERM) ends the run cleanly and saves
    the summary (`"interrupted"` names the signal, `"stopped_in"` the stage it cut short) and
    skips the final evaluation; the module docstring says what each stage keeps."""
    run_dir = new_run_dir(config.output_dir, f"{config.env}-{config.seed}")
    print(f"run folder: {run_dir}", flush=True)
    write_text(run_dir / CONFIG_FILE, json.dumps(asdict(config), indent=2) + "\n")
    return run(config, run_dir, None, progress_bar)


RESUMABLE = (
    "total_timesteps",
    "eval_every",
    "eval_games",
    "final_eval_games",
    "checkpoint_every",
    "torch_threads",
    "expert_iteration.rounds",
)
"""The fields a resumed run may change (`--resume RUN_DIR total_timesteps=2000000`,
`expert_iteration.rounds=5`): none that would make the checkpoint's model, opponents or games
another run's."""


def resume(
    run_dir: str | Path, overrides: Sequence[str] = (), progress_bar: bool = True
) -> dict[str, Any]:
    """Continue the run in `run_dir` in the stage it stopped in.

    In the ppo stage, from its latest checkpoint: the policy and its optimizer's state, the
    timesteps and updates, the self-play pool, the random generators, the anchor to the clone,
    the best policy so far (`keep_best`), the learning curve, the earlier stages' reports and
    the TensorBoard logs go on where they stopped. The games under way then are not kept: new
    ones are dealt (from a seed of the run's seed and timesteps). A larger `total_timesteps`
    trains a finished ppo stage further (unless a stage after it has begun).

    In the expert iteration stage, at the round after the last one it finished (or its first),
    from that round's network (`expert_iteration/round_<k>.pt`), with the states of the rounds
    it trains on, its reports and the run's progress (`expert_iteration/state.json`); the round
    under way when it stopped is done anew, as it would have been (each round's games, search
    and distillation are seeded by the run's seed and the round). A larger
    `expert_iteration.rounds` adds rounds to a finished stage, unless the ppo stage after it
    has begun. A state of another game, rule options or settings, or a missing round file, is
    refused with a `ValueError` or `FileNotFoundError` that names it.

    Then the stages after it run as in a new run. `overrides` may change the fields in
    `RESUMABLE`. A run stopped in its imitation stage has nothing saved and is refused: the
    imitation stage is never resumed, a new run starts it anew."""
    from snail_envs.training.expert_iteration import RoundStore

    run_dir = Path(run_dir)
    given = parse_overrides(overrides)
    for name, (_, text) in given.items():
        if name not in RESUMABLE:
            raise ValueError(
                f"command line, {text}: a resumed run keeps its config; only "
                f"{', '.join(RESUMABLE)} may change"
            )
    saved = read_run_config(run_dir)
    config = load_config(saved["env"], run_dir / CONFIG_FILE, overrides)
    stages = config.stages
    store = RoundStore(run_dir, config.env, config.env_options)
    expert = None
    if "expert_iteration" in stages and store.exists():
        expert = store.load_state(config.expert_iteration)
    checkpoints = sorted((run_dir / CHECKPOINTS).glob("step_*"))
    in_expert = expert is not None and (
        "ppo" not in stages
        or not checkpoints
        or stages.index("expert_iteration") > stages.index("ppo")
    )
    if "expert_iteration.rounds" in given and not in_expert:
        raise ValueError(
            f"command line, {given['expert_iteration.rounds'][1]}: only a run stopped in (or "
            "ended with) its expert_iteration stage can do more rounds"
        )
    if in_expert:
        assert expert is not None
        rounds = config.expert_iteration.rounds
        if expert.rounds_done >= rounds and stages[-1] == "expert_iteration":
            raise ValueError(
                f"{run_dir} has done {expert.rounds_done} rounds of its expert_iteration stage, "
                f"of its expert_iteration.rounds={rounds}; give a larger "
                "expert_iteration.rounds=N to do more"
            )
        print(
            f"resuming {run_dir} in its expert_iteration stage after round "
            f"{expert.rounds_done} of {rounds}",
            flush=True,
        )
        if overrides:
            write_text(run_dir / CONFIG_FILE, json.dumps(asdict(config), indent=2) + "\n", True)
        return run(config, run_dir, None, progress_bar, expert)
    folder = latest_checkpoint(run_dir, stages)
    checkpoint = load_checkpoint(folder, config.env)
    done = checkpoint.progress.timesteps
    if done >= config.total_timesteps and stages[-1] == "ppo":
        raise ValueError(
            f"{run_dir} has trained {done:,} of its total_timesteps={config.total_timesteps}; "
            "give a larger total_timesteps=N to train on"
        )
    print(f"resuming {run_dir} at {done:,} timesteps ({folder.name})", flush=True)
    if overrides:
        write_text(run_dir / CONFIG_FILE, json.dumps(asdict(config), indent=2) + "\n", True)
    return run(config, run_dir, checkpoint, progress_bar)


def run(
    config: TrainConfig,
    run_dir: Path,
    checkpoint: Checkpoint | None,
    progress_bar: bool,
    expert: Any = None,
) -> dict[str, Any]:
    """Train in `run_dir` through the config's stages, from the start, or from `checkpoint` on
    in the ppo stage (after it, if it had finished), or from `expert` on in the expert
    iteration stage (its `StageState`), to their end or a stop request; then save the final
    policy (unless stopped in the imitation stage, or in a first expert iteration stage before
    a round ended), the learning curve and the summary, and evaluate the policy (unless
    stopped)."""
    import torch
    from sb3_contrib import MaskablePPO

    from snail_envs.training.expert_iteration import RoundStore

    torch.set_num_threads(config.torch_threads)
    pool = SelfPlayPool(config.self_play_pool)
    self_play = (
        SelfPlayPolicy(pool, config.n_envs, config.seed)
        if config.batched and config.opponents.get("self", 0) > 0
        else None
    )
    venv = make_vec_env(config, pool, self_play)
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
    progress = Progress.start(config)
    skipped = 0
    """The stages before the one the run starts at (resumed: those that had finished)."""
    if checkpoint is not None:
        progress = checkpoint.progress
        restore(checkpoint, model, pool)
        games = np.random.SeedSequence([config.seed, progress.timesteps]).generate_state(1)
        assert model.env is not None  # the model was built on venv
        model.env.seed(int(games[0]))
        set_random_states(checkpoint.generators)
        if self_play is not None and "self_play" in checkpoint.generators:
            self_play.rng.bit_generator.state = checkpoint.generators["self_play"]
        skipped = config.stages.index("ppo") + (progress.timesteps >= config.total_timesteps)
    elif expert is not None:
        progress = read_progress(expert.progress, f"{run_dir}'s expert_iteration state")
        skipped = config.stages.index("expert_iteration")
    elif config.init_from:
        start_from(config, model, run_dir)
    store = RoundStore(run_dir, config.env, config.env_options)
    expert_reports: list[dict[str, Any]] = []
    if expert is not None:
        expert_reports = list(expert.reports)
    elif checkpoint is not None and "expert_iteration" in config.stages and store.exists():
        expert_reports = store.load_state(config.expert_iteration).reports

    display = Display(progress_bar)
    curve = LearningCurve(progress.learning_curve, run_dir / "tensorboard")
    with StopRequests() as stop, contextlib.closing(curve):
        policy: Any = None  # the run's policy once a stage has finished it
        last: Path | None = None
        stopped_in: str | None = None
        for number, stage in enumerate(config.stages, start=1):
            if number <= skipped:  # finished before the run was resumed
                if stage == "ppo":
                    last = latest_checkpoint(run_dir, config.stages)
                    best = run_dir / BEST_POLICY_FILE
                    if config.keep_best and best.is_file():
                        model.policy.load_state_dict(load_policy(best, config.env).state_dict())
                policy = model.policy
                continue
            print(
                f"=== stage {number}/{len(config.stages)}: {describe_stage(config, stage)} ===",
                flush=True,
            )
            if stage == "imitation":
                if not run_imitation(config, model, progress, curve, display, stop):
                    stopped_in = stage
                    break
                policy = model.policy
            elif stage == "expert_iteration":
                finished, expert_reports = run_expert_iteration(
                    config,
                    run_dir,
                    model,
                    progress,
                    curve,
                    display,
                    stop,
                    expert if number == skipped + 1 else None,
                )
                if finished or expert_reports or policy is not None:
                    policy = model.policy
                if not finished:
                    stopped_in = stage
                    break
            else:
                last, policy = run_ppo(
                    config,
                    run_dir,
                    model,
                    pool,
                    self_play,
                    progress,
                    curve,
                    display,
                    checkpoint,
                    stop,
                )
                if stop.requested and progress.timesteps < config.total_timesteps:
                    stopped_in = stage
                    break
                if number < len(config.stages) and policy is not model.policy:
                    model.policy.load_state_dict(policy.state_dict())  # the next stage's start
                    policy = model.policy
            if config.stages[number : number + 1] == ["ppo"]:  # the ppo stage's start, its anchor
                save_policy(
                    run_dir / CLONE_FILE, policy, config.env, config.env_options, overwrite=True
                )
        policy_path = None
        if policy is not None:
            policy_path = save_policy(
                run_dir / POLICY_FILE, policy, config.env, config.env_options, overwrite=True
            )
        final: dict[str, tuple[float, float, float]] = {}
        if policy is not None and config.final_eval_games and not stop.requested:
            final_games = config.final_eval_games * len(evaluation_opponents(config))
            with (
                contextlib.suppress(KeyboardInterrupt),
                stop.abandonable(),
                display.evaluation("final evaluation", final_games, final=True) as tick,
            ):
                final = score_rates(
                    config, PPOAgent(policy), config.final_eval_games, 2 * 10**7, run_dir, tick
                )
            if final:
                curve.add({"stage": "final", "timesteps": progress.timesteps, **final})
        num_players = len(snail_envs.make(config.env, **config.env_options).possible_agents)
        curve_path = run_dir / "learning_curve.png"
        title = f"{config.env}: {' then '.join(config.stages)}"
        plot_curve(progress.learning_curve, curve_path, title, 1 / num_players)
        ppo_seconds = progress.stage_seconds.get("ppo")
        rate = round(progress.timesteps / ppo_seconds) if ppo_seconds else None
        summary = {
            "config": asdict(config),
            "run_dir": str(run_dir),
            "timesteps": progress.timesteps,
            "interrupted": stop.signal,
            "stopped_in": stopped_in,
            "train_seconds": round(progress.train_seconds, 1),
            "stage_seconds": {name: round(s, 1) for name, s in progress.stage_seconds.items()},
            "timesteps_per_second": rate,
            "imitation": progress.imitation,
            "expert_iteration": expert_reports,
            "best": progress.best,
            "final_evaluation": {
                opponent: {
                    "score_rate": rate,
                    "ci95": [low, high],
                    "games": config.final_eval_games,
                }
                for opponent, (rate, low, high) in final.items()
            },
            "chance_score_rate": 1 / num_players,
            "learning_curve": progress.learning_curve,
            "checkpoint": None if last is None else str(last),
            "policy": None if policy_path is None else str(policy_path),
            "learning_curve_png": str(curve_path),
            "tensorboard": str(run_dir / "tensorboard"),
            "replays": str(run_dir / "replays") if final else None,
        }
        write_text(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n", True)
    return summary


def start_from(config: TrainConfig, model: Any, run_dir: Path) -> None:
    """Give `model` the weights of the policy at `config.init_from` (a new run's, before its
    first stage). Without an imitation stage, an anchored ppo stage starts from that policy: it
    is kept as the run's clone, the anchor of the stage when resumed. A resumed run never calls
    this: its checkpoint holds the weights."""
    assert config.init_from is not None
    saved = initial_policy(config.init_from, config.env, config.env_options, config.net_arch)
    model.policy.load_state_dict(saved.state_dict())
    if "imitation" not in config.stages and config.anchor_coef > 0:
        save_policy(run_dir / CLONE_FILE, model.policy, config.env, config.env_options)


@contextlib.contextmanager
def timing(progress: Progress, stage: str) -> Iterator[Callable[[], None]]:
    """Count the time of the block as `stage`'s in `progress` (`Progress.spend`): whenever the
    function it yields is called (before a checkpoint records the time), and when it ends."""
    last = time.perf_counter()

    def count() -> None:
        nonlocal last
        now = time.perf_counter()
        progress.spend(stage, now - last)
        last = now

    try:
        yield count
    finally:
        count()


def describe_stage(config: TrainConfig, stage: str) -> str:
    """What the stage `stage` of the run will do, in a line."""
    if stage == "imitation":
        settings = config.imitation
        return (
            f"imitation of {settings.teacher} ({settings.states:,} states, then "
            f"{settings.dagger_rounds} DAgger rounds of {settings.dagger_states:,})"
        )
    if stage == "expert_iteration":
        expert = config.expert_iteration
        guide = "PUCT, the network as prior" if expert.prior else "UCB1"
        return (
            f"expert iteration, {expert.rounds} rounds of {expert.states:,} states searched "
            f"({expert.iterations} iterations each, {guide}, value {expert.value}; the learner "
            f"played by the {expert.play}), distilled {expert.epochs} epochs"
        )
    anchor = f", anchored to the clone ({config.anchor_coef:g})" if config.anchor_coef else ""
    return f"MaskablePPO, {config.total_timesteps:,} timesteps{anchor}"


def run_imitation(
    config: TrainConfig,
    model: Any,
    progress: Progress,
    curve: LearningCurve,
    display: Display,
    stop: StopRequests,
) -> bool:
    """Clone the teacher into the model's policy; after every round, a point of the learning
    curve and the round's report in `progress`. A stop request abandons the cloning at once
    (the policy is then half-cloned: the caller keeps nothing of it); returns whether the stage
    finished."""
    from snail_envs.training.imitation import ImitationRound, imitate

    def after_round(report: ImitationRound) -> None:
        point: dict[str, Any] = {"stage": "imitation", "labelled_states": report.labelled_states}
        if config.eval_games > 0:
            where = f"round {report.round}"
            point |= evaluate_point(config, PPOAgent(model), display, where)
        curve.add(point)
        progress.imitation.append(asdict(report))
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

    with timing(progress, "imitation"):
        try:
            with stop.abandonable():
                imitate(
                    model.policy,
                    config.env,
                    config.env_options,
                    config.imitation,
                    gamma=config.gamma,
                    seed=config.seed,
                    progress=display.enabled,
                    after_round=after_round,
                )
        except KeyboardInterrupt:
            if not stop.requested:
                raise
            return False
    return True


def run_expert_iteration(
    config: TrainConfig,
    run_dir: Path,
    model: Any,
    progress: Progress,
    curve: LearningCurve,
    display: Display,
    stop: StopRequests,
    state: Any = None,
) -> tuple[bool, list[dict[str, Any]]]:
    """The expert iteration stage: rounds of search and distillation into the model's policy,
    from the start or, resumed, after the rounds of `state` (a
    `snail_envs.training.expert_iteration.StageState`, whose last round's network the policy
    takes). It saves the network it starts from, and after every round the network, the round's
    states and the stage's state (`RoundStore`), then adds a point to the learning curve and the
    round's report. A stop request abandons the round under way and puts the network of the
    last round finished back. Returns whether the stage finished, and its reports so far."""
    from snail_envs.training.expert_iteration import (
        ExpertIterationRound,
        RoundStore,
        StageState,
        expert_iteration,
        kept_rounds,
    )

    settings = config.expert_iteration
    store = RoundStore(run_dir, config.env, config.env_options)
    reports: list[dict[str, Any]] = [] if state is None else list(state.reports)

    def save(done: int, data: Any = None, policy: Any = None) -> None:
        stage = StageState(rounds_done=done, reports=reports, progress=asdict(progress))
        store.save(stage, settings, policy, data)

    def add_point(report: dict[str, Any]) -> dict[str, Any]:
        point: dict[str, Any] = {
            "stage": "expert_iteration",
            "searched_states": report["searched_states"],
            "timesteps": progress.timesteps,
        }
        if config.eval_games > 0:
            point |= evaluate_point(config, PPOAgent(model), display, f"round {report['round']}")
        curve.add(point)
        return point

    done = 0 if state is None else state.rounds_done
    with timing(progress, "expert_iteration") as count:
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
            agreement = ", ".join(
                f"{kind} {share:.1%} ({n:,})" for kind, (share, n) in report.agreement.items()
            )
            kl = "" if report.kl is None else f", KL(search ‖ network) {report.kl:.3f}"
            scores = "".join(
                f"; vs {opponent} {point[opponent][0]:.1%}"
                for opponent in evaluation_opponents(config)
                if opponent in point
            )
            rate = report.states / max(report.search_seconds, 1e-9)
            print(
                f"round {report.round}: {report.states:,} states searched ({rate:,.1f}/s), "
                f"loss {report.loss:.3f}; the network played the search's choice "
                f"{report.prior_agreement:.1%} before distilling; held-out agreement: "
                f"{agreement or 'none held out'}{kl}{scores}",
                flush=True,
            )

        try:
            with stop.abandonable():
                if reports and not any(
                    point["stage"] == "expert_iteration"
                    and point["searched_states"] == reports[-1]["searched_states"]
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


def run_ppo(
    config: TrainConfig,
    run_dir: Path,
    model: Any,
    pool: SelfPlayPool,
    self_play: SelfPlayPolicy | None,
    progress: Progress,
    curve: LearningCurve,
    display: Display,
    checkpoint: Checkpoint | None,
    stop: StopRequests,
) -> tuple[Path, Any]:
    """The ppo stage: MaskablePPO to `total_timesteps` or a stop request, on from `checkpoint`
    when resumed, anchored to the clone when `anchor_coef` > 0, with checkpoints when due, at
    its end, and at its start when it follows another stage. Returns the last checkpoint and the
    stage's policy: the last one, or with `keep_best` the best of the curve's points (whose
    record is `progress.best`)."""
    extra: list[Any] = []
    if config.anchor_coef > 0:
        clone = (
            model.policy if checkpoint is None else load_policy(run_dir / CLONE_FILE, config.env)
        )
        model.policy.anchor = Anchor(clone, config.anchor_coef)
        extra.append(
            AnchorSchedule(model.policy.anchor, config.anchor_coef, config.anchor_decay_steps)
        )
    keep = None
    if config.keep_best:
        opponent = evaluation_opponents(config)[-1]
        path = run_dir / BEST_POLICY_FILE
        keep = KeepBest(
            progress.learning_curve, opponent, path, config.env, config.env_options, progress.best
        )
        extra.append(keep)

    with timing(progress, "ppo") as count:

        def save(model: Any) -> Path:
            progress.timesteps, progress.updates = model.num_timesteps, model._n_updates
            progress.best = None if keep is None else keep.best
            count()
            own = {"self_play": self_play.rng.bit_generator.state} if self_play is not None else {}
            return save_checkpoint(run_dir, config, model, pool.snapshots, progress, own)

        if checkpoint is None and config.stages.index("ppo") > 0:
            save(model)
        callbacks = build_callbacks(config, pool, progress, curve, display, save, stop, extra)
        with display.training(config.total_timesteps, progress.timesteps) as advance:
            model.learn(
                config.total_timesteps - progress.timesteps,
                callback=callbacks(advance),
                reset_num_timesteps=checkpoint is None,
            )
        last = save(model)
    if config.anchor_coef > 0:
        model.policy.anchor = None
    if keep is not None and keep.best is not None:
        return last, load_policy(keep.path, config.env)
    return last, model.policy


def print_summary(summary: dict[str, Any]) -> None:
    """The run's summary (from `train`, `resume`), for people."""
    config = summary["config"]
    stages = ", ".join(
        f"{stage} {seconds:.0f} s" for stage, seconds in summary["stage_seconds"].items()
    )
    rate = summary["timesteps_per_second"]
    timesteps = f" ({summary['timesteps']:,} PPO timesteps, {rate:,}/s)" if rate else ""
    print(f"\n=== {config['env']} {config['env_options'] or ''}: {stages}{timesteps} ===")
    if summary.get("expert_iteration"):
        last = summary["expert_iteration"][-1]
        share = last["agreement"].get("all", [None])[0]
        agreed = "" if share is None else f", held-out agreement with the search {share:.1%}"
        print(
            f"expert iteration: {last['round']} rounds, {last['searched_states']:,} states "
            f"searched{agreed}"
        )
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
    if summary["policy"]:
        print(f"policy: {summary['policy']} (as an agent: ppo:{summary['run_dir']})")
    if summary["checkpoint"]:
        print(f"checkpoint: {summary['checkpoint']}")
    print(
        f"learning curve: {summary['learning_curve_png']}\n"
        f"tensorboard: tensorboard --logdir {summary['tensorboard']}"
    )


def fields_help(width: int = 79) -> str:
    """Every config field for `--help`: its name, type, default and documentation."""
    heading = (
        "config fields, set by name=value (the defaults are "
        "snail_envs.training.config.TrainConfig's; configs/<game>/ppo.yaml, which a new run reads "
        "first, sets some of its own):"
    )
    lines = textwrap.wrap(heading, width)
    for name, kind, default, doc in describe_fields(TrainConfig):
        lines.append(f"  {name} ({kind}{f', default {default}' if default else ''})")
        lines += textwrap.wrap(doc, width, initial_indent=" " * 6, subsequent_indent=" " * 6)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    stopping = (
        "Ctrl-C or SIGTERM stops a run cleanly, with its summary: in the ppo stage after the "
        "step under way, with a checkpoint that --resume RUN_DIR continues from; in the "
        "expert_iteration stage at once, abandoning the round under way (--resume RUN_DIR "
        "continues at that round); in the imitation stage at once, keeping nothing of the "
        "cloning (start the run anew). Checkpoints hold weights only."
    )
    parser = argparse.ArgumentParser(
        prog="snail-train",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{fields_help()}\n\n{textwrap.fill(stopping, 79)}",
    )
    parser.add_argument(
        "--env",
        choices=snail_envs.available_env_names(),
        help="the game (required unless --resume)",
    )
    parser.add_argument(
        "--config",
        help="a YAML config (default: configs/<game>/ppo.yaml); one that does not exist is an "
        "error",
    )
    parser.add_argument(
        "--resume",
        metavar="RUN_DIR",
        type=Path,
        help="continue the run in RUN_DIR from its latest checkpoint: optimizer, timesteps, "
        f"self-play pool, random generators, TensorBoard step (name=value may change only "
        f"{', '.join(RESUMABLE)})",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--init-from",
        metavar="PATH",
        help="start a new run from a saved weights-only policy (the init_from field)",
    )
    parser.add_argument(
        "overrides",
        nargs="*",
        metavar="name=value",
        help="override config fields, e.g. total_timesteps=50000; each run writes a new folder "
        "<output_dir>/<env>-<seed>-<n>",
    )
    args = parser.parse_intermixed_args(argv)
    if args.resume is None and args.env is None:
        parser.error("give --env (a new run) or --resume RUN_DIR")
    if args.resume is not None and (args.env or args.config):
        parser.error("--resume continues a run with its own game and config: no --env, --config")
    if args.resume is not None and args.init_from:
        parser.error("--init-from starts a new run; --resume continues one: give one of them")
    with command_errors(parser.prog):
        if args.resume is not None:
            summary = resume(args.resume, args.overrides, progress_bar=not args.no_progress)
        else:
            init = [f"init_from={args.init_from}"] if args.init_from else []
            config = load_config(args.env, args.config, [*args.overrides, *init])
            summary = train(config, progress_bar=not args.no_progress)
    print_summary(summary)
    if summary["interrupted"]:
        if summary["stopped_in"] == "imitation":
            where = (
                "in the imitation stage, which is not resumed: nothing of it is kept; run the "
                "same command again to start anew"
            )
        elif summary["stopped_in"] == "expert_iteration":
            done = len(summary["expert_iteration"])
            rounds = summary["config"]["expert_iteration"]["rounds"]
            saved = "before its first round ended (its start saved)"
            if done:
                saved = f"after {done} of its {rounds} rounds, each saved"
            where = (
                f"in the expert_iteration stage {saved}; continue with: snail-train --resume "
                f"{summary['run_dir']}"
            )
        elif summary["stopped_in"] == "ppo":
            where = (
                f"at {summary['timesteps']:,} timesteps, checkpoint saved; continue with: "
                f"snail-train --resume {summary['run_dir']}"
            )
        else:
            where = "after training: the final evaluation was skipped"
        print(f"{parser.prog}: stopped by {summary['interrupted']} {where}", file=sys.stderr)
        raise SystemExit(128 + signal.Signals[summary["interrupted"]].value)
    return summary


script = console_script(main)
"""The entry point of the `snail-train` console script."""

if __name__ == "__main__":
    main()
