"""How a server plays: `snail-serve`'s flags, checked once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """How the server plays: the real-time tick, the idle timeout, the replay folders."""

    tick_ms: int = 150
    """The length of a tick of real-time Snap, in milliseconds."""
    idle_timeout: float = 600.0
    """Seconds after which a page that has sent nothing is dropped."""
    replays: Path | None = None
    """The only folder replays are read from (None: no replays to open)."""
    save_dir: Path | None = None
    """Where finished games are saved as replays (None: saving is off)."""

    def __post_init__(self) -> None:
        if not 20 <= self.tick_ms <= 2000:
            raise ValueError(f"--tick-ms must be from 20 to 2000 milliseconds; got {self.tick_ms}")
        if not self.idle_timeout > 0:
            raise ValueError(f"--idle-timeout must be above 0 seconds; got {self.idle_timeout}")
        if self.replays is not None and not self.replays.is_dir():
            raise ValueError(f"--replays: no folder at {self.replays}")
        if self.save_dir is not None and self.save_dir.exists() and not self.save_dir.is_dir():
            raise ValueError(f"--save-dir: {self.save_dir} is a file, not a folder")
