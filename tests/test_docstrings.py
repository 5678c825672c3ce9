"""The environment and rules docstrings parse into the parts the docs pages and `rules` use."""

from __future__ import annotations

import types

import pytest

from snail_envs import docstrings
from snail_envs.docstrings import DocstringError, env_doc, rulebook
from snail_envs.registry import GAMES


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.env_name)
def test_every_env_docstring_has_the_spec_the_pages_need(game) -> None:
    doc = env_doc(game.env_name)
    assert f"`{game.env_name}`" in doc.title
    spec = doc.spec()
    assert spec["action space"].startswith(f"`Discrete({game.num_actions})`")
    pieces = doc.table("Observation")
    assert all(len(row) == 4 for row in pieces) and pieces[0][1].startswith("0")
    assert any(row[0] == "`num_players`" for row in doc.table("Options"))
    assert doc.version_history()[0].startswith(f"- v{game.env_name.rsplit('_v', 1)[1]}")


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.env_name)
def test_every_rulebook_has_sections_and_reads_back_as_written(game) -> None:
    rules = rulebook(game.env_name)
    assert len(rules.sections) >= 4
    assert all(section.body for section in rules.sections)
    module = __import__(rules.module, fromlist=["__doc__"])
    written = "\n".join(line.rstrip() for line in module.__doc__.strip().splitlines())
    assert rules.text() == written
    assert "### " + rules.sections[0].heading in rules.markdown()


def fake_module(monkeypatch, name: str, doc: str) -> None:
    module = types.ModuleType(name)
    module.__doc__ = doc
    monkeypatch.setitem(__import__("sys").modules, name, module)
    monkeypatch.setattr(docstrings.inspect, "getsource", lambda _: f'"""{doc}"""\n')


def test_an_env_docstring_without_a_section_names_the_module(monkeypatch) -> None:
    fake_module(monkeypatch, "snail_envs.broken_v0", "Broken.\n\n## Spec\n\n| | |\n|---|---|\n")
    with pytest.raises(DocstringError, match=r"^snail_envs.broken_v0, line 1: .* '## Observation'"):
        env_doc("broken_v0")


def test_a_spec_table_missing_a_row_names_the_module_and_line(monkeypatch) -> None:
    doc = (
        "Broken.\n\n## Spec\n\n| | |\n|---|---|\n| agents | two |\n\n## Observation\n\n"
        "## Options\n\n## Version history\n\n- v0: first.\n"
    )
    fake_module(monkeypatch, "snail_envs.broken_v0", doc)
    with pytest.raises(DocstringError, match=r"broken_v0, line 3: the Spec table has no"):
        env_doc("broken_v0")


def test_a_rulebook_line_out_of_form_names_the_module_and_line(monkeypatch) -> None:
    game = GAMES[0]
    folder = docstrings.GAME_FOLDERS[0]
    doc = "Rules.\n\nSetup\n    Deal.\n  badly indented\n"
    fake_module(monkeypatch, f"snail_envs.{folder}.rules", doc)
    with pytest.raises(DocstringError, match=rf"{folder}.rules, line 5: a section's text"):
        rulebook(game.env_name)


def test_an_unknown_game_has_no_rulebook() -> None:
    with pytest.raises(ValueError, match="unknown environment 'chess_v0'; choose from"):
        rulebook("chess_v0")
