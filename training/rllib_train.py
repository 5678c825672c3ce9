"""Train one policy for every seat of a game with PPO on Ray RLlib, on one machine or a cluster.

    snail-rllib --env snail_sprint_v0 --iterations 50
    snail-rllib --env snap_v2 -o num_players=3 --num-env-runners 4
    snail-rllib --env snail_sprint_v0 --address HEAD_IP:6379 \\
        --num-env-runners 32 --iterations 500        # on a running Ray cluster

Every seat plays the same policy, and every seat's experience trains it (self-play by parameter
sharing). The policy is our action-masking RLModule (`snail_envs.training.rllib_module`), the games
reach RLlib through `snail_envs.training.rllib_env` (turn-based and simultaneous alike). Needs the
`rllib` extra.

Without `--address` the script starts a local Ray and shuts it down at the end; with it, it joins
that cluster: env runners (sampling) spread over its nodes, the learner stays in this process.
A cluster that cannot be reached, or refuses this client's token, ends the script with one line
(Ray retries a cluster out of reach for a few minutes first). Of Ray's and RLlib's own log lines
only errors reach the terminal (`--ray-logs`: all of them); a local Ray's logs stay in `ray/`.
Each iteration prints one line, with the score rates at evaluation points.
Each run writes a new folder, `<output-dir>/<env>-<seed>-<n>/` (printed first; `n` counts that
env and seed's runs, so that a rerun never mixes into an earlier one), and nothing outside it
(local Ray included; matplotlib builds its font cache once per user); every file and checkpoint
folder but TensorBoard's logs (which grow) is written atomically:

    ray/                     Ray's temporary files and logs (local Ray only)
    progress.jsonl           one line of metrics per iteration
    checkpoints/iteration_N/ RLlib checkpoints with `policy.pt` and `policy.json` inside each
    policy.pt, policy.json   the final policy, weights only: `make_agent("rllib:RUN_FOLDER", env)`
                             (until the end, the policy of the latest evaluation point)
    learning_curve.png       score rates against random and the heuristic at each evaluation
                             point (`--eval-every` iterations, and the last)
    tensorboard/             TensorBoard logs (`tensorboard --logdir RUN_FOLDER/tensorboard`):
                             losses and entropy each iteration, score rates at evaluation points
    summary.json             settings, timings, the learning curve and the final score rates

`--resume CHECKPOINT` continues from an RLlib checkpoint in a new run folder. RLlib's checkpoints
are pickles, which run any code they hold when loaded: `--resume` needs `--trust-checkpoint`, and
warns. The exported `policy.pt` loads weights only, with no trust needed.

`--init-from PATH` starts the policy and value networks from a weights-only policy that
`snail-train` saved (its `policy.pt`, `clone.pt`, or a run folder: a clone of the heuristic,
say), so that the distributed path trains on from the same point; `--hidden` must be that
policy's hidden layers. It starts a new run: it does not go with `--resume`.

See docs/scaling_out.md for clusters.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import os
import secrets
import tempfile
import time
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import snail_envs
from snail_envs.agents import HEURISTICS
from snail_envs.agents.cli import attribute_docs, command_errors, console_script
from snail_envs.agents.files import atomic_folder, write_text
from snail_envs.agents.rllib_policy import (
    INSTALL_HINT,
    POLICY_FILE,
    RLlibAgent,
    rllib_missing,
    save_policy,
)
from snail_envs.cli import add_rule_options, env_name
from snail_envs.training.checkpoints import new_run_dir

PROG = "snail-rllib"
POLICY_ID = "shared"
"""The one policy every seat plays."""
AUTH_VARIABLES = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
"""Ray's token authentication settings: when you set one, a local Ray follows yours."""
MAX_SOCKET_DIR = 40
"""Longest Ray temporary folder we hand to Ray as it is: its Unix sockets live a session name
and `/sockets/plasma_store` below it, and Unix limits a socket's path to 107 bytes."""


@dataclass
class Args:
    """Settings of one run (every one is a command-line flag of the same name)."""

    env: str
    """The game (one of `snail_envs.ENV_NAMES`)."""
    options: dict[str, Any] = field(default_factory=dict)
    """Rule options of the game (`-o num_players=3`)."""
    address: str | None = None
    """A running Ray cluster to join (`HEAD_IP:6379`, or `auto` on one of its nodes); none: start
    a local Ray for this run."""
    num_env_runners: int = 2
    """Sampling actors (each plays games with a copy of the policy, on one CPU)."""
    num_learners: int = 0
    """Learner actors (0: the learner runs in this process)."""
    iterations: int = 20
    """Training iterations (each: sample `train_batch_size` env steps, then update)."""
    train_batch_size: int = 4000
    """Env steps (ticks) sampled per iteration."""
    minibatch_size: int = 256
    """Env steps per gradient step."""
    num_epochs: int = 10
    """Passes over each iteration's batch."""
    lr: float = 3e-4
    """The step size of the optimiser (Adam)."""
    gamma: float = 0.99
    """The discount of future rewards."""
    lambda_: float = 0.95
    """GAE's lambda: how far advantages look ahead (0: one step, 1: the whole game)."""
    entropy_coeff: float = 0.01
    """The weight of the entropy bonus, which keeps the policy exploring."""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the policy and value networks."""
    checkpoint_every: int = 10
    """Iterations between two checkpoints (the last iteration always gets one)."""
    eval_every: int = 10
    """Iterations between two evaluation points of the learning curve (the last iteration is
    always one)."""
    eval_games: int = 100
    """Games against each baseline agent (random, and the game's heuristic) at each evaluation
    point (0: no evaluation)."""
    seed: int = 0
    """Seeds the policy's first weights, the games and the evaluation; a run still does not
    repeat bit for bit (docs/scaling_out.md says why)."""
    output_dir: Path = Path("runs/rllib")
    """Where each run writes its own new folder, `<output_dir>/<env>-<seed>-<n>`."""
    resume: Path | None = None
    """An RLlib checkpoint folder of an earlier run to continue from (a pickle: see
    `trust_checkpoint`)."""
    trust_checkpoint: bool = False
    """Whether `resume` may be loaded: RLlib's checkpoints are pickles, which run any code they
    hold."""
    init_from: Path | None = None
    """A weights-only policy saved by `snail-train` (`policy.pt`, `clone.pt`, a run folder)
    to start from; not with `resume`."""
    torch_threads: int = 1
    """Threads torch may use in this process (small networks run fastest on one)."""
    ray_logs: bool = False
    """Show Ray's and RLlib's own log lines in the terminal (by default only their errors):
    the workers' output, their warnings and notes."""


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """Every seat plays the one shared policy."""
    return POLICY_ID


def build_config(args: Args, run_dir: Path) -> Any:
    """The PPO configuration of the run, which writes in `run_dir`."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from snail_envs.training.rllib_env import SnailMultiAgentEnv
    from snail_envs.training.rllib_module import MaskedPolicyModule

    module = RLModuleSpec(module_class=MaskedPolicyModule, model_config={"hidden": args.hidden})
    return (
        PPOConfig(algo_class=ppo_in_folder(run_dir))
        .environment(
            SnailMultiAgentEnv,
            env_config={"env": args.env, "options": args.options},
            # RLlib's checker steps actions sampled without the mask, which our games refuse
            # (tests/training/test_rllib.py checks the adapter instead).
            disable_env_checking=True,
        )
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=1)
        # A lost env runner is restarted on a cluster (a node may go); on one machine it fails
        # the run (its loss is a bug that a restart repeats). Restartable runners also cost an
        # error-level line of Ray's on every run, as RLlib hands them their configuration.
        .fault_tolerance(restart_failed_env_runners=args.address is not None)
        .learners(num_learners=args.num_learners)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module}))
        .training(
            lr=args.lr,
            gamma=args.gamma,
            lambda_=args.lambda_,
            entropy_coeff=args.entropy_coeff,
            train_batch_size_per_learner=args.train_batch_size // max(1, args.num_learners),
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
        )
        .debugging(seed=args.seed, log_level="WARN" if args.ray_logs else "ERROR")
    )


def ppo_in_folder(folder: Path) -> type:
    """RLlib's PPO, with its (otherwise unused) trial folder in `folder` instead of a new one
    under `~/ray_results`, where Ray puts it when Tune does not run the algorithm."""
    from ray.rllib.algorithms.ppo import PPO

    class PPOInRunFolder(PPO):
        def _setup_logdir(self) -> None:
            folder.mkdir(parents=True, exist_ok=True)
            self._logdir = str(folder)  # type: ignore[assignment]  # Ray leaves it unannotated

    return PPOInRunFolder


@contextlib.contextmanager
def ray_session(
    address: str | None, folder: Path, num_cpus: int | None = None, logs: bool = False
) -> Iterator[None]:
    """Ray, connected for the `with` block: the cluster at `address`, or a new local Ray (of
    `num_cpus` CPUs) that writes its files in `folder` and nowhere else. Unless `logs`, only
    errors of Ray's Python side reach this process's terminal (`ray_log_settings`)."""
    import ray

    if address is not None:
        join_cluster(address, logs)
        try:
            yield
        finally:
            ray.shutdown()
        return
    folder.mkdir(parents=True, exist_ok=True)
    with short_alias(folder) as ray_dir, local_ray_environment(ray_dir):
        try:
            ray.init(
                num_cpus=num_cpus,
                include_dashboard=False,
                _temp_dir=ray_dir,
                **ray_log_settings(logs),
            )
            yield
        finally:
            ray.shutdown()


def ray_log_settings(logs: bool) -> dict[str, Any]:
    """`ray.init`'s settings for this process's terminal: everything with `logs`; otherwise
    errors only from the driver's `ray` logger and no lines relayed from the workers (their
    failures still reach the script as exceptions, and their logs stay in Ray's folder)."""
    return {} if logs else {"logging_level": logging.ERROR, "log_to_driver": False}


def join_cluster(address: str, logs: bool = False) -> None:
    """Connect to the Ray cluster at `address`; one that cannot be reached is a
    `ConnectionError`, one that refuses this client's token a `PermissionError`, each naming
    the address."""
    import ray
    from ray.exceptions import AuthenticationError

    try:
        ray.init(address=address, **ray_log_settings(logs))
    except ConnectionError as problem:
        raise ConnectionError(f"cannot reach the Ray cluster at {address} ({problem})") from None
    except AuthenticationError as problem:
        reason = str(problem).strip().splitlines()[0]
        raise PermissionError(
            f"the Ray cluster at {address} refused this client's token ({reason}); give the "
            "cluster's token in RAY_AUTH_TOKEN or RAY_AUTH_TOKEN_PATH"
        ) from None


def run_ray(args: Args, run_dir: Path) -> contextlib.AbstractContextManager[None]:
    """The Ray the run uses: the one already running in this process if any (started by a
    notebook or a test; left running, and `--address` unused), else the one `ray_session` starts
    for the run."""
    import ray

    if ray.is_initialized():
        return contextlib.nullcontext()
    cpus = max(os.cpu_count() or 1, args.num_env_runners + args.num_learners)
    return ray_session(
        args.address, run_dir / "ray", None if args.address else cpus, logs=args.ray_logs
    )


@contextlib.contextmanager
def local_ray_environment(ray_dir: str) -> Iterator[None]:
    """Environment variables that keep a local Ray's files in `ray_dir`: its temporary folder,
    and (unless you set up Ray's token authentication yourself) an authentication token held in
    memory, where Ray would otherwise write a new one to `~/.ray/auth_token`."""
    names = ("RAY_TMPDIR", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["RAY_TMPDIR"] = ray_dir
    if not any(name in os.environ for name in AUTH_VARIABLES):
        # Ray turns token authentication on for a new local cluster (RAY_AUTH_MODE=token) and
        # takes this token instead of generating one into a file.
        os.environ["RAY_AUTH_TOKEN"] = local_token()
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@functools.cache
def local_token() -> str:
    """The token of every local Ray this process starts (Ray's client caches the first one)."""
    return secrets.token_hex(32)


@contextlib.contextmanager
def short_alias(folder: Path) -> Iterator[str]:
    """`folder` itself if Ray's socket paths below it fit Unix's limit; otherwise a short
    symbolic link to it in the system's temporary folder, removed on leaving."""
    if len(str(folder).encode()) <= MAX_SOCKET_DIR:
        yield str(folder)
        return
    link = Path(tempfile.mkdtemp(prefix="snail-ray-")) / "r"
    link.symlink_to(folder, target_is_directory=True)
    try:
        yield str(link)
    finally:
        link.unlink()
        link.parent.rmdir()


def export_policy(algorithm: Any, args: Args, folder: Path, overwrite: bool = False) -> Path:
    """Write the shared policy's weights (and its description) to `folder/policy.pt`, which
    must not exist unless `overwrite`."""
    from snail_envs.training.rllib_module import policy_state

    weights = algorithm.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID]
    game = snail_envs.make(args.env, **args.options)
    agent = game.possible_agents[0]
    return save_policy(
        folder / POLICY_FILE,
        policy_state(weights),
        observation_size=game.observation_space(agent)["observation"].shape[0],
        num_actions=game.action_space(agent).n,
        hidden=args.hidden,
        env_name=args.env,
        overwrite=overwrite,
    )


def start_from_sb3(algorithm: Any, args: Args) -> None:
    """Give the learner and every env runner the weights of the policy at `args.init_from`."""
    from snail_envs.training.finetune import initial_policy
    from snail_envs.training.rllib_module import state_from_sb3

    assert args.init_from is not None
    policy = initial_policy(args.init_from, args.env, args.options, args.hidden)
    sb3_state = {name: value.numpy() for name, value in policy.state_dict().items()}
    weights = algorithm.learner_group.get_weights(module_ids=[POLICY_ID])
    weights[POLICY_ID] = state_from_sb3(sb3_state, args.hidden)
    algorithm.learner_group.set_weights(weights)
    algorithm.env_runner_group.sync_weights(
        from_worker_or_learner_group=algorithm.learner_group, inference_only=True
    )


def checkpoint(algorithm: Any, args: Args, run_dir: Path) -> Path:
    """An RLlib checkpoint of the current iteration, with the exported policy inside, as one
    folder that appears whole."""
    folder = run_dir / "checkpoints" / f"iteration_{algorithm.iteration:04d}"
    with atomic_folder(folder) as filling:
        algorithm.save_to_path(str(filling.absolute()))
        export_policy(algorithm, args, filling)
    return folder


def progress_line(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The metrics of one iteration worth keeping (RLlib's result has hundreds)."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(POLICY_ID, {})
    return {
        "iteration": result.get("training_iteration"),
        "seconds": round(seconds, 2),
        "env_steps": runners.get("num_env_steps_sampled_lifetime"),
        "agent_steps": runners.get("num_agent_steps_sampled_lifetime", {}),
        "episodes": runners.get("num_episodes_lifetime", 0),
        "episode_len_mean": runners.get("episode_len_mean"),
        "policy_loss": learner.get("policy_loss"),
        "vf_loss": learner.get("vf_loss"),
        "entropy": learner.get("entropy"),
    }


def evaluate(args: Args, agent: RLlibAgent) -> dict[str, Any]:
    """The trained policy in one seat against each baseline agent in the others."""
    from snail_envs.training.evaluate import score_against

    opponents = ["random", "heuristic"] if args.env in HEURISTICS else ["random"]
    results = {}
    for opponent in opponents:
        rate, low, high = score_against(
            args.env, agent, opponent, args.eval_games, seed=20_000_000, options=args.options
        )
        results[opponent] = {"score_rate": rate, "ci95": [low, high], "games": args.eval_games}
    return results


CURVE_FILE = "learning_curve.png"
BOARD_FOLDER = "tensorboard"
SCALARS = ("policy_loss", "vf_loss", "entropy", "episode_len_mean")
"""The metrics of `progress_line` that TensorBoard shows, as `train/NAME` by ticks."""
TICKS = "ticks (RLlib's env steps)"
"""What the run's steps count: RLlib's env steps are ticks of the parallel environment, every
seat's decisions of one moment together (`snail_envs.core.length`), not `snail-train`'s learner
timesteps."""


def evaluation_point(
    algorithm: Any, args: Args, run_dir: Path, line: dict[str, Any], curve: list[dict[str, Any]]
) -> dict[str, Any]:
    """Score the policy of now (exported to `run_dir/policy.pt`) against each baseline agent;
    add the point to `curve` and draw the curve again (`learning_curve.png`, as
    `snail-train` draws its own)."""
    from snail_envs.training.curve import plot_curve

    policy = export_policy(algorithm, args, run_dir, overwrite=True)
    results = evaluate(args, RLlibAgent.load(policy, args.env))
    rates = {name: (r["score_rate"], *r["ci95"]) for name, r in results.items()}
    curve.append({"stage": "ppo", "timesteps": line["env_steps"], **rates})
    seats = len(snail_envs.make(args.env, **args.options).possible_agents)
    title = f"{args.env}, RLlib PPO self-play ({args.eval_games} games a point)"
    plot_curve(curve, run_dir / CURVE_FILE, title, 1 / seats, units={"ppo": TICKS})
    return results


def iteration_text(line: dict[str, Any]) -> str:
    """One iteration in one line: its time, steps and games, and its evaluation if any."""
    text = (
        f"iteration {line['iteration']}: {line['seconds']:.1f} s, "
        f"{line['env_steps']} ticks, {line['episodes']} games"
    )
    for opponent, result in line.get("evaluation", {}).items():
        text += f"; vs {opponent} {result['score_rate']:.0%}"
    return text


@contextlib.contextmanager
def board(run_dir: Path) -> Iterator[Any]:
    """A TensorBoard writer of the run (`tensorboard/` in its folder: `tensorboard --logdir`)."""
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(str(run_dir / BOARD_FOLDER))
    try:
        yield writer
    finally:
        writer.close()


def write_scalars(writer: Any, line: dict[str, Any]) -> None:
    """The line's training metrics (`train/...`) or, once it has them, its score rates
    (`eval/score_vs_OPPONENT`), at its ticks (RLlib's env steps)."""
    step = int(line["env_steps"] or 0)
    if "evaluation" in line:
        for opponent, result in line["evaluation"].items():
            writer.add_scalar(f"eval/score_vs_{opponent}", result["score_rate"], step)
    else:
        for name in SCALARS:
            if line.get(name) is not None:
                writer.add_scalar(f"train/{name}", float(line[name]), step)
    writer.flush()


@contextlib.contextmanager
def rllib_log_level(logs: bool) -> Iterator[None]:
    """RLlib's logger at ERROR for the block unless `logs` (it warns on every run about its
    API stack and deprecations inside RLlib, which ask nothing of the person running)."""
    logger = logging.getLogger("ray.rllib")
    saved = logger.level
    if not logs:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(saved)


def train(args: Args) -> dict[str, Any]:
    """Run one training job; returns its summary (also written to summary.json)."""
    try:
        import ray.rllib  # noqa: F401
        import torch
    except ModuleNotFoundError as missing:
        raise rllib_missing(missing) from None

    torch.set_num_threads(args.torch_threads)
    snail_envs.make(args.env, **args.options)  # bad rule options fail before Ray starts
    if args.resume is not None:
        if not args.trust_checkpoint:
            raise ValueError(
                f"--resume loads {args.resume}, an RLlib checkpoint: its files are pickles, which "
                "run any code they hold; give --trust-checkpoint if you trust where it came from"
            )
        warnings.warn(
            f"loading {args.resume} as an RLlib checkpoint runs any code pickled in it: do so "
            "only with checkpoints you trust",
            stacklevel=2,
        )
    run_dir = new_run_dir(args.output_dir.absolute(), f"{args.env}-{args.seed}")
    print(f"run folder: {run_dir}", flush=True)
    progress = run_dir / "progress.jsonl"
    lines: list[str] = []
    timings: list[float] = []
    curve: list[dict[str, Any]] = []
    started = time.perf_counter()
    with run_ray(args, run_dir), rllib_log_level(args.ray_logs), board(run_dir) as writer:
        algorithm = build_config(args, run_dir).build_algo()
        try:
            if args.resume is not None:
                algorithm.restore_from_path(str(args.resume.absolute()))
            elif args.init_from is not None:
                start_from_sb3(algorithm, args)
            setup_seconds = time.perf_counter() - started
            last = None
            for index in range(args.iterations):
                tick = time.perf_counter()
                result = algorithm.train()
                timings.append(time.perf_counter() - tick)
                line = progress_line(result, timings[-1])
                write_scalars(writer, line)
                due = algorithm.iteration % args.eval_every == 0 or index == args.iterations - 1
                if args.eval_games and due:
                    line["evaluation"] = evaluation_point(algorithm, args, run_dir, line, curve)
                    write_scalars(writer, line)
                lines.append(json.dumps(line) + "\n")
                write_text(progress, "".join(lines), overwrite=True)
                print(iteration_text(line), flush=True)
                if algorithm.iteration % args.checkpoint_every == 0:
                    last = checkpoint(algorithm, args, run_dir)
            if last is None or not last.name.endswith(f"{algorithm.iteration:04d}"):
                last = checkpoint(algorithm, args, run_dir)
            policy = export_policy(algorithm, args, run_dir, overwrite=True)
        finally:
            algorithm.stop()
    summary = {
        "args": {
            **asdict(args),
            "output_dir": str(args.output_dir),
            "resume": str(args.resume),
            "init_from": str(args.init_from),
        },
        "run_dir": str(run_dir),
        "setup_seconds": round(setup_seconds, 1),
        "iteration_seconds": [round(t, 2) for t in timings],
        "final_evaluation": json.loads(lines[-1]).get("evaluation", {}),
        "learning_curve": curve,
        "learning_curve_png": str(run_dir / CURVE_FILE) if curve else None,
        "tensorboard": str(run_dir / BOARD_FOLDER),
        "checkpoint": str(last),
        "policy": str(policy),
        "progress": str(progress),
    }
    write_text(run_dir / "summary.json", json.dumps(summary, indent=2) + "\n")
    return summary


def parse_args(argv: list[str] | None = None) -> Args:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=__doc__.splitlines()[0],
        epilog="Needs the rllib extra. Clusters: docs/scaling_out.md.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    defaults = Args(env="")
    docs = attribute_docs(Args)
    parser.add_argument(
        "--env",
        required=True,
        type=env_name,
        choices=snail_envs.available_env_names(),
        help=docs["env"],
    )
    add_rule_options(parser)
    parser.add_argument("--address", help=docs["address"])
    for name in (
        "num_env_runners",
        "num_learners",
        "iterations",
        "train_batch_size",
        "minibatch_size",
        "num_epochs",
        "checkpoint_every",
        "eval_every",
        "eval_games",
        "seed",
        "torch_threads",
    ):
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=int,
            default=getattr(defaults, name),
            help=docs[name],
        )
    for name in ("lr", "gamma", "lambda_", "entropy_coeff"):
        flag = name.rstrip("_").replace("_", "-")
        parser.add_argument(
            f"--{flag}", dest=name, type=float, default=getattr(defaults, name), help=docs[name]
        )
    parser.add_argument(
        "--hidden", type=int, nargs="+", default=defaults.hidden, help=docs["hidden"]
    )
    for name in ("output_dir", "resume", "init_from"):
        parser.add_argument(
            f"--{name.replace('_', '-')}",
            type=Path,
            default=getattr(defaults, name),
            help=docs[name],
        )
    for name in ("trust_checkpoint", "ray_logs"):
        parser.add_argument(f"--{name.replace('_', '-')}", action="store_true", help=docs[name])
    namespace = parser.parse_args(argv)
    values = vars(namespace)
    values["options"] = dict(values.pop("option"))
    args = Args(**values)
    for name in ("iterations", "train_batch_size", "minibatch_size", "num_epochs", "eval_every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.checkpoint_every < 1 or args.num_env_runners < 0 or args.num_learners < 0:
        parser.error("--checkpoint-every must be at least 1; runner and learner counts >= 0")
    if args.init_from is not None:
        if args.resume is not None:
            parser.error("--init-from starts a new run; --resume continues one: give one of them")
        from snail_envs.training.finetune import initial_policy

        try:
            initial_policy(args.init_from, args.env, args.options, args.hidden)
        except ValueError as problem:
            parser.error(str(problem))
    return args


def main(argv: list[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    with command_errors(PROG):
        try:
            summary = train(args)
        except ModuleNotFoundError as missing:
            if INSTALL_HINT not in str(missing):
                raise
            raise SystemExit(str(missing)) from None
    for opponent, result in summary["final_evaluation"].items():
        low, high = result["ci95"]
        print(
            f"vs {opponent:<9} score rate {result['score_rate']:.1%} "
            f"(95% CI {low:.1%}–{high:.1%}, {result['games']} games)"
        )
    print(f"policy: {summary['policy']}\ncheckpoint: {summary['checkpoint']}")
    return summary


script = console_script(main)
"""The entry point of the `snail-rllib` console script."""

if __name__ == "__main__":
    main()
