"""Shared fixtures: golden playthrough files; the log folders Stable-Baselines3 makes for models
without one kept in the session's temporary folder. Under pytest-xdist the workers share numba's
cache (beside the modules, or `NUMBA_CACHE_DIR`): one compiles a kernel, the others wait and load
it (`snail_envs.batched.compiling.one_process_a_cache`)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> None:
    """A model that learns without a log folder of its own makes one, `SB3-<time>`, in
    `SB3_LOGDIR` or else the system's temporary folder: the tests' go to the session's."""
    os.environ.setdefault("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3-logs")))


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
