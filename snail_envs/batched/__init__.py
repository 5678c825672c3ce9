"""Batched engines: thousands of games in arrays, stepped together by compiled kernels.

    import snail_envs.batched
    batch = snail_envs.batched.make("snail_sprint_v0", num_envs=4096, num_players=3)
    out = batch.reset(seed=0)                  # out.observations, out.action_masks, out.seats
    out = batch.step(batch.random_actions())   # out.rewards, out.terminated, out.truncated

    venv = snail_envs.batched.make_vec_env("snail_sprint_v0", num_envs=64, opponents="heuristic")

Each engine plays exactly the game of its reference environment: same rules, same options, and
observations and masks identical to the reference observer's for the same situation (the
differential tests replay the kernels' games through the reference rules). See
`snail_envs.batched.core` for the arrays and the API.

The kernels are compiled by numba (`pip install -e ".[batched]"`) on first use, once per process
start unless cached: numba caches them on disk beside the modules (or in `NUMBA_CACHE_DIR`).
Importing `snail_envs` does not import numba. The loops that play a batch are written once
(`snail_envs.batched.drivers`) and compiled for each game, filed under the game's module. Numba
checks a cached kernel against that one source file only: after editing `chance.py`, `core.py`
or `drivers.py` (or `MAX_DEALS` in `snail_envs/core/options.py`, or a strategy the kernels
compile from `agents/heuristics/`) in a checkout, delete `snail_envs/batched/__pycache__` so that
the game kernels that call them compile again.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from snail_envs.registry import GAMES, load_named

ENGINES: dict[str, str] = {game.env_name: game.engine for game in GAMES if game.engine}
"""The batched engine (`module:class`) of each environment that has one, from its facts."""


def require_numba() -> None:
    """Raise a clear error when numba, which compiles the kernels, is not installed."""
    if importlib.util.find_spec("numba") is None:
        raise ImportError(
            'the batched engines need numba: pip install -e ".[batched]" '
            "(or pip install 'snail_envs[batched]')"
        )


def engine_class(name: str) -> Any:
    """The batched engine class of environment `name`."""
    if name not in ENGINES:
        import snail_envs

        snail_envs._module(name)
        raise ValueError(f"{name} has no batched engine yet; batched engines: {', '.join(ENGINES)}")
    require_numba()
    return load_named(ENGINES[name])


def make(name: str, num_envs: int, **options: Any) -> Any:
    """`num_envs` games of environment `name` in one batch, with its rule options as keywords
    (and `reward`, `final_observations`; see `snail_envs.batched.core`)."""
    return engine_class(name)(num_envs, **options)


def make_vec_env(name: str, num_envs: int, **kwargs: Any) -> Any:
    """A Stable-Baselines3 `VecEnv` of `num_envs` games: one learner seat each, the other seats
    played inside the kernels or by a batched policy (see
    `snail_envs.batched.vec_env.BatchedVecEnv`)."""
    from snail_envs.batched.vec_env import BatchedVecEnv

    return BatchedVecEnv(name, num_envs, **kwargs)
