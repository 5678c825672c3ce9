"""Ctrl-C and SIGTERM during a training run: finish the step under way, save, stop cleanly.

Inside `with StopRequests() as stop:`, the first SIGINT or SIGTERM does not interrupt anything:
it records the request (`stop.signal`), and the training loop, which asks `stop.requested` at
every step, ends there and saves what it has. Work that may be dropped halfway without harm
(playing evaluation games) runs inside `stop.abandonable()`, where a request raises
`KeyboardInterrupt` at once. A second request raises `KeyboardInterrupt` wherever it lands: the
person insists.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopRequests:
    """The stop requests (SIGINT, SIGTERM) of the `with` block (see the module docstring).
    Outside the main thread, where Python delivers no signals, nothing is caught."""

    def __init__(self) -> None:
        self.signal: str | None = None
        """The name of the first signal received (`"SIGINT"`), or None."""
        self._abandonable = False
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signal is not None

    def __enter__(self) -> StopRequests:
        if threading.current_thread() is threading.main_thread():
            for number in SIGNALS:
                self._previous[number] = signal.signal(number, self._receive)
        return self

    def __exit__(self, *exception: object) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous.clear()

    def _receive(self, number: int, frame: FrameType | None) -> None:
        insisted = self.requested
        self.signal = self.signal or signal.Signals(number).name
        if insisted or self._abandonable:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def abandonable(self) -> Iterator[None]:
        """Work that a stop request abandons at once (`KeyboardInterrupt` in the block); raises
        it on entry if a stop was requested already."""
        if self.requested:
            raise KeyboardInterrupt
        self._abandonable = True
        try:
            yield
        finally:
            self._abandonable = False
