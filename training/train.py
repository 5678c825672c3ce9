"""Train an agent on one game through the configured stages, then evaluate it.

    snail-train --env snail_sprint_v0
    snail-train --env pedzace_slimaki_v0 total_timesteps=300000 \
        env_options.num_players=3
    snail-train --env snail_sprint_v0 n_envs=256 opponents.self=0
    snail-train --env snail_sprint_v0 batched=false
    snail-train --env snail_sprint_v0 "stages=[ppo]" anchor_coef=0
    snail-train --env snail_sprint_v0 "stages=[ppo]" --init-from RUN_DIR/policy.pt
    snail-train --env pedzace_slimaki_v0 "stages=[imitation, expert_iteration]"
    snail-train --env snailed_it_v0 --config configs/snailed_it/advantage.yaml
    snail-train --env snail_sprint_v0 --league league.rounds=5   # configs/<game>/league.yaml
    snail-train --resume runs/snail_sprint_v0-0-1      # continue a stopped run

The hyperparameters and rule options come from `configs/<game>/ppo.yaml` (see
`snail_envs.training.config.TrainConfig` for every field); `name=value` arguments override them. A
run goes through the stages its config names: `imitation` clones a teacher (the game's heuristic by
default) into the network on states of the batched engine (`snail_envs.training.imitation`), `ppo`
trains it with MaskablePPO, from the cloned weights and anchored to them
(`snail_envs.training.finetune`), and `expert_iteration` (after imitation, before or after ppo)
distils the compiled search's visit counts, the search guided by the network, into the network
round after round (`snail_envs.training.expert_iteration`), `advantage` (likewise) trains it
towards the rollout search's paired measurements where they exceed their noise, round after
round (`snail_envs.training.advantage`), and `league` (after the others;
`--league` reads `configs/<game>/league.yaml`) trains a PSRO-style league of members against a
Nash or PFSP mixture of its population (`snail_envs.training.league`). The learner holds one
seat of the game, drawn anew each episode;
the other seats are played by opponents drawn from the configured mix of random players, the game's
heuristic, and frozen snapshots of the learner itself (self-play). The games run in the batched
engine (`snail_envs.batched`, its learner vector env: random and heuristic opponents are played
inside its kernels, the snapshots answer for all the games waiting on them at once); with
`batched=false`, each game is a `snail_envs.single_agent` view of the Python environment instead.

Each run writes a new folder, `<output_dir>/<env>-<seed>-<n>/` (printed first; a rerun never
mixes into an earlier run's): its config, TensorBoard logs, weights-only checkpoints of the ppo
stage, the clone the ppo stage starts from (the imitation or expert iteration stage's network),
the expert iteration and advantage stages' rounds (`expert_iteration/`, `advantage/`), the final
policy (`ppo:RUN_FOLDER` as
an agent; with `keep_best`, the best of the ppo stage), a learning curve (score rate against
random and heuristic players after every imitation and expert iteration round, at the ppo
stage's start, every `eval_every` timesteps (closer in a short run, for at least five points)
and in the final evaluation at its end; drawn in TensorBoard, and in `learning_curve.png` a panel
per stage by its own count, the kept policy marked, the ppo updates' loss, entropy and approximate
KL below) and `summary.json`;
`snail_envs.training.checkpoints` lists them. The final evaluation also keeps its first games
against each opponent as replays (`replays/vs-random-game1.jsonl`, ...: see `snail-replay`). Every
file is written atomically.

Ctrl-C or SIGTERM stops a run cleanly, with its summary and no traceback (a second Ctrl-C stops
at once). In the ppo stage, learning ends after the step under way and a checkpoint is saved;
`--resume RUN_DIR` continues the run from its latest checkpoint. In the imitation stage, the
cloning under way is abandoned and nothing of it is kept: the imitation stage is never resumed
(`--resume` refuses a run stopped there, which has no checkpoint); the run is started anew. The
ppo stage saves a checkpoint at its start when it follows another stage, so that no stop or
crash after that stage costs its work again. In the expert iteration and advantage stages, the
round under way is abandoned; the stage saves the network it starts from and every round it
finishes, and `--resume RUN_DIR` continues at the next round (`expert_iteration.rounds=N` or
`advantage.rounds=N` adds rounds to a finished stage).

`--init-from PATH` (the `init_from` field) starts a new run's network from a weights-only policy
saved by an earlier run, before its first stage; the run's config keeps it, and `--resume`
continues from the checkpoint without applying it again.
"""

from __future__ import annotations

import argparse
import signal
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import snail_envs
from snail_envs.agents.cli import command_errors, console_script
from snail_envs.cli import env_name
from snail_envs.training.checkpoints import CONFIG_FILE, read_run_config
from snail_envs.training.config import (
    TrainConfig,
    default_config_path,
    describe_fields,
    load_config,
    parse_overrides,
)
from snail_envs.training.report import print_summary, stopped_where
from snail_envs.training.run import RESUMABLE, open_run, resumption, run, write_config
from snail_envs.training.stages import STAGES


def train(config: TrainConfig, progress_bar: bool = True) -> dict[str, Any]:
    """Run one training job in a new run folder (printed first); returns its summary (also
    written to summary.json). A stop request (Ctrl-C, SIGTERM) ends the run cleanly and saves
    the summary (`"interrupted"` names the signal, `"stopped_in"` the stage it cut short) and
    skips the final evaluation; the module docstring says what each stage keeps."""
    return run(config, open_run(config), None, progress_bar)


def resume(
    run_dir: str | Path, overrides: Sequence[str] = (), progress_bar: bool = True
) -> dict[str, Any]:
    """Continue the run in `run_dir` in the stage it stopped in, from what that stage saved
    (`Stage.resume` of `snail_envs.training.stages`: the ppo stage's latest checkpoint, the
    expert iteration stage's last round), then the stages after it as in a new run.
    `overrides` may change the fields in `RESUMABLE`. A run that saved nothing (stopped in its
    imitation stage, which is never resumed: a new run starts it anew) is refused, and so is
    one whose last stage has nothing left to do: a larger `total_timesteps` or
    `expert_iteration.rounds` gives it more."""
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
    resumed = resumption(run_dir, config, given)
    print(resumed.announcement, flush=True)
    if overrides:
        write_config(run_dir, config, overwrite=True)
    return run(config, run_dir, resumed, progress_bar)


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
        "Ctrl-C or SIGTERM stops a run cleanly, with its summary: "
        + "; ".join(stage.stopping for stage in STAGES.values())
        + ". Checkpoints hold weights only."
    )
    parser = argparse.ArgumentParser(
        prog="snail-train",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=f"{fields_help()}\n\n{textwrap.fill(stopping, 79)}",
    )
    parser.add_argument(
        "--env",
        type=env_name,
        choices=snail_envs.available_env_names(),
        help="the game (required unless --resume)",
    )
    parser.add_argument(
        "--config",
        help="a YAML config (default: configs/<game>/ppo.yaml); one that does not exist is an "
        "error",
    )
    parser.add_argument(
        "--league",
        action="store_true",
        help="read the game's league config, configs/<game>/league.yaml (a PSRO-style league "
        "after the clone), instead of ppo.yaml",
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
    if args.resume is not None and (args.env or args.config or args.league):
        parser.error(
            "--resume continues a run with its own game and config: no --env, --config, --league"
        )
    if args.league and args.config:
        parser.error("--league reads configs/<game>/league.yaml; --config another: give one")
    if args.resume is not None and args.init_from:
        parser.error("--init-from starts a new run; --resume continues one: give one of them")
    with command_errors(parser.prog):
        if args.resume is not None:
            summary = resume(args.resume, args.overrides, progress_bar=not args.no_progress)
        else:
            init = [f"init_from={args.init_from}"] if args.init_from else []
            path = default_config_path(args.env, "league") if args.league else args.config
            config = load_config(args.env, path, [*args.overrides, *init])
            summary = train(config, progress_bar=not args.no_progress)
    print_summary(summary)
    if summary["interrupted"]:
        where = stopped_where(summary)
        print(f"{parser.prog}: stopped by {summary['interrupted']} {where}", file=sys.stderr)
        raise SystemExit(128 + signal.Signals[summary["interrupted"]].value)
    return summary


script = console_script(main)
"""The entry point of the `snail-train` console script."""

if __name__ == "__main__":
    main()
