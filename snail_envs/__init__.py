"""snail_envs: multi-agent RL environments for four tabletop games, on PettingZoo.

    import snail_envs
    env = snail_envs.make("snail_sprint_v0", num_players=3, render_mode="ansi")   # AEC
    par = snail_envs.make_parallel("snail_sprint_v0", num_players=3)              # parallel

Every environment also has a registry id (`snail_envs/snail_sprint-v0`, ...): once `snail_envs` is
imported, `pettingzoo.make("aec", id)` gives the multi-agent environment and `gymnasium.make(id)`
its single-agent view (`snail_envs.single_agent`: one learner seat, opponents played inside);
`snail_envs.make_vec_env` puts several such views in one Stable-Baselines3 `VecEnv`.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import gymnasium
import pettingzoo
from pettingzoo.utils.deprecated_module import DeprecatedEnv

from snail_envs.core.options import check_int
from snail_envs.registry import GAMES

__version__ = "0.2.0"

ENV_NAMES: tuple[str, ...] = tuple(game.env_name for game in GAMES)
"""The environments of the library, by name (from `snail_envs.registry`)."""

RETIRED_NAMES: dict[str, str] = {"snap_v0": "snap_v2", "snap_v1": "snap_v2"}
"""Earlier versions of the environments, each with the version that replaces it now."""


class RetiredEnvError(DeprecatedEnv, ValueError):
    """An environment version that a rule change replaced. It is PettingZoo's `DeprecatedEnv`
    (an `ImportError`) and a `ValueError`, like every other bad environment name."""


def deprecated_env(name: str) -> RetiredEnvError:
    """The error for the retired environment `name`, naming the version that replaced it."""
    return RetiredEnvError(
        f"{name} is now deprecated, use {RETIRED_NAMES[name]} instead (its rules changed: see "
        f"the version history in snail_envs.{RETIRED_NAMES[name]})"
    )


def _module(name: str) -> Any:
    if name in RETIRED_NAMES:
        raise deprecated_env(name)
    if name not in ENV_NAMES:
        raise ValueError(f"unknown environment {name!r}; environments: {', '.join(ENV_NAMES)}")
    try:
        return importlib.import_module(f"snail_envs.{name}")
    except ModuleNotFoundError as missing:
        if missing.name != f"snail_envs.{name}":
            raise
        raise ValueError(
            f"{name} is not available in this version of snail_envs; available: "
            f"{', '.join(available_env_names())}"
        ) from None


def available_env_names() -> tuple[str, ...]:
    """The environments this installation provides."""
    return tuple(
        name for name in ENV_NAMES if importlib.util.find_spec(f"snail_envs.{name}") is not None
    )


def make(name: str, **options: Any) -> Any:
    """A new PettingZoo AEC environment `name`, with rule and env options as keywords."""
    return _module(name).env(**options)


def make_parallel(name: str, **options: Any) -> Any:
    """A new PettingZoo parallel environment `name`, with rule and env options as keywords."""
    return _module(name).parallel_env(**options)


def single_agent(
    name: str,
    opponents: Any = None,
    opponent_weights: Any = None,
    seat: int | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> Any:
    """A single-agent Gymnasium view of `name`, with rule and env options as keywords: one
    learner seat, opponents played inside (see `snail_envs.core.single_agent.SingleAgentEnv`
    for `opponents`, `opponent_weights` and `seat`)."""
    from snail_envs.core.single_agent import SingleAgentEnv

    game = make(name, render_mode=render_mode, **options)
    return SingleAgentEnv(game, opponents, opponent_weights, seat)


def make_vec_env(name: str, num_envs: int, **kwargs: Any) -> Any:
    """A Stable-Baselines3 `VecEnv` of `num_envs` single-agent views of `name` (the keywords are
    each view's; see `snail_envs.core.vec_env.SingleAgentVecEnv`). Needs the `train` extra."""
    from snail_envs.core.vec_env import SingleAgentVecEnv

    _module(name)
    check_int("num_envs", num_envs, 1)
    return SingleAgentVecEnv([lambda: single_agent(name, **kwargs)] * int(num_envs))


def registry_id(name: str) -> str:
    """The PettingZoo registry id of environment `name` (`snail_envs/snap-v2` for `snap_v2`)."""
    base, version = name.rsplit("_v", 1)
    return f"snail_envs/{base}-v{version}"


def _retired_entry_point(name: str) -> Any:
    def retired(**_: Any) -> Any:
        raise deprecated_env(name)

    return retired


for _name in available_env_names():
    if registry_id(_name) not in gymnasium.registry:
        gymnasium.register(
            registry_id(_name),
            entry_point="snail_envs:single_agent",
            kwargs={"name": _name},
            disable_env_checker=True,
        )
for _name in (*available_env_names(), *RETIRED_NAMES):
    for _kind, _entry in (("aec", "env"), ("parallel", "parallel_env")):
        if registry_id(_name) not in getattr(pettingzoo, f"{_kind}_registry"):
            pettingzoo.register(
                _kind,
                registry_id(_name),
                # gymnasium.make of a retired id names its successor by itself (DeprecatedEnv)
                entry_point=(
                    _retired_entry_point(_name)
                    if _name in RETIRED_NAMES
                    else f"snail_envs.{_name}:{_entry}"
                ),
            )
