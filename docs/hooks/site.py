"""The MkDocs hook that adds the generated pages to the site as it is built.

- `games/`: a page per game of `snail_envs.registry.GAMES` (`game_pages`), with its GIF and
  seat-view picture (`game_media`), and the list of games; the nav's "Games" section lists them.
- `changelog.md`: the environments' version histories (`changelog`), as CHANGELOG.md holds them.
- `<!-- headline-results -->` and `<!-- data: ... -->` in a page: the results tables
  (`results_tables`), from the data in docs/data/ that the tools wrote.

Nothing generated is written into docs/: the files exist only in the built site.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from changelog import changelog_markdown
from game_media import game_media
from game_pages import game_page, games_index, media_paths, page_path
from mkdocs.structure.files import File, Files
from results_tables import fill_tables

from snail_envs.registry import GAMES

GAMES_SECTION = "Games"


def on_config(config: Any) -> Any:
    """List every game's page under the nav's "Games" section, after its index."""
    for entry in config["nav"]:
        if isinstance(entry, dict) and GAMES_SECTION in entry:
            entry[GAMES_SECTION] = ["games/index.md", *(page_path(game) for game in GAMES)]
    return config


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "games/index.md", content=games_index()))
    for game in GAMES:
        media = game_media(game)
        gif, seat = media_paths(game)
        files.append(File.generated(config, gif, content=media.gif))
        files.append(File.generated(config, seat, content=media.seat_view))
        content = game_page(game, media.caption)
        files.append(File.generated(config, page_path(game), content=content))
    files.append(File.generated(config, "changelog.md", content=changelog_markdown()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return fill_tables(markdown, page.file.src_path)
