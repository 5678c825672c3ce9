"""Writing outputs safely: each file appears whole or not at all, and none is replaced unasked.

Every writer of the library (checkpoints, trained policies, summaries, tournament reports,
recorded games, the web server's saved games) goes through `atomic_path`: the content is written
to a temporary file beside the target and published in one step, so that a crash, Ctrl-C or a
full disk never leaves a half-written file where a finished one was expected, nor destroys the
previous version. A target that exists already is an error unless the caller asked to overwrite
it, and that check and the publication are one step too: the finished file is hard-linked to
the target (`os.link`, which fails if the target exists), so of two writers racing for one name
exactly one wins and the other gets a `FileExistsError`. Overwriting renames onto the target.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path


def taken(path: str | Path) -> FileExistsError:
    """The error for a target `path` that exists, unasked to be replaced."""
    return FileExistsError(
        f"{path} exists already; give --overwrite (overwrite=True) to replace it"
    )


def refuse_existing(paths: Iterable[str | Path], overwrite: bool = False) -> None:
    """Raise `FileExistsError` naming the first of `paths` that exists, unless `overwrite`: the
    check a command makes before its work, so that it never runs for an hour to then refuse."""
    if overwrite:
        return
    for path in paths:
        if Path(path).exists():
            raise taken(path)


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
        if overwrite:
            os.replace(temporary, path)
        else:
            publish(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def publish(temporary: Path, path: Path) -> None:
    """Give the finished file `temporary` the name `path`, unless `path` exists: one atomic
    step (a hard link), a `FileExistsError` if another writer took the name first. On a file
    system without hard links, the name is claimed by creating it exclusively, then replaced."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise taken(path) from None
    except OSError:
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            raise taken(path) from None
        os.replace(temporary, path)


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
        if overwrite and path.exists():
            retired = _beside(path)
            os.replace(path, retired)
            os.replace(temporary, path)
            shutil.rmtree(retired)
        else:
            _rename_folder(temporary, path)
    finally:
        if temporary.exists():
            shutil.rmtree(temporary)


def _rename_folder(temporary: Path, path: Path) -> None:
    """Rename the folder `temporary` to `path`, which must not exist: a `FileExistsError` if
    another writer made it first (a rename onto a folder that is not empty fails)."""
    if path.exists():
        raise taken(path)
    try:
        os.rename(temporary, path)
    except OSError as problem:
        if problem.errno not in (errno.EEXIST, errno.ENOTEMPTY, errno.ENOTDIR):
            raise
        raise taken(path) from None


def _beside(path: Path, suffix: str = "") -> Path:
    """A new hidden name in `path`'s folder (not created: its writer creates it, with the
    permissions any new file gets)."""
    return path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp{suffix}"
