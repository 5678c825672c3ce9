"""What `snail-train` tells people at a run's end: its summary, and where a stopped run stands."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from snail_envs.training.curve import kept_place
from snail_envs.training.stages import STAGES
from snail_envs.training.stages.base import INIT_FROM


def print_summary(summary: Mapping[str, Any]) -> None:
    """The run's summary (from `train`, `resume`), for people."""
    config = summary["config"]
    stages = ", ".join(
        f"{stage} {seconds:.0f} s" for stage, seconds in summary["stage_seconds"].items()
    )
    rate = summary["timesteps_per_second"]
    timesteps = f" ({summary['timesteps']:,} learner timesteps, {rate:,}/s)" if rate else ""
    print(f"\n=== {config['env']} {config['env_options'] or ''}: {stages}{timesteps} ===")
    for stage in STAGES.values():
        for line in stage().report(summary):
            print(line)
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
        kept = summary["kept_policy"]
        place = "" if kept is None else f" (on the learning curve: {kept_place(kept)})"
        print(
            f"policy: {summary['policy']} (as an agent: ppo:{summary['run_dir']}), made by "
            f"{maker(summary)}{place}"
        )
    if summary["checkpoint"]:
        print(f"checkpoint: {summary['checkpoint']}")
    print(
        f"learning curve: {summary['learning_curve_png']}\n"
        f"tensorboard: tensorboard --logdir {summary['tensorboard']}"
    )


def maker(summary: Mapping[str, Any]) -> str:
    """Who made the run's policy (`policy_made_by`), in words."""
    made_by = summary["policy_made_by"]
    if made_by == INIT_FROM:
        return f"the run it started from (init_from {summary['config']['init_from']})"
    if made_by is None:
        return "no stage: the untrained network it started with"
    return f"the {made_by} stage"


def stopped_where(summary: Mapping[str, Any]) -> str:
    """Where a run stopped by a signal stands (`summary["interrupted"]`), in a line's tail."""
    if summary["stopped_in"] is None:
        return "after training: the final evaluation was skipped"
    return STAGES[summary["stopped_in"]]().stopped(summary)
