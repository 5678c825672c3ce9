"""Training configuration: one YAML file per game (`configs/<env>/ppo.yaml`), CLI overrides.

Every field of `TrainConfig` is documented below; a config file or an override that names an
unknown field, or gives a value of the wrong type or range, is rejected with a message naming
what is allowed.

    python -m training.train --env snail_sprint_v0 total_timesteps=50000 env_options.num_players=3
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import snail_envs

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
OPPONENT_KINDS = ("random", "heuristic", "self")


@dataclass
class TrainConfig:
    """MaskablePPO against a mix of opponents, one learner seat rotating over episodes."""

    env: str = "snail_sprint_v0"
    """The game (one of `snail_envs.ENV_NAMES`)."""
    env_options: dict[str, Any] = field(default_factory=dict)
    """Rule options of the game (as for `snail_envs.make`)."""
    total_timesteps: int = 200_000
    """Learner decisions to train for."""
    n_envs: int = 8
    """Games played side by side (one vectorised batch)."""
    opponents: dict[str, float] = field(default_factory=lambda: {"random": 0.5, "heuristic": 0.5})
    """Weights of the opponent kinds each other seat is drawn from every episode: `random`,
    `heuristic`, and `self` (a frozen earlier snapshot of the learner)."""
    self_play_every: int = 50_000
    """Timesteps between two snapshots of the learner added to the self-play pool."""
    self_play_pool: int = 5
    """Snapshots kept in the self-play pool (the oldest leaves first)."""
    learning_rate: float = 3e-4
    n_steps: int = 256
    """Steps per environment between two policy updates."""
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the policy and value networks."""
    eval_every: int = 25_000
    """Timesteps between two points of the learning curve."""
    eval_games: int = 100
    """Games per opponent for each point of the learning curve."""
    final_eval_games: int = 500
    """Games per opponent in the final evaluation."""
    checkpoint_every: int = 50_000
    """Timesteps between two saved checkpoints."""
    seed: int = 0
    torch_threads: int = 1
    """Threads torch may use. Small networks on a few cores run many times faster on one thread
    than with torch's default, which oversubscribes the cores."""
    output_dir: str = "runs"
    """Where each run writes its folder (`<output_dir>/<env>-<seed>`)."""
    batched: bool = True
    """Play the training games in the batched engine (`snail_envs.batched`, numba): random and
    heuristic opponents are played inside its kernels, and the self-play snapshots answer for
    all the games waiting on them at once. `false`: each game is a `snail_envs.single_agent`
    view of the Python environment (the same games, about 7–9 times the environment's share of
    the training time)."""

    def __post_init__(self) -> None:
        if self.env not in snail_envs.ENV_NAMES:
            raise ValueError(
                f"env must be one of {', '.join(snail_envs.ENV_NAMES)}; got {self.env!r}"
            )
        for name in (
            "total_timesteps",
            "n_envs",
            "n_steps",
            "batch_size",
            "n_epochs",
            "self_play_every",
            "self_play_pool",
            "eval_every",
            "checkpoint_every",
            "torch_threads",
        ):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1; got {getattr(self, name)}")
        for name in ("eval_games", "final_eval_games", "seed"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be at least 0; got {getattr(self, name)}")
        unknown = sorted(set(self.opponents) - set(OPPONENT_KINDS))
        if (
            unknown
            or any(w < 0 for w in self.opponents.values())
            or sum(self.opponents.values()) <= 0
        ):
            raise ValueError(
                f"opponents must weight the kinds {', '.join(OPPONENT_KINDS)} with non-negative "
                f"numbers, not all zero; got {self.opponents}"
            )
        if not 0 < self.learning_rate < 1 or not 0 < self.gamma <= 1:
            raise ValueError("learning_rate must be in (0, 1) and gamma in (0, 1]")
        snail_envs.make(self.env, **self.env_options)  # bad rule options fail here

    @property
    def run_dir(self) -> Path:
        return Path(self.output_dir) / f"{self.env}-{self.seed}"


def default_config_path(env: str) -> Path:
    return CONFIGS / env.removesuffix("_v0") / "ppo.yaml"


def load_config(env: str, path: str | Path | None = None, overrides: list[str] = ()) -> TrainConfig:
    """The config of `env`: its YAML file (default `configs/<game>/ppo.yaml`), then overrides
    `name=value` (YAML values; `env_options.name=value` for a rule option)."""
    source = Path(path) if path is not None else default_config_path(env)
    values: dict[str, Any] = yaml.safe_load(source.read_text()) if source.exists() else {}
    values = values or {}
    values.setdefault("env", env)
    if values["env"] != env:
        raise ValueError(f"{source} is a config for {values['env']}, not {env}")
    for override in overrides:
        name, separator, text = override.partition("=")
        if not separator:
            raise ValueError(f"overrides are written name=value; got {override!r}")
        value = yaml.safe_load(text)
        if "." in name:
            group, _, key = name.partition(".")
            if group not in ("env_options", "opponents"):
                raise ValueError(f"only env_options.<name> and opponents.<kind> nest; got {name!r}")
            values.setdefault(group, {})[key] = value
        else:
            values[name] = value
    return build_config(values, str(source))


def build_config(values: dict[str, Any], origin: str = "config") -> TrainConfig:
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise ValueError(f"{origin}: unknown field(s) {unknown}; fields: {', '.join(fields)}")
    hints = typing.get_type_hints(TrainConfig)
    for name, value in values.items():
        _check_type(name, value, hints[name])
    return TrainConfig(**values)


def _check_type(name: str, value: Any, expected: Any) -> None:
    origin = typing.get_origin(expected) or expected
    if origin is float and isinstance(value, int) and not isinstance(value, bool):
        return
    if not isinstance(value, origin) or (isinstance(value, bool) and origin is not bool):
        raise ValueError(
            f"{name} must be of type {getattr(expected, '__name__', expected)}; got {value!r}"
        )
