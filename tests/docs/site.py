"""Building the docs site into a folder, and serving it on the loopback for a browser."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def build_site(folder: Path) -> Path:
    """`mkdocs build --strict` into `folder` (a skip, saying why, without the `docs` extra); a
    failed build fails with MkDocs' own account of it."""
    pytest.importorskip(
        "mkdocs", reason="the docs site needs the docs extra: pip install -e '.[docs]'"
    )
    pytest.importorskip("material", reason="the docs site needs mkdocs-material (the docs extra)")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"},
        timeout=300,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stderr}"
    return folder


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """No line per request."""


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on 127.0.0.1 (a free port) for the duration; its address."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join(timeout=10)


def pages(site: Path) -> list[Path]:
    """Every page of the built site (the 404 page is MkDocs' own)."""
    return sorted(path for path in site.rglob("*.html") if path.name != "404.html")
