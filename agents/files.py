"""Writing outputs safely: each file appears whole or not at all, and none is replaced unasked.

Every writer of the library (checkpoints, trained policies, summaries, tournament reports,
recorded games) goes through `atomic_path`: the content is written to a temporary file beside
the target and renamed onto it, so that a crash, Ctrl-C or a full disk never leaves a half-written
file where a finished one was expected, nor destroys the previous version. A target that exists
already is an error unless the caller asked to overwrite it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path


def refuse_existing(paths: Iterable[str | Path], overwrite: bool = False) -> None:
    """Raise `FileExistsError` naming the first of `paths` that exists, unless `overwrite`: the
    check a command makes before its work, so that it never runs for an hour to then refuse."""
    if overwrite:
        return
    for path in paths:
        if Path(path).exists():
            raise FileExistsError(
                f"{path} exists already; give --overwrite (overwrite=True) to replace it"
            )


@contextlib.contextmanager
def atomic_path(path: str | Path, overwrite: bool = False) -> Iterator[Path]:
    """A temporary path to write `path`'s content to, in the same folder and with the same
    suffix (so that writers which pick the format from the name pick the right one). When the
    `with` block ends without an error, the temporary file is renamed onto `path` (one atomic
    step); on an error it is removed and `path` is left as it was. An existing `path` is a
    `FileExistsError` unless `overwrite`."""
    path = Path(path)
    refuse_existing([path], overwrite)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _beside(path, path.suffix)
    try:
        yield temporary
        refuse_existing([path], overwrite)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_text(path: str | Path, text: str, overwrite: bool = False) -> Path:
    """Write `text` to `path` atomically (see `atomic_path`)."""
    with atomic_path(path, overwrite) as temporary:
        temporary.write_text(text)
    return Path(path)


@contextlib.contextmanager
def atomic_folder(path: str | Path, overwrite: bool = False) -> Iterator[Path]:
    """A temporary folder to fill with `path`'s content, renamed onto `path` when the `with`
    block ends without an error (removed on an error). An existing `path` is a
    `FileExistsError` unless `overwrite`; with it, the old folder is moved aside, the new one
    renamed in, and the old one removed: there is never a half-written folder at `path`."""
    path = Path(path)
    refuse_existing([path], overwrite)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _beside(path)
    temporary.mkdir()
    try:
        yield temporary
        refuse_existing([path], overwrite)
        if path.exists():
            retired = _beside(path)
            os.replace(path, retired)
            os.replace(temporary, path)
            shutil.rmtree(retired)
        else:
            os.replace(temporary, path)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary)


def _beside(path: Path, suffix: str = "") -> Path:
    """A new hidden name in `path`'s folder (not created: its writer creates it, with the
    permissions any new file gets)."""
    return path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp{suffix}"
