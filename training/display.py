"""The run's progress on the terminal (`tqdm`, imported when a bar is shown)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


class Display:
    """The run's progress on the terminal, one display for all of it: a bar of a stage's
    timesteps, and below it a bar of the games of each evaluation while it runs (the final
    evaluation's bar stays). Disabled, it shows nothing."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._training: Any = None

    @contextlib.contextmanager
    def training(self, stage: str, total: int, done: int) -> Iterator[Callable[[int], None]]:
        """A bar of the stage `stage`'s timesteps from `done` to `total`; yields the function
        that moves it to a number of timesteps. Its rate and time left are the average since
        the bar began, evaluations between the rollouts included: they recur every so many
        timesteps, and a moving average of the last updates would leave them out of the
        estimate until the next one."""
        from tqdm.auto import tqdm

        bar = tqdm(
            total=total,
            initial=done,
            desc=stage,
            unit="timestep",
            smoothing=0,
            disable=not self.enabled,
        )
        self._training = bar

        def advance(timesteps: int) -> None:
            bar.update(min(timesteps, total) - bar.n)

        try:
            yield advance
        finally:
            self._training = None
            bar.close()

    @contextlib.contextmanager
    def evaluation(self, description: str, games: int, final: bool = False) -> Iterator[Any]:
        """A bar of `games` games (below the training bar while it shows); yields its tick."""
        from tqdm.auto import tqdm

        bar = tqdm(
            total=games,
            desc=description,
            unit="game",
            position=0 if self._training is None else 1,
            leave=final,
            disable=not self.enabled,
        )
        try:
            yield lambda: bar.update(1)
        finally:
            bar.close()
