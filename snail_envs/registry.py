"""The games of the library: one line each, naming the folder whose `rules.py` declares its facts.

Everything that looks a game up by its environment name reads it here: the environment names
(`snail_envs.ENV_NAMES`), the batched engines (`snail_envs.batched.ENGINES`), the heuristic
players (`snail_envs.agents.HEURISTICS`) and the games the rollout search plays
(`snail_envs.agents.rollout_search`). See docs/new_game.md for what a new game adds.
"""

from __future__ import annotations

import importlib
from typing import Any

from snail_envs.core.game import GameInfo

GAME_FOLDERS: tuple[str, ...] = (
    "snap",
    "snailed_it",
    "snail_sprint",
    "pedzace_slimaki",
)
"""The folder of each game under `snail_envs/`, in the order the library lists them."""

GAMES: tuple[GameInfo, ...] = tuple(
    importlib.import_module(f"snail_envs.{folder}.rules").FACTS for folder in GAME_FOLDERS
)
"""The facts of every game (`FACTS` in `snail_envs/<folder>/rules.py`)."""

FACTS: dict[str, GameInfo] = {game.env_name: game for game in GAMES}
"""The facts of each game, by environment name."""


def load_named(path: str) -> Any:
    """The object a `module:name` path names (the form of `GameInfo.engine` and `.heuristic`)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
