"""Every game of the library in OpenSpiel: importing this module registers them with `pyspiel`.

    import pyspiel
    import snail_envs.openspiel  # registers snail_snap, snail_snailed_it, snail_snail_sprint, ...

    game = pyspiel.load_game("snail_snail_sprint", {"preset": "mini", "reward": "margin"})

Each game is named `snail_<folder>` after its folder under `snail_envs/`. Its parameters are the
env options (`reward` and every rule option; options whose default is a list or None as JSON text)
and `preset`, a preset of `configs/<folder>/` (`"mini"`: the variant small enough to solve) or a
YAML file's path: the preset's options apply first, then every parameter given with a value other
than its default. How chance, observations and information states work: `snail_envs.core.openspiel`.
Needs the `openspiel` extra.
"""

from __future__ import annotations

import importlib
from typing import Any

import pyspiel

from snail_envs.core.openspiel import Registration, SnailGame
from snail_envs.registry import GAME_FOLDERS

MAX_CHANCE_OUTCOMES: dict[str, Any] = {
    # a chance node offers at most: a deck's cards, a die's faces, the keys, the seats
    "snap": lambda options: max(options.deck_size, options.num_keys, options.num_players),
    # the 72 number cards, the 8 starters
    "snailed_it": lambda options: 72,
    # the race cards, a die's six faces, the tin's twelve spaces
    "snail_sprint": lambda options: max(len(options.race_cards), 6, 12),
    # the cards, a die's six faces
    "pedzace_slimaki": lambda options: max(len(options.cards), 6),
}
"""The most outcomes one chance node of each game may have, given its rule options."""

REGISTRATIONS: dict[str, Registration] = {
    f"snail_{folder}": Registration(
        env_class=importlib.import_module(f"snail_envs.{folder}.env").parallel_raw_env,
        folder=folder,
        max_chance_outcomes=MAX_CHANCE_OUTCOMES[folder],
    )
    for folder in GAME_FOLDERS
}
"""Each game's registration, by its OpenSpiel name."""

GAME_CLASSES: dict[str, type[SnailGame]] = {
    name: type(f"SnailGame_{registration.folder}", (SnailGame,), {"registration": registration})
    for name, registration in REGISTRATIONS.items()
}
"""Each game's `pyspiel.Game` class, by its OpenSpiel name."""

GAME_NAMES: tuple[str, ...] = tuple(REGISTRATIONS)
"""The OpenSpiel names of the games, in the library's order."""


def game_name(env_name: str) -> str:
    """The OpenSpiel name of the game of `env_name`."""
    for name, registration in REGISTRATIONS.items():
        if registration.spec.info.env_name == env_name:
            return name
    raise ValueError(f"no game {env_name!r}; games: {', '.join(GAME_NAMES)}")


def load(name: str, params: dict[str, Any] | None = None) -> SnailGame:
    """The game `name` (one of `GAME_NAMES`) with `params`, as `pyspiel.load_game` gives it."""
    if name not in REGISTRATIONS:
        raise ValueError(f"no game {name!r}; games: {', '.join(GAME_NAMES)}")
    game = pyspiel.load_game(name, params or {})
    assert isinstance(game, SnailGame)
    return game


for _name, _game_class in GAME_CLASSES.items():
    if _name not in pyspiel.registered_names():
        pyspiel.register_game(_game_class.registration.game_type(), _game_class)
