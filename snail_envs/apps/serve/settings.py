"""How a server plays: `snail-serve`'s flags, checked once."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from snail_envs.registry import GAMES

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
"""The names of this machine alone: the hosts a server on the loopback address answers to."""


@dataclass(frozen=True)
class BotLimits:
    """What one page may ask of the server's bots, so that no page holds the machine: the
    defaults keep a decision to a few seconds of one core and a network to a few megabytes.
    `snail-serve --max-NAME` raises or lowers each (`snail_envs.apps.serve.bots` applies
    them)."""

    bots: int = max(game.max_players for game in GAMES)
    """Bot seats at one table (by default as many as the largest table seats)."""
    ismcts_iterations: int = 2000
    """Iterations a move of the Python IS-MCTS (`ismcts:N`)."""
    search_iterations: int = 65536
    """Iterations a move, and worlds at once (`batch=`), of the compiled search (`search:N`)."""
    search_seconds: float = 5.0
    """Seconds a move of the compiled search (`search:Ns`)."""
    rollout_worlds: int = 1024
    """Worlds a move of the rollout search (`rollout:N`)."""
    network_parameters: int = 5_000_000
    """Weights of a policy loaded by path (`ppo:PATH`, `search:prior=PATH`)."""

    def __post_init__(self) -> None:
        for spec in fields(self):
            if not getattr(self, spec.name) > 0:
                flag = "--max-" + spec.name.replace("_", "-")
                raise ValueError(f"{flag} must be above 0; got {getattr(self, spec.name)}")


@dataclass(frozen=True)
class Settings:
    """How the server plays: the real-time tick, the idle timeout, the replay folders, the
    host names it answers to, the limits on its bots."""

    tick_ms: int = 150
    """The length of a tick of real-time Snap, in milliseconds."""
    idle_timeout: float = 600.0
    """Seconds after which a page that has sent nothing is dropped."""
    replays: Path | None = None
    """The only folder replays are read from (None: no replays to open)."""
    save_dir: Path | None = None
    """Where finished games are saved as replays (None: saving is off)."""
    limits: BotLimits = field(default_factory=BotLimits)
    """What a page may ask of the bots."""
    hosts: tuple[str, ...] = LOOPBACK_HOSTS
    """The host names the server answers to (the `Host` of a request, the `Origin` of a page
    that opens a WebSocket); any other is refused, so that no site whose name leads to this
    machine (DNS rebinding) reaches it. An IPv6 address is written in brackets."""

    def __post_init__(self) -> None:
        if not 20 <= self.tick_ms <= 2000:
            raise ValueError(f"--tick-ms must be from 20 to 2000 milliseconds; got {self.tick_ms}")
        if not self.idle_timeout > 0:
            raise ValueError(f"--idle-timeout must be above 0 seconds; got {self.idle_timeout}")
        if self.replays is not None and not self.replays.is_dir():
            raise ValueError(f"--replays: no folder at {self.replays}")
        if not self.hosts or "*" in "".join(self.hosts):
            raise ValueError(f"--allowed-host names hosts, without wildcards; got {self.hosts}")
        if self.save_dir is not None and self.save_dir.exists() and not self.save_dir.is_dir():
            raise ValueError(f"--save-dir: {self.save_dir} is a file, not a folder")
