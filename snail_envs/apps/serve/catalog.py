"""What the page offers before a game: the games, their rules, options and presets, the agents.

The page lists each game's rule options with their defaults, written as text the way
`snail-play -o name=value` takes them (a Python literal, or a word for a string), and the rule
presets of `configs/<game>/` (every YAML file there but the training configs, which name their
`env`), each with the comment at its top. The number of players is set by the seats, and in Snap
so is `reaction_delay` (a seat's reflexes, in ticks): the page shows them beside each seat, so
the options table leaves them out. Each game comes with its rules, the text of the docs' "How to
play", and each kind of bot with its one-line description (`snail_envs.agents.AGENT_KINDS`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

import snail_envs
from snail_envs.agents import AGENT_KINDS
from snail_envs.cli import parse_option
from snail_envs.docstrings import rulebook
from snail_envs.training.config import rule_presets as presets_of_game

SET_BY_SEATS = ("num_players", "reaction_delay")
"""Options the seats give: one seat a player, and in a game with reflexes (Snap) each seat's
`reaction_delay`."""
HOST_OPTIONS = {"reward": "winlose"}
"""Options of every environment beside the rules that a table may set, with their defaults
(presets such as `dense_points` set `reward`)."""
AGENT_SUGGESTIONS = (
    "heuristic",
    "random",
    "ismcts",
    "ismcts:1000:heuristic",
    "search",
    "rollout",
    "ppo",
    "ppo:PATH",
)
"""Agent specs the page proposes for the bots' seats; any `make_agent` spec may be typed."""
SERVED_KINDS = tuple(kind for kind in AGENT_KINDS if kind not in ("human", "rllib"))
"""The kinds of bots a page may seat (the person's seat is `human`; `rllib` is not served)."""
MAX_OPTION_TEXT = 2000
"""The longest option value the page may send, in characters (a custom track fits)."""


def option_text(value: Any) -> str:
    """`value` as the page shows it and sends it back: a string as itself, anything else as
    its Python literal (tuples as lists, as YAML presets write them)."""
    return value if isinstance(value, str) else repr(_as_lists(value))


def _as_lists(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_as_lists(item) for item in value]
    return value


def parse_options(texts: Mapping[str, str]) -> dict[str, Any]:
    """Option values from the page's texts, read as `-o name=value` reads them."""
    return dict(parse_option(f"{name}={text}") for name, text in texts.items())


def rule_presets(env_name: str) -> list[Path]:
    """The rule presets of `env_name`, in `configs/<game>/` (training configs left out)."""
    return presets_of_game(env_name.rpartition("_v")[0])


def preset(path: Path) -> dict[str, Any]:
    """One preset as the page uses it: its name, what its top comment says, the players and
    (Snap) the seats' reaction delays it sets, and its other options as texts."""
    values = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    comment = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        comment.append(line.lstrip("# "))
    return {
        "name": path.stem,
        "about": " ".join(comment),
        "num_players": values.get("num_players"),
        "reaction_delay": values.get("reaction_delay"),
        "options": {
            name: option_text(value) for name, value in values.items() if name not in SET_BY_SEATS
        },
    }


def game_entry(env_name: str) -> dict[str, Any]:
    """One game of the catalog: its name, title, player range, whether a person plays it on
    the wall clock (its `realtime` fact) and its seats have reflexes (`reaction_delay`), its
    options, presets and rules."""
    spec = snail_envs.make(env_name).unwrapped.spec
    defaults = dataclasses.asdict(spec.options_class())
    fields = [field for field in dataclasses.fields(spec.options_class) if field.init]
    options = [
        {"name": field.name, "default": option_text(defaults[field.name])}
        for field in fields
        if field.name not in SET_BY_SEATS
    ]
    options += [{"name": name, "default": text} for name, text in HOST_OPTIONS.items()]
    return {
        "name": env_name,
        "title": spec.info.title,
        "min_players": spec.info.min_players,
        "max_players": spec.info.max_players,
        "realtime": spec.info.realtime,
        "reaction_delays": any(field.name == "reaction_delay" for field in fields),
        "options": options,
        "presets": [preset(path) for path in rule_presets(env_name)],
        "rules": rules_entry(env_name),
    }


def agent_catalog() -> dict[str, Any]:
    """The agents the page offers: the specs it proposes and each kind of bot with its line of
    description (`snail_envs.agents.AGENT_KINDS`), which the page shows beside each seat."""
    return {
        "suggestions": list(AGENT_SUGGESTIONS),
        "kinds": {kind: AGENT_KINDS[kind] for kind in SERVED_KINDS},
    }


def rules_entry(env_name: str) -> dict[str, Any]:
    """The rules of a game as the page's Rules panel shows them: the text of the docs' "How to
    play" and of `snail-play GAME --rules` (`snail_envs.docstrings.rulebook`), in sections. The
    page sets it as text, never as HTML."""
    book = rulebook(env_name)
    return {
        "title": book.title,
        "sections": [
            {"heading": section.heading, "text": section.body} for section in book.sections
        ],
    }


def catalog() -> list[dict[str, Any]]:
    """Every game this installation provides, as the page lists them."""
    return [game_entry(name) for name in snail_envs.available_env_names()]
