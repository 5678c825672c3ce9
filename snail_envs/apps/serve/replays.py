"""Replays in the page: the files of the `--replays` folder, re-simulated and stepped through.

Only that folder is read, and only the replays it lists: a name the page sends must be one of
`ReplayFolder.names()` (a plain `.jsonl` file directly in the folder, not a link leading out of
it), so no name reaches another file. Opening one re-simulates and checks the whole game
(`snail_envs.apps.replay`); a bad file or a mismatch is a `ValueError` the page is shown.
The page then asks for the table before any decision: its text comes from the check, its
picture (the spectator's, as `snail-replay --gif` draws it) from re-simulating up to there,
continuing forward from the position shown last.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from snail_envs.apps.replay import Replay, positions, read_replay, simulate
from snail_envs.apps.serve.table import png_data_url


class ReplayFolder:
    """The one folder replays are read from."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.resolve()

    def names(self) -> list[str]:
        """The replays in the folder, by file name."""
        return sorted(
            path.name
            for path in self.folder.glob("*.jsonl")
            if path.is_file() and path.resolve().parent == self.folder
        )

    def read(self, name: str) -> Replay:
        """The replay called `name`, one of `names()`."""
        if name not in self.names():
            raise ValueError(f"no replay {name[:60]!r} in the replays folder")
        try:
            return read_replay(self.folder / name)
        except ValueError as problem:  # the page is told the replay's name, not its path
            message = str(problem).replace(str(self.folder / name), name)
            raise type(problem)(message) from None


class ReplayView:
    """One replay, checked, shown one position at a time (the table before each decision, then
    the end)."""

    def __init__(self, name: str, replay: Replay) -> None:
        self.name = name
        self.replay = replay
        self.texts = [position.text for position in positions(replay)]
        self._walk = self._tables()
        self._at = -1
        self._table: Any = None

    def opened(self) -> dict[str, Any]:
        """The message that tells the page what it opened."""
        return {
            "type": "replay",
            "name": self.name,
            "env": self.replay.env,
            "seed": self.replay.seed,
            "agents": self.replay.agents,
            "names": self.replay.names,
            "count": len(self.texts),
        }

    def position(self, index: int) -> dict[str, Any]:
        """The message that shows position `index` (0 to `count` − 1)."""
        if not 0 <= index < len(self.texts):
            raise ValueError(f"positions are 0 to {len(self.texts) - 1}; got {index}")
        if index < self._at:
            self._walk, self._at = self._tables(), -1
        while self._at < index:
            self._table = next(self._walk)
            self._at += 1
        host = self._table.unwrapped
        seated = self.replay.names_by_seat(host.possible_agents)
        return {
            "type": "replay_position",
            "index": index,
            "count": len(self.texts),
            "picture": png_data_url(host.render_picture(seated)),
            "text": self.texts[index],
        }

    def _tables(self) -> Iterator[Any]:
        """The environment before each decision and at the end, as `positions` counts them."""
        for step, env in simulate(self.replay):
            if step is None or step.action is not None:
                yield env
