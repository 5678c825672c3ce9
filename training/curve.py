"""The run's learning curve: the learner's score rate against the evaluation opponents at
points of every stage, in TensorBoard and in `learning_curve.png`, with the ppo stage's losses.

Each stage's points count its own work (`Stage.count`: the imitation rounds' labelled states,
the expert iteration rounds' searched states, the ppo stage's timesteps); every point also
carries the run's learner timesteps so far. The PNG draws each stage in its own panel, by its
own count, the kept policy (`kept_point`) as a line labelled with the stage and count it came
from, and the final evaluation's point (`FINAL`), which measured that policy, as stars there;
below, the ppo updates' loss, entropy and approximate KL (`Progress.ppo_updates`).
It is drawn from the summary's data alone (`plot_summary`). TensorBoard needs one axis: there
each stage's points lie after the counts the stages before it ended at (`curve_stages`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


def start_scored_before(curve: list[dict[str, Any]], stage: str) -> dict[str, Any] | None:
    """The point that scored the policy `stage` starts from, where the stage before scored it
    last: the curve's last point, if of another stage and not the final evaluation's (None: the
    stage scores its start itself)."""
    if curve and curve[-1]["stage"] not in (stage, FINAL):
        return curve[-1]
    return None


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


def kept_point(
    curve: list[dict[str, Any]], made_by: str | None, best: dict[str, Any] | None, timesteps: int
) -> dict[str, Any] | None:
    """Where the run's kept policy lies on the learning curve: `made_by` (`policy_made_by`: a
    stage, or `init_from`), the stage whose panel shows it, and its count there. The stage that
    counts timesteps made it at its best point (`best`, with `keep_best`) or at its end
    (`timesteps`); another stage at its last point; `init_from`'s policy is where the stage
    that counts timesteps started (None: no stage drew points where it lies)."""
    counts = stage_counts()
    stepping = next(name for name, count in counts.items() if count == TIMESTEPS)
    if made_by is None:
        return None
    if made_by == stepping:
        at = timesteps if best is None else best[TIMESTEPS]
        return {"made_by": made_by, "stage": stepping, TIMESTEPS: at}
    stage = made_by if made_by in counts else stepping
    measured = [point[counts[stage]] for point in curve if point["stage"] == stage]
    if not measured:
        return None
    at = max(measured) if stage == made_by else 0
    return {"made_by": made_by, "stage": stage, counts[stage]: at}


UPDATE_PANELS = {"loss": "ppo loss", "entropy": "ppo entropy", "approx_kl": "ppo approximate KL"}
"""The panels of the ppo stage's updates (`Progress.ppo_updates`): each record's value, and
the panel's title."""


def curve_figure(
    curve: list[dict[str, Any]],
    title: str,
    chance: float,
    updates: list[dict[str, Any]] | None = None,
    kept: dict[str, Any] | None = None,
    units: Mapping[str, str] | None = None,
) -> Any:
    """The learning curve as a matplotlib figure: a panel of score rates per stage, by that
    stage's own count (`Stage.count`), the kept policy (`kept_point`) a labelled line, the
    final evaluation's point stars where it measured (`final_place`); below, a panel each of
    the ppo updates' loss, entropy and approximate KL by timesteps (`UPDATE_PANELS`, when
    there are updates). `units` names a stage's count where a tool's points count another
    thing than the stage's (`stage_units`: snail-rllib's ticks)."""
    from matplotlib.figure import Figure

    updates = updates or []
    units = {**stage_units(), **(units or {})}
    stages = list(dict.fromkeys(point["stage"] for point in curve if point["stage"] != FINAL))
    stepping = next(name for name, count in stage_counts().items() if count == TIMESTEPS)
    final_stage, final_at = final_place(curve, stages, kept)
    panels = stages if final_stage in stages else [*stages, final_stage]
    columns = max(len(panels), len(UPDATE_PANELS) if updates else 1)
    figure = Figure(figsize=(max(7, 4 * columns), 7 if updates else 4), layout="constrained")
    figure.suptitle(title)
    rows: Any = figure.subfigures(2, 1, height_ratios=[3, 2]) if updates else [figure]
    score_axes = rows[0].subplots(1, len(panels), sharey=True, squeeze=False)[0]
    opponents = list(dict.fromkeys(k for p in curve for k in p if k not in point_keys()))
    colours = {opponent: f"C{index}" for index, opponent in enumerate(opponents)}
    for axes, stage in zip(score_axes, panels, strict=True):
        draw_stage(axes, curve, stage, final_at if stage == final_stage else None, colours)
        axes.axhline(chance, color="grey", linestyle="--", label=f"chance ({chance:.0%})")
        axes.set_xlabel(units[stage])
        if kept is not None and kept["stage"] == stage:
            draw_kept(axes, kept)
        axes.legend(fontsize=7)
    score_axes[0].set_ylabel("score rate (win 1, shared ½), 95% CI")
    if updates:
        update_axes = rows[1].subplots(1, len(UPDATE_PANELS), squeeze=False)[0]
        at = [update[TIMESTEPS] for update in updates]
        for axes, (value, panel) in zip(update_axes, UPDATE_PANELS.items(), strict=True):
            axes.plot(at, [update[value] for update in updates], marker=".", color="C7")
            axes.set_title(panel, fontsize=10)
            axes.ticklabel_format(axis="y", useOffset=False)  # an entropy near log 2 reads as such
            axes.set_xlabel(units[stepping])
    return figure


def final_place(
    curve: list[dict[str, Any]], stages: list[str], kept: Mapping[str, Any] | None
) -> tuple[str, int]:
    """The panel and count where the final evaluation's stars go: the kept policy's place,
    which is what it measured; without one, the run's timesteps in the stage that counts them,
    or the end of the last stage if that one drew no points."""
    counts = stage_counts()
    if kept is not None:
        return kept["stage"], kept[counts[kept["stage"]]]
    stepping = next(name for name, count in counts.items() if count == TIMESTEPS)
    finals = [point[TIMESTEPS] for point in curve if point["stage"] == FINAL]
    if stepping in stages or not stages:
        return stepping, max(finals, default=0)
    last = stages[-1]
    return last, max(point[counts[last]] for point in curve if point["stage"] == last)


def draw_stage(
    axes: Any,
    curve: list[dict[str, Any]],
    stage: str,
    final_at: int | None,
    colours: dict[str, str],
) -> None:
    """One stage's panel: its points by its own count (an opponent's line joins the points
    that measured it, its 95% interval shaded), and the final evaluation's as stars at
    `final_at` (`final_place`; None: not in this panel)."""
    count = stage_counts()[stage]
    own = [point for point in curve if point["stage"] == stage]
    finals = [] if final_at is None else [p for p in curve if p["stage"] == FINAL]
    for opponent, colour in colours.items():
        measured = [point for point in own if opponent in point]
        if measured:
            at = [point[count] for point in measured]
            rates = np.array([point[opponent] for point in measured])
            axes.plot(at, rates[:, 0], marker="o", color=colour, label=f"vs {opponent}")
            axes.fill_between(at, rates[:, 1], rates[:, 2], alpha=0.2, color=colour)
        for point in finals:
            if opponent in point:
                axes.plot(final_at, point[opponent][0], marker="*", markersize=14, color=colour)
    if finals:
        axes.plot(
            [],
            [],
            marker="*",
            markersize=10,
            linestyle="none",
            color="grey",
            label="final evaluation",
        )
    axes.set_title(f"{stage}: score rates", fontsize=10)
    axes.set_ylim(0, 1)
    axes.set_xlim(left=0)


def kept_place(kept: Mapping[str, Any]) -> str:
    """Where the kept policy (`kept_point`) lies on the curve, in words."""
    stage = kept["stage"]
    return f"{stage} at {kept[stage_counts()[stage]]:,} {stage_units()[stage]}"


def kept_label(kept: Mapping[str, Any]) -> str:
    """The kept policy (`kept_point`) in words: who made it, and where it lies."""
    return f"kept policy: made by {kept['made_by']}, {kept_place(kept)}"


def draw_kept(axes: Any, kept: dict[str, Any]) -> None:
    """The kept policy's line in the panel of its stage, labelled with its maker and place."""
    at = kept[stage_counts()[kept["stage"]]]
    axes.axvline(at, color="black", linestyle=":", linewidth=1.5, label=kept_label(kept))


def plot_curve(
    curve: list[dict[str, Any]],
    path: Path,
    title: str,
    chance: float,
    updates: list[dict[str, Any]] | None = None,
    kept: dict[str, Any] | None = None,
    units: Mapping[str, str] | None = None,
) -> None:
    """Draw the learning curve (`curve_figure`) to `path`, atomically (Agg: no display)."""
    save_figure(curve_figure(curve, title, chance, updates, kept, units), path)


def save_figure(figure: Any, path: Path) -> None:
    """Write `figure` to `path` as a PNG (drawn by Agg), atomically."""
    with atomic_path(path, overwrite=True) as temporary:
        figure.savefig(temporary, dpi=100)


def summary_figure(summary: Mapping[str, Any]) -> Any:
    """A run's learning curve (`curve_figure`) from its summary (`summary.json`) alone: its
    points, its ppo updates and its kept policy (a summary written before those were recorded
    draws without them)."""
    config = summary["config"]
    return curve_figure(
        summary["learning_curve"],
        f"{config['env']}: {' then '.join(config['stages'])}",
        summary["chance_score_rate"],
        summary.get("ppo_updates"),
        summary.get("kept_policy"),
    )


def plot_summary(summary: Mapping[str, Any], path: Path) -> None:
    """Draw a run's learning curve to `path` from its summary (`summary_figure`), atomically."""
    save_figure(summary_figure(summary), path)
