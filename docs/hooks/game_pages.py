"""Each game's page of the docs site, written from its two docstrings.

The environment module's docstring (`snail_envs/<env>.py`) gives the facts table and the spec
sections, the rules module's docstring (`snail_envs/<game>/rules.py`) the "How to play" section
(`snail_envs.docstrings` parses both, and fails naming the module and the line). The games are
found through `snail_envs.registry`, never by name.
"""

from __future__ import annotations

import re

from snail_envs.core.game import GameInfo
from snail_envs.docstrings import DocstringError, EnvDoc, env_doc, rulebook
from snail_envs.registry import GAME_FOLDERS, GAMES

FACT_ROWS = (
    ("agents", "agents"),
    ("API", "API"),
    ("action space", "action space"),
    ("action mask", "action mask"),
    ("observation space", "observation space"),
    ("rewards", "rewards"),
    ("termination", "game length"),
    ("hidden information", "hidden information"),
    ("seat view", "seat view"),
)
"""The facts table's rows taken from the Spec table: (row shown, Spec key)."""

SPEC_SECTIONS_SHOWN_AS_FACTS = ("Spec",)


def folder_of(game: GameInfo) -> str:
    return GAME_FOLDERS[GAMES.index(game)]


def page_path(game: GameInfo) -> str:
    """Where the game's page lies in the site (by folder: a version bump keeps the address)."""
    return f"games/{folder_of(game)}.md"


def media_paths(game: GameInfo) -> tuple[str, str]:
    """The game's GIF and seat-view picture in the site."""
    folder = folder_of(game)
    return f"games/{folder}.gif", f"games/{folder}_seat.png"


def game_page(game: GameInfo, media_caption: str) -> str:
    """The Markdown of the game's page."""
    doc = env_doc(game.env_name)
    gif, seat = (path.removeprefix("games/") for path in media_paths(game))
    parts = [
        f"# {game.title}",
        f"*{doc.title}* Generated from the docstrings of `{doc.module}` and "
        f"`{rulebook(game.env_name).module}`.",
        doc.intro,
        f"![A game of {game.title} between heuristic players]({gif})\n\n*{media_caption}*",
        "## Facts",
        facts_table(game, doc),
        "## How to play",
        f"The rules for people (`snail-play {game.env_name} --rules` prints the same text).",
        f"![One seat's view of {game.title}]({seat}){{ width=480 }}\n\n"
        "*What one seat sees: the public table and its own cards, never another seat's "
        '(`env.unwrapped.render_seat(agent, mode="rgb_array")`).*',
        rulebook(game.env_name).markdown(level=3),
    ]
    for section in doc.sections:
        if section.heading not in SPEC_SECTIONS_SHOWN_AS_FACTS:
            parts += [f"## {section.heading}", section.body]
    return "\n\n".join(parts) + "\n"


def facts_table(game: GameInfo, doc: EnvDoc) -> str:
    """Version, players, the Spec rows, the options with their defaults, the last version."""
    spec = doc.spec()
    rows = [
        ("version", f"`{game.env_name}`: {latest_change(doc)} ([history](#version-history))"),
        ("players", f"{game.min_players}–{game.max_players}"),
        ("observation size", observation_size(doc)),
    ]
    rows += [(shown, spec[key]) for shown, key in FACT_ROWS if key in spec]
    rows.append(("options (defaults)", options_with_defaults(doc)))
    lines = ["| fact | value |", "|---|---|"]
    lines += [f"| {name} | {one_line(value)} |" for name, value in rows]
    return "\n".join(lines)


def latest_change(doc: EnvDoc) -> str:
    """The first line of the newest version's entry (`v1: games between equal players ...`)."""
    return doc.version_history()[0].splitlines()[0].removeprefix("- ")


def observation_size(doc: EnvDoc) -> str:
    """The observation vector's length with the default options, from the Spec's space."""
    space = doc.spec()["observation space"]
    size = re.search(r"observation=Box\([^)]*\((\d+),\)", space)
    if size is None:
        raise DocstringError(
            f"{doc.module}, line {doc.section('Spec').line}: the observation space row gives "
            f"no Box shape: {space}"
        )
    return f"{size.group(1)} floats, {len(doc.table('Observation'))} pieces (indexed below)"


def options_with_defaults(doc: EnvDoc) -> str:
    return ", ".join(f"{row[0]} = {row[1]}" for row in doc.table("Options"))


def one_line(text: str) -> str:
    return " ".join(text.split())


def games_index() -> str:
    """The page listing the games, each linked to its page."""
    lines = [
        "# The games",
        "Each page is generated from the environment module's docstring (the spec) and the "
        "rules module's docstring (how to play); `help(snail_envs.<env>)` shows the same spec.",
        "| game | environment | players | actions | simultaneous windows | hidden information |",
        "|---|---|---|---|---|---|",
    ]
    body = [
        f"| [{game.title}]({page_path(game).removeprefix('games/')}) | `{game.env_name}` | "
        f"{game.min_players}–{game.max_players} | {game.num_actions} | "
        f"{'yes' if game.simultaneous else 'no'} | {'yes' if game.hidden_information else 'no'} |"
        for game in GAMES
    ]
    return "\n\n".join(lines[:2]) + "\n\n" + "\n".join(lines[2:] + body) + "\n"
