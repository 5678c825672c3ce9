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
from training.imitation import ImitationConfig, make_teacher

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
OPPONENT_KINDS = ("random", "heuristic", "self")
STAGES = ("imitation", "ppo")
"""The training stages, in the order a run goes through those it names."""


@dataclass
class TrainConfig:
    """Training stages: imitation of a teacher, then MaskablePPO against a mix of opponents, one
    learner seat rotating over episodes."""

    env: str = "snail_sprint_v0"
    """The game (one of `snail_envs.ENV_NAMES`)."""
    env_options: dict[str, Any] = field(default_factory=dict)
    """Rule options of the game (as for `snail_envs.make`)."""
    stages: list[str] = field(default_factory=lambda: ["ppo"])
    """The stages to go through, in this order: `imitation` (clone a teacher into the network,
    `imitation.*`; see `training.imitation`), then `ppo` (MaskablePPO, from the cloned weights
    when imitation came first)."""
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    """The imitation stage's settings (`imitation.<name>=value`)."""
    init_from: str = ""
    """A policy saved by an earlier run (its `policy.pt`, `model.zip`, `best_model.zip` or a
    checkpoint) whose weights the network starts from, before the first stage: `stages: [ppo]`
    then fine-tunes a saved clone, anchored to it, without repeating the imitation. It must
    play this game under these rule options, with this `net_arch`. Empty: a fresh network."""
    total_timesteps: int = 200_000
    """Learner decisions to train for in the ppo stage."""
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
    anchor_coef: float = 0.0
    """Weight of KL(cloned policy ‖ policy), the mean over each update's states, added to the
    PPO loss: it keeps the fine-tuned policy near the policy it starts from, the clone of the
    imitation stage or of `init_from` (one of which it needs when this is above 0)."""
    anchor_decay_steps: int = 0
    """Timesteps over which the anchor's weight falls linearly to 0 (0: it keeps its weight)."""
    keep_best: bool = False
    """Make the run's model the ppo stage's policy that scored best at the learning curve's
    points (against the heuristic where the game has one, else random), not the last one."""
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
        self._check_stages()

    def _check_stages(self) -> None:
        unknown = [stage for stage in self.stages if stage not in STAGES]
        if unknown or not self.stages:
            raise ValueError(
                f"stages must name one or more of {', '.join(STAGES)}; got {self.stages} "
                f"(unknown: {', '.join(map(str, unknown)) or 'none'})"
            )
        if self.stages != [stage for stage in STAGES if stage in self.stages]:
            raise ValueError(
                f"stages go in the order {', '.join(STAGES)}, each once; got {self.stages}"
            )
        if self.anchor_coef < 0 or self.anchor_decay_steps < 0:
            raise ValueError("anchor_coef and anchor_decay_steps must be at least 0")
        if self.anchor_coef > 0 and self.stages == ["ppo"] and not self.init_from:
            raise ValueError(
                "anchor_coef anchors the ppo stage to the clone of the imitation stage or of "
                f"init_from: it needs stages [imitation, ppo] or an init_from; got {self.stages}"
            )
        if self.init_from:
            from training.finetune import initial_policy

            initial_policy(self.init_from, self.env, self.env_options, self.net_arch)
        if "imitation" in self.stages:
            make_teacher(self.imitation.teacher, self.env, self.env_options)

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
            if group not in NESTED:
                raise ValueError(
                    f"only {', '.join(f'{g}.<name>' for g in NESTED)} nest; got {name!r}"
                )
            values.setdefault(group, {})[key] = value
        else:
            values[name] = value
    return build_config(values, str(source))


NESTED = ("env_options", "opponents", "imitation")
"""The fields whose entries an override names as `field.entry=value`."""


def build_config(values: dict[str, Any], origin: str = "config") -> TrainConfig:
    return _build(TrainConfig, values, origin)


def _build(cls: type, values: dict[str, Any], origin: str, prefix: str = "") -> Any:
    """`cls(**values)` after checking every name and type; a dataclass field is built from a
    mapping of its own fields."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(f"{prefix}{name}" for name in set(values) - set(fields))
    if unknown:
        known = ", ".join(f"{prefix}{name}" for name in fields)
        raise ValueError(f"{origin}: unknown field(s) {unknown}; fields: {known}")
    hints = typing.get_type_hints(cls)
    built = {}
    for name, value in values.items():
        if dataclasses.is_dataclass(hints[name]):
            _check_type(f"{prefix}{name}", value, dict)
            built[name] = _build(hints[name], value, origin, f"{prefix}{name}.")
        else:
            _check_type(f"{prefix}{name}", value, hints[name])
            built[name] = value
    return cls(**built)


def _check_type(name: str, value: Any, expected: Any) -> None:
    origin = typing.get_origin(expected) or expected
    if origin is float and isinstance(value, int) and not isinstance(value, bool):
        return
    if not isinstance(value, origin) or (isinstance(value, bool) and origin is not bool):
        raise ValueError(
            f"{name} must be of type {getattr(expected, '__name__', expected)}; got {value!r}"
        )
