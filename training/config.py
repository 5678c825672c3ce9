"""Training configuration: one YAML file per game (`configs/<game>/ppo.yaml`), CLI overrides.

Every field of `TrainConfig` is documented below. A config that names an unknown field, or gives
a value of the wrong type or out of range, is rejected with a message that says where the value
came from (the file, or the command line and which override), what is allowed, and for a
misspelt name the closest field. A config file that does not exist is an error, never a silent
fall back on the defaults.

    python -m training.train --env snail_sprint_v0 total_timesteps=50000 env_options.num_players=3

The configs live in `configs/` at the top of the repository; a wheel ships them as package data
of `training` (`training/configs/`), where an installed `training` finds them.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import numbers
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

import snail_envs

PACKAGED_CONFIGS = Path(__file__).resolve().parent / "configs"
"""The configs of an installed wheel (its package data, copied from the repository's configs/)."""
SOURCE_CONFIGS = Path(__file__).resolve().parents[1] / "configs"
"""The configs of a source checkout: the repository's configs/ folder."""
CONFIGS = PACKAGED_CONFIGS if PACKAGED_CONFIGS.is_dir() else SOURCE_CONFIGS
OPPONENT_KINDS = ("random", "heuristic", "self")
NESTED = ("env_options", "opponents")
"""The fields an override may set one key of (`env_options.num_players=3`)."""


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
    `heuristic`, and `self` (a frozen earlier snapshot of the learner). Finite, non-negative,
    not all zero."""
    self_play_every: int = 50_000
    """Timesteps between two snapshots of the learner added to the self-play pool."""
    self_play_pool: int = 5
    """Snapshots kept in the self-play pool (the oldest leaves first)."""
    learning_rate: float = 3e-4
    """In (0, 1)."""
    n_steps: int = 256
    """Steps per environment between two policy updates."""
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    """The discount, in (0, 1]."""
    gae_lambda: float = 0.95
    """In [0, 1]."""
    clip_range: float = 0.2
    """PPO's clipping range, positive."""
    ent_coef: float = 0.01
    """The entropy bonus, non-negative."""
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the policy and value networks (each at least 1)."""
    eval_every: int = 25_000
    """Timesteps between two points of the learning curve."""
    eval_games: int = 100
    """Games per opponent for each point of the learning curve."""
    final_eval_games: int = 500
    """Games per opponent in the final evaluation."""
    checkpoint_every: int = 50_000
    """Timesteps between two saved checkpoints (a run also saves one when it ends or stops)."""
    seed: int = 0
    torch_threads: int = 1
    """Threads torch may use. Small networks on a few cores run many times faster on one thread
    than with torch's default, which oversubscribes the cores."""
    output_dir: str = "runs"
    """Where each run writes its own new folder, `<output_dir>/<env>-<seed>-<n>` (`n` counts the
    runs of that env and seed)."""
    batched: bool = True
    """Play the training games in the batched engine (`snail_envs.batched`, numba): random and
    heuristic opponents are played inside its kernels, and the self-play snapshots answer for
    all the games waiting on them at once. `false`: each game is a `snail_envs.single_agent`
    view of the Python environment (the same games, about 7–9 times the environment's share of
    the training time)."""

    def __post_init__(self) -> None:
        hints = typing.get_type_hints(type(self))
        for spec in dataclasses.fields(self):
            setattr(self, spec.name, _typed(spec.name, getattr(self, spec.name), hints[spec.name]))
        if self.env not in snail_envs.ENV_NAMES:
            raise ConfigError(
                "env", f"env must be one of {', '.join(snail_envs.ENV_NAMES)}; got {self.env!r}"
            )
        for name in AT_LEAST_ONE:
            if getattr(self, name) < 1:
                raise ConfigError(name, f"{name} must be at least 1; got {getattr(self, name)}")
        for name in AT_LEAST_ZERO:
            if getattr(self, name) < 0:
                raise ConfigError(name, f"{name} must be at least 0; got {getattr(self, name)}")
        if not 0 < self.learning_rate < 1:
            raise ConfigError(
                "learning_rate", f"learning_rate must be in (0, 1); got {self.learning_rate}"
            )
        if not 0 < self.gamma <= 1:
            raise ConfigError("gamma", f"gamma must be in (0, 1]; got {self.gamma}")
        if not 0 <= self.gae_lambda <= 1:
            raise ConfigError("gae_lambda", f"gae_lambda must be in [0, 1]; got {self.gae_lambda}")
        if not self.clip_range > 0:
            raise ConfigError("clip_range", f"clip_range must be positive; got {self.clip_range}")
        if any(width < 1 for width in self.net_arch):
            raise ConfigError(
                "net_arch", f"net_arch lists layer sizes, each at least 1; got {self.net_arch}"
            )
        _check_opponents(self.opponents)
        try:
            snail_envs.make(self.env, **self.env_options)
        except (ValueError, TypeError) as problem:
            raise ConfigError("env_options", f"env_options: {problem}") from None


AT_LEAST_ONE = (
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
)
AT_LEAST_ZERO = ("eval_games", "final_eval_games", "seed", "ent_coef")


class ConfigError(ValueError):
    """A field of the config that is wrong (`field` names it), and why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _typed(name: str, value: Any, expected: Any) -> Any:
    """`value` as the type `expected` of the field `name` (a numpy integer as an int, an int as
    a float), or a `ConfigError` naming the type expected."""
    kind = typing.get_origin(expected) or expected
    if kind is dict:
        if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
            raise ConfigError(name, f"{name} must map names to values; got {value!r}")
        if typing.get_args(expected)[1] is float:
            return {key: _number(f"{name}.{key}", item, float) for key, item in value.items()}
        return dict(value)
    if kind is list:
        if not isinstance(value, (list, tuple)):
            raise ConfigError(name, f"{name} must be a list of integers; got {value!r}")
        return [_number(f"{name}[{index}]", item, int) for index, item in enumerate(value)]
    if kind in (int, float):
        return _number(name, value, kind)
    if not isinstance(value, kind):
        raise ConfigError(name, f"{name} must be of type {kind.__name__}; got {value!r}")
    return value


def _number(name: str, value: Any, kind: type) -> int | float:
    """`value` as a finite number of `kind` (an int where a float is meant is fine; a bool or a
    string is not)."""
    allowed = numbers.Integral if kind is int else numbers.Real
    field = name.partition(".")[0].partition("[")[0]
    if isinstance(value, bool) or not isinstance(value, allowed):
        raise ConfigError(field, f"{name} must be of type {kind.__name__}; got {value!r}")
    if not math.isfinite(value):
        raise ConfigError(field, f"{name} must be a finite number; got {value}")
    return kind(value)


def _check_opponents(opponents: dict[str, float]) -> None:
    for kind in opponents:
        if kind not in OPPONENT_KINDS:
            raise ConfigError(
                "opponents",
                f"unknown opponent kind {kind!r}{_did_you_mean(kind, OPPONENT_KINDS)}; "
                f"opponents must weight the kinds {', '.join(OPPONENT_KINDS)}",
            )
    if any(weight < 0 for weight in opponents.values()) or sum(opponents.values()) <= 0:
        raise ConfigError(
            "opponents",
            f"opponents must weight the kinds {', '.join(OPPONENT_KINDS)} with non-negative "
            f"numbers, not all zero; got {opponents}",
        )


def _did_you_mean(name: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def default_config_path(env: str) -> Path:
    """The shipped config of `env`: `configs/<game>/ppo.yaml` (`<game>` is the env name without
    its version, `snail_sprint_v0` → `snail_sprint`)."""
    return CONFIGS / env.rpartition("_v")[0] / "ppo.yaml"


def load_config(
    env: str, path: str | Path | None = None, overrides: Sequence[str] = ()
) -> TrainConfig:
    """The config of `env`: its YAML file (default `configs/<game>/ppo.yaml`), then overrides
    `name=value` (YAML values; `env_options.name=value` for a rule option, `opponents.kind=w`
    for one weight). A missing file is a `FileNotFoundError`; every other problem a `ValueError`
    that blames the file or the command line, whichever brought the bad value."""
    source = Path(path) if path is not None else default_config_path(env)
    if not source.is_file():
        raise FileNotFoundError(f"no config file at {source}")
    try:
        values = yaml.safe_load(source.read_text())
    except yaml.YAMLError as problem:
        raise ValueError(f"{source} is not valid YAML: {' '.join(str(problem).split())}") from None
    if values is None:
        values = {}
    if not isinstance(values, dict):
        raise ValueError(f"{source} must map field names to values; got {values!r}")
    values.setdefault("env", env)
    if values["env"] != env:
        raise ValueError(f"{source} is a config for {values['env']}, not {env}")
    config = build_config(values, str(source))
    if not overrides:
        return config
    given = parse_overrides(overrides)
    if "env" in given:
        raise ValueError(f"command line, {given['env'][1]}: the game is chosen by --env, not env=")
    merged = {name: dict(value) if name in NESTED else value for name, value in values.items()}
    for name, (value, text) in given.items():
        group, dot, key = name.partition(".")
        if not dot:
            merged[name] = value
        elif isinstance(merged.setdefault(group, {}), dict):
            merged[group][key] = value
        else:
            raise ValueError(f"command line, {text}: {group} is not a mapping of names to values")
    return build_config(merged, "command line", {n: text for n, (_, text) in given.items()})


def parse_overrides(overrides: Sequence[str]) -> dict[str, tuple[Any, str]]:
    """Each override `name=value` as name → (its YAML value, the override as written)."""
    parsed: dict[str, tuple[Any, str]] = {}
    for override in overrides:
        name, separator, text = override.partition("=")
        if not separator or not name:
            raise ValueError(f"command line: overrides are written name=value; got {override!r}")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError:
            raise ValueError(f"command line, {override}: {text!r} is not a YAML value") from None
        group, dot, _ = name.partition(".")
        if dot and group not in NESTED:
            raise ValueError(
                f"command line, {override}: only {' and '.join(f'{g}.<name>' for g in NESTED)} nest"
            )
        parsed[name] = (value, override)
    return parsed


def build_config(
    values: dict[str, Any], origin: str = "config", overrides: dict[str, str] | None = None
) -> TrainConfig:
    """The `TrainConfig` of `values`, whose problems are blamed on `origin` (and, where the
    bad field was set by one of `overrides`, field → override text, on that override)."""
    fields = [spec.name for spec in dataclasses.fields(TrainConfig)]
    for name in values:
        if name not in fields:
            where = _where(origin, overrides, name)
            raise ValueError(
                f"{where}: unknown field {name!r}{_did_you_mean(name, fields)}; "
                f"fields: {', '.join(fields)}"
            )
    try:
        return TrainConfig(**values)
    except ConfigError as problem:
        raise ValueError(f"{_where(origin, overrides, problem.field)}: {problem}") from None


def _where(origin: str, overrides: dict[str, str] | None, name: str) -> str:
    """`origin`, and the overrides that set the field `name` (or one of its keys)."""
    setting = [text for key, text in (overrides or {}).items() if key.partition(".")[0] == name]
    return ", ".join([origin, *setting])
