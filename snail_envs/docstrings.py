"""The two docstrings every game is documented by, read as data.

- The environment module's docstring (`snail_envs/<env>.py`) is the spec for programs: a title
  line, an introduction, then `## ` sections, among them a `Spec` table of `| key | value |`
  rows, the `Observation` index table, the `Options` table and the `Version history`.
- The rules module's docstring (`snail_envs/<game>/rules.py`) is the rulebook for people: a title
  line, then sections whose heading stands at the margin and whose text is indented by 4 spaces.

The docs site builds each game's page from both, `snail-play`'s `rules` command prints the
rulebook, and CHANGELOG.md is the version histories: one source each. A docstring that breaks
these forms raises `DocstringError`, naming the module and the line of its file.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from types import ModuleType

from snail_envs.registry import FACTS, GAME_FOLDERS, GAMES

REQUIRED_SECTIONS = ("Spec", "Observation", "Options", "Version history")
"""The sections every environment module's docstring has (a heading starts with its name)."""

REQUIRED_SPEC_ROWS = ("agents", "action space", "observation space", "rewards", "game length")
"""The rows every `Spec` table has."""

RULEBOOK_INDENT = "    "


class DocstringError(ValueError):
    """A docstring that does not follow its form; the message names the module and the line."""


@dataclass(frozen=True)
class Section:
    """One part of a docstring: its heading, the line of the file the heading is on, its text."""

    heading: str
    line: int
    body: str

    def named(self, name: str) -> bool:
        return self.heading == name or self.heading.startswith(f"{name} ")


@dataclass(frozen=True)
class EnvDoc:
    """An environment module's docstring, in its parts."""

    module: str
    line: int
    """The line of the file the docstring starts on."""
    title: str
    intro: str
    sections: tuple[Section, ...]

    def section(self, name: str) -> Section:
        """The section whose heading starts with `name`."""
        found = next((section for section in self.sections if section.named(name)), None)
        if found is None:
            raise DocstringError(
                f"{self.module}, line {self.line}: the docstring has no '## {name}' section"
            )
        return found

    def table(self, name: str) -> list[list[str]]:
        """The rows of the first Markdown table in section `name`, header and rule left out."""
        section = self.section(name)
        rows = table_rows(section.body)
        if not rows:
            raise DocstringError(
                f"{self.module}, line {section.line}: the '{section.heading}' section has no table"
            )
        return rows

    def spec(self) -> dict[str, str]:
        """The `Spec` table: value by key."""
        return {row[0]: row[1] for row in self.table("Spec")}

    def version_history(self) -> list[str]:
        """The version history's entries, newest first, each as its Markdown list item."""
        body = self.section("Version history").body
        return [item.rstrip() for item in re.split(r"\n(?=- )", body.strip()) if item.strip()]


@dataclass(frozen=True)
class Rulebook:
    """A rules module's docstring, in its parts: the rules of one game, for people."""

    module: str
    title: str
    sections: tuple[Section, ...]

    def text(self) -> str:
        """The rules as plain text, for a terminal: the docstring as written."""
        parts = [self.title]
        for section in self.sections:
            indented = "\n".join(
                f"{RULEBOOK_INDENT}{line}" if line else "" for line in section.body.splitlines()
            )
            parts.append(f"{section.heading}\n{indented}")
        return "\n\n".join(parts)

    def markdown(self, level: int = 3) -> str:
        """The rules as Markdown, each section under a heading of `level`."""
        return "\n\n".join(
            f"{'#' * level} {section.heading}\n\n{section.body}" for section in self.sections
        )


def env_doc(env_name: str) -> EnvDoc:
    """The parsed docstring of the environment module `snail_envs.<env_name>`."""
    module = importlib.import_module(f"snail_envs.{env_name}")
    first_line, lines = docstring_lines(module)
    title_end = lines.index("") if "" in lines else 1
    title, intro_end = " ".join(lines[:title_end]), _first_heading(lines)
    sections = []
    heading_at = [index for index, line in enumerate(lines) if line.startswith("## ")]
    for start, end in zip(heading_at, [*heading_at[1:], len(lines)], strict=True):
        sections.append(
            Section(
                heading=lines[start].removeprefix("## ").strip(),
                line=first_line + start,
                body="\n".join(lines[start + 1 : end]).strip("\n"),
            )
        )
    doc = EnvDoc(
        module=module.__name__,
        line=first_line,
        title=title,
        intro="\n".join(lines[title_end:intro_end]).strip("\n"),
        sections=tuple(sections),
    )
    _check_env_doc(doc)
    return doc


def _first_heading(lines: list[str]) -> int:
    return next((index for index, line in enumerate(lines) if line.startswith("## ")), len(lines))


def _check_env_doc(doc: EnvDoc) -> None:
    for name in REQUIRED_SECTIONS:
        doc.section(name)
    spec = doc.spec()
    missing = [row for row in REQUIRED_SPEC_ROWS if row not in spec]
    if missing:
        raise DocstringError(
            f"{doc.module}, line {doc.section('Spec').line}: the Spec table has no "
            f"{', '.join(repr(row) for row in missing)} row"
        )
    history = doc.section("Version history")
    if not doc.version_history():
        raise DocstringError(f"{doc.module}, line {history.line}: the version history is empty")


def rulebook(env_name: str) -> Rulebook:
    """The parsed rules docstring of the game whose environment is `env_name`."""
    if env_name not in FACTS:
        raise ValueError(f"unknown environment {env_name!r}; choose from {sorted(FACTS)}")
    folder = GAME_FOLDERS[GAMES.index(FACTS[env_name])]
    module = importlib.import_module(f"snail_envs.{folder}.rules")
    first_line, lines = docstring_lines(module)
    sections: list[Section] = []
    heading: tuple[str, int] | None = None
    body: list[str] = []
    for index, line in enumerate(lines[1:], start=1):
        if not line.strip() or line.startswith(RULEBOOK_INDENT):
            if heading is None and line.strip():
                raise DocstringError(
                    f"{module.__name__}, line {first_line + index}: indented text before the "
                    "first section heading"
                )
            body.append(line.removeprefix(RULEBOOK_INDENT))
        elif line[0].isspace():
            raise DocstringError(
                f"{module.__name__}, line {first_line + index}: a section's text is indented "
                f"by {len(RULEBOOK_INDENT)} spaces, and a heading not at all"
            )
        else:
            if heading is not None:
                sections.append(Section(heading[0], heading[1], "\n".join(body).strip("\n")))
            heading, body = (line.strip(), first_line + index), []
    if heading is None:
        raise DocstringError(f"{module.__name__}, line {first_line}: the rules have no sections")
    sections.append(Section(heading[0], heading[1], "\n".join(body).strip("\n")))
    return Rulebook(module=module.__name__, title=lines[0].strip(), sections=tuple(sections))


def docstring_lines(module: ModuleType) -> tuple[int, list[str]]:
    """The line of the file the module's docstring starts on, and the docstring's lines
    (cleaned as `inspect.cleandoc` does)."""
    if not module.__doc__:
        raise DocstringError(f"{module.__name__}: the module has no docstring")
    tree = ast.parse(inspect.getsource(module))
    first_line = tree.body[0].lineno
    return first_line, inspect.cleandoc(module.__doc__).splitlines()


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first Markdown table in `text`: cells split at `|` outside code."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [cell.strip() for cell in re.split(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)", line)]
            rows.append(cells[1:-1])
        elif rows:
            break
    return rows[2:]
