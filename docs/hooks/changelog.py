"""CHANGELOG.md: every environment's version history, from its module's docstring.

    python docs/hooks/changelog.py > CHANGELOG.md

tests/docs/test_changelog.py holds the file to the docstrings; the docs site shows the same text.
"""

from __future__ import annotations

from snail_envs.docstrings import env_doc
from snail_envs.registry import GAMES

HEADER = """# Changelog

Each environment's version history, from its module's docstring (`python
docs/hooks/changelog.py > CHANGELOG.md` writes this file, and a test holds it to the
docstrings). A rule change that changes games bumps an environment's version; the old name
then raises an error naming the new one."""


def changelog_markdown() -> str:
    parts = [HEADER]
    for game in GAMES:
        history = "\n".join(env_doc(game.env_name).version_history())
        parts.append(f"## {game.title} (`{game.env_name}`)\n\n{history}")
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    print(changelog_markdown(), end="")
