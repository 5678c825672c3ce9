"""A hand-written player for each game; each docstring states its strategy."""

from __future__ import annotations

from snail_envs.agents.base import Heuristic
from snail_envs.registry import GAMES, load_named

HEURISTICS: dict[str, type[Heuristic]] = {
    game.env_name: load_named(game.heuristic) for game in GAMES if game.heuristic
}
"""The heuristic player of each environment, by environment name (from the game's facts)."""
