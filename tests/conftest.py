"""Shared fixtures: golden playthrough files."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite the golden playthrough files from the current behaviour",
    )


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> Callable[[Path, str], None]:
    """Compare a text with a golden file (rewrite it with `pytest --update-golden`)."""

    def compare(path: Path, text: str) -> None:
        if request.config.getoption("--update-golden"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            return
        if not path.exists():
            pytest.fail(f"golden file {path} is missing; create it with pytest --update-golden")
        expected = path.read_text(encoding="utf-8")
        if text != expected:
            diff = "".join(
                list(
                    difflib.unified_diff(
                        expected.splitlines(keepends=True),
                        text.splitlines(keepends=True),
                        "golden",
                        "now",
                    )
                )[:80]
            )
            pytest.fail(
                f"behaviour differs from {path.name} (if intended: pytest --update-golden)\n{diff}"
            )

    return compare
