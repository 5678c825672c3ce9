"""The run's learning curve: the learner's score rate against the evaluation opponents at
points of every stage, on one axis, in TensorBoard and in `learning_curve.png`.

Each stage's points count its own work (`Stage.count`: the imitation rounds' labelled states,
the expert iteration rounds' searched states, the ppo stage's timesteps) and lie after the
counts the stages before it ended at (`curve_stages`); the final evaluation's point (`FINAL`) is
a star at the end. Every point also carries the run's learner timesteps so far.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from snail_envs.agents import HEURISTICS
from snail_envs.agents.files import atomic_path
from snail_envs.agents.ppo import PPOAgent
from snail_envs.training.config import TrainConfig
from snail_envs.training.display import Display
from snail_envs.training.evaluate import score_against

FINAL = "final"
"""The stage named by the final evaluation's point."""
TIMESTEPS = "timesteps"
"""The count every point carries: the learner's timesteps so far."""


def evaluation_opponents(config: TrainConfig) -> list[str]:
    """Random, the heuristic where the game has one, and the run's `target` last, if any."""
    opponents = ["random", "heuristic"] if config.env in HEURISTICS else ["random"]
    if config.target and config.target not in opponents:
        opponents.append(config.target)
    elif config.target:
        opponents.append(opponents.pop(opponents.index(config.target)))
    return opponents


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


def evaluate_point(
    config: TrainConfig, learner: PPOAgent, display: Display, where: str
) -> dict[str, tuple[float, float, float]]:
    """The score rates of one point of the learning curve (`eval_games` against each
    opponent), with a bar of its games described by `where`."""
    games = config.eval_games * len(evaluation_opponents(config))
    with display.evaluation(f"evaluation at {where}", games) as tick:
        return score_rates(config, learner, config.eval_games, 10**7, after_game=tick)


def stage_counts() -> dict[str, str]:
    """What the points of each stage count on the learning curve's one axis (`Stage.count`)."""
    # imported here: the stages import this module
    from snail_envs.training.stages import STAGES

    return {name: stage.count for name, stage in STAGES.items()}


def stage_units() -> dict[str, str]:
    """What each stage's count measures, for the axis' label (`Stage.unit`)."""
    from snail_envs.training.stages import STAGES

    return {name: stage.unit for name, stage in STAGES.items()}


def point_keys() -> set[str]:
    """The keys of a learning curve's point that are not opponents."""
    return {"stage", TIMESTEPS, *stage_counts().values()}


def curve_stages(curve: list[dict[str, Any]]) -> tuple[list[int], list[tuple[int, str]]]:
    """Where each point of a learning curve lies on its one axis, and where each stage after
    the first starts there. Each stage's points lie at their own count (`stage_counts`: the
    imitation rounds' labelled states, the expert iteration rounds' searched states, the ppo
    stage's timesteps) after the counts the stages before it ended at (the stage that counts
    timesteps ends at the timesteps of the points after it); the final evaluation's point lies
    at the run's timesteps, after the stages before the one that counts them, or at the end of
    the axis if it lies further."""
    counts = stage_counts()
    stepping = next(name for name, count in counts.items() if count == TIMESTEPS)
    order: list[str] = []
    ends: dict[str, int] = {}
    steps: list[int] = []
    starts: list[tuple[int, str]] = []

    def offset(stage: str) -> int:
        before = order[: order.index(stage)] if stage in order else order
        return sum(ends[other] for other in before)

    for point in curve:
        stage = point["stage"]
        if stepping in order and TIMESTEPS in point:
            ends[stepping] = max(ends[stepping], point[TIMESTEPS])
        if stage == FINAL:
            if stepping not in order and point[TIMESTEPS] > 0:
                starts.append((offset(stepping), stepping))
            steps.append(max([offset(stepping) + point[TIMESTEPS], *steps]))
            continue
        if stage not in order:
            if order:
                starts.append((offset(stage), stage))
            order.append(stage)
        count = point[counts[stage]]
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
        keys = point_keys()
        self.points.append(point)
        step = curve_steps(self.points)[-1]
        for opponent, value in point.items():
            if opponent not in keys:
                self._writer.add_scalar(f"eval/score_vs_{opponent}", value[0], step)
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()


def plot_curve(curve: list[dict[str, Any]], path: Path, title: str, chance: float) -> None:
    """Draw the learning curve to `path` (atomically): each stage's points by its own count,
    after the stages before it (`curve_stages`; a line where each stage starts), the final
    evaluation's as a star; an opponent's line joins the points that measured it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    steps, starts = curve_stages(curve)
    keys, units = point_keys(), stage_units()
    opponents = list(dict.fromkeys(k for point in curve for k in point if k not in keys))
    for opponent in opponents:
        measured = [index for index, point in enumerate(curve) if opponent in point]
        at = [steps[index] for index in measured]
        rates = np.array([curve[index][opponent] for index in measured])
        (line,) = axes.plot(at, rates[:, 0], marker="o", label=f"vs {opponent}")
        axes.fill_between(at, rates[:, 1], rates[:, 2], alpha=0.2, color=line.get_color())
        finals = [row for row, index in enumerate(measured) if curve[index]["stage"] == FINAL]
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
    stages = [point["stage"] for point in curve if point["stage"] != FINAL][:1]
    stages += [stage for _, stage in starts]
    for (step, stage), before in zip(starts, stages, strict=False):
        axes.axvline(step, color="black", linewidth=0.8)
        axes.text(step, 0.97, f" {before} | {stage} ", ha="center", va="top", fontsize=8)
    if len(stages) > 1:
        label = ", then ".join(f"{units[stage]} ({stage})" for stage in stages)
        axes.set_xlabel(label, fontsize=8 if len(stages) > 2 else None)
    else:
        axes.set_xlabel(units[stages[0]] if stages else "learner timesteps")
    axes.set_ylabel("score rate (win 1, shared ½), 95% CI")
    axes.set_ylim(0, 1)
    axes.set_xlim(left=0)
    axes.set_title(title)
    axes.legend()
    figure.tight_layout()
    with atomic_path(path, overwrite=True) as temporary:
        figure.savefig(temporary, dpi=100)
    plt.close(figure)
