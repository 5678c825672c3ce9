"""Convert a Stable-Baselines3 MaskablePPO archive you trust into a weights-only policy.

    snail-convert runs/old/model.zip runs/old/policy.pt --env snail_sprint_v0 \\
        -o num_players=2 --trust-checkpoint
    snail-convert runs/snap_v2-0-1/policy.pt small/snap_v2.pt --env snap_v2 --policy-only

The archive (a `model.zip`, or a policy written by SB3's `policy.save`) is a pickle: loading it
runs any code it holds, so the command needs `--trust-checkpoint`. A weights-only policy (a
`policy.pt` of `snail-train`, with its `policy.json`) needs no trust: converting one with
`--policy-only` writes the small file that plays (the shipped baselines are made so), keeping
the rule options it was trained under unless `-o` gives others. What it writes, `NAME.pt` and
`NAME.json` (see `snail_envs.agents.ppo`), loads weights only. Before it keeps them, it plays random
games of the env and checks on every decision of them (`--observations`, 500 by default) that the
new policy chooses the same action as the archive; `--policy-only` leaves the value network out.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

import snail_envs
from snail_envs.agents.cli import add_trust_flag, command_errors, console_script
from snail_envs.agents.files import refuse_existing
from snail_envs.agents.ppo import load_archive, load_policy, save_policy
from snail_envs.agents.weights import description_path
from snail_envs.cli import add_rule_options, env_name


def recorded_observations(
    env_name: str, options: dict[str, Any], count: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(observations, action masks) of the first `count` decisions of random games of
    `env_name`, every seat's, the games seeded from `seed` on."""
    rng = random.Random(seed)
    env = snail_envs.make(env_name, **options)
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    game = seed
    while len(observations) < count:
        env.reset(seed=game)
        game += 1
        for _ in env.agent_iter():
            seen, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(seen["action_mask"]).tolist()
            if len(observations) < count:
                observations.append(seen["observation"].copy())
                masks.append(seen["action_mask"].copy())
            env.step(rng.choice(legal))
    return np.stack(observations), np.stack(masks)


def actions(policy: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The deterministic choices of `policy` (anything with SB3's `predict`) for each row."""
    chosen, _ = policy.predict(observations, action_masks=masks.astype(bool), deterministic=True)
    return np.asarray(chosen)


def convert(
    source: str | Path,
    target: str | Path,
    env_name: str,
    options: dict[str, Any] | None = None,
    value_network: bool = True,
    observations: int = 500,
    overwrite: bool = False,
) -> Path:
    """Write the policy of `source` (a trusted archive, or a weights-only policy) to `target`
    weights only, and check on `observations` recorded decisions that it acts as the source does
    (a `ValueError`, and no files written, if it does not)."""
    refuse_existing([target, description_path(target)], overwrite)
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    if is_weights_only(source):
        policy = load_policy(source, env_name)
        trained_under = json.loads(description_path(source).read_text())["env_options"]
        options = dict(trained_under if options is None else options)
    else:
        archive = load_archive(source)
        policy = getattr(archive, "policy", archive)
        options = dict(options or {})
    seen, masks = recorded_observations(env_name, options, observations)
    expected = actions(policy, seen, masks)
    with tempfile.TemporaryDirectory(dir=Path(target).parent) as trial:
        trial_path = Path(trial) / Path(target).name
        written = save_policy(trial_path, policy, env_name, options, value_network)
        differ = int(np.sum(actions(load_policy(written, env_name), seen, masks) != expected))
    if differ:
        raise ValueError(
            f"the converted policy chose otherwise on {differ} of {len(seen)} decisions"
        )
    return save_policy(target, policy, env_name, options, value_network, overwrite)


def is_weights_only(source: str | Path) -> bool:
    """Whether `source` is a policy of this library's weights-only format (`NAME.pt` with its
    `NAME.json`), rather than a Stable-Baselines3 archive."""
    return Path(source).suffix == ".pt" and description_path(source).is_file()


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="snail-convert", description=__doc__.splitlines()[0])
    parser.add_argument(
        "source", type=Path, help="the Stable-Baselines3 archive, or a weights-only policy.pt"
    )
    parser.add_argument("target", type=Path, help="the weights-only policy to write (NAME.pt)")
    parser.add_argument(
        "--env", required=True, type=env_name, choices=snail_envs.available_env_names()
    )
    add_rule_options(parser)
    parser.add_argument(
        "--policy-only", action="store_true", help="leave the value network out (playing only)"
    )
    parser.add_argument(
        "--observations", type=int, default=500, help="decisions to compare the two on"
    )
    parser.add_argument("--overwrite", action="store_true", help="replace an existing target")
    add_trust_flag(
        parser,
        "vouch for the source: it is a pickle, and loading it runs any code it holds",
    )
    args = parser.parse_args(argv)
    if not args.trust_checkpoint and not is_weights_only(args.source):
        parser.error(
            "the source is a pickle, which runs any code it holds when loaded: give "
            "--trust-checkpoint if you trust where it came from"
        )
    with command_errors(parser.prog):
        path = convert(
            args.source,
            args.target,
            args.env,
            dict(args.option) if args.option else None,
            value_network=not args.policy_only,
            observations=args.observations,
            overwrite=args.overwrite,
        )
        print(
            f"wrote {path} and {description_path(path)}: the same actions on "
            f"{args.observations} decisions of random games"
        )
    return path


script = console_script(main)
"""The entry point of the `snail-convert` console script."""

if __name__ == "__main__":
    main()
