"""Stopping a decision part way: a flag a thread's work checks between search iterations.

A searching agent may think for seconds. Whoever runs it in a worker thread (the web server, one
worker per page) can ask it to stop: the work runs under `stop_on(flag)`, and the searches call
`check_stop()` between their iterations, which raises `Stopped` once the flag is set. Work run
without a flag (`snail-play`, training, tests) is never stopped: `check_stop` then does nothing.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class Stopped(Exception):
    """The work was abandoned because its stop flag was set."""


_flags = threading.local()


@contextlib.contextmanager
def stop_on(flag: threading.Event) -> Iterator[None]:
    """Run the block with `flag` as this thread's stop flag (the one before it is restored)."""
    before = getattr(_flags, "flag", None)
    _flags.flag = flag
    try:
        yield
    finally:
        _flags.flag = before


def check_stop() -> None:
    """Raise `Stopped` if this thread's work was asked to stop (see the module docstring)."""
    flag: threading.Event | None = getattr(_flags, "flag", None)
    if flag is not None and flag.is_set():
        raise Stopped("the work was stopped")
