"""The command `snail-serve` (`python -m snail_envs.apps.serve`): the browser app's server.

    snail-serve                                   # http://127.0.0.1:8000/
    snail-serve --port 8080 --replays games/ --save-dir games/

It listens on 127.0.0.1 unless `--host` names another address (then it warns: anyone who
reaches that address can play, and can make it load policy files by path with `ppo:PATH`). A
mistake (a folder that is not there, a port in use, a value out of range) ends it with one line.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import socket
import sys
from pathlib import Path

from snail_envs.agents.cli import command_errors, fail
from snail_envs.apps.serve.settings import LOOPBACK_HOSTS, BotLimits, Settings

LIMIT_HELP = {
    "bots": "bot seats a table may have",
    "ismcts_iterations": "iterations a move of an ismcts bot",
    "search_iterations": "iterations a move (and worlds at once) of a search bot",
    "search_seconds": "seconds a move of a search bot",
    "rollout_worlds": "worlds a move of a rollout bot",
    "network_parameters": "weights of a policy loaded by path (ppo:PATH)",
}
"""The help of each flag of `BotLimits` (`--max-bots`, ...)."""
MAX_FRAME = 2**20
"""The largest WebSocket message the server reads, in bytes (a page's are under 100 kB)."""
WEB_HINT = 'snail-serve needs the web extra: pip install "snail_envs[web]"'


def loopback(host: str) -> bool:
    """Whether `host` is this machine alone (127.0.0.1, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, extra: list[str]) -> tuple[str, ...]:
    """The host names a server listening on `host` answers to: this machine's names on the
    loopback address, else `host` itself; then `extra` (`--allowed-host`)."""
    names = list(LOOPBACK_HOSTS) if loopback(host) else [f"[{host}]" if ":" in host else host]
    return tuple(dict.fromkeys(name.lower() for name in [*names, *extra]))


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on `host`:`port` (port 0: any free port); an `OSError` names the
    address when it cannot be had."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        listener = socket.socket(info[0], socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(info[4])
        listener.listen(128)
    except OSError as problem:
        raise OSError(f"cannot listen on {host}:{port}: {problem.strerror or problem}") from None
    return listener


def main(argv: list[str] | None = None) -> None:
    from snail_envs.apps import serve

    parser = argparse.ArgumentParser(
        prog="snail-serve", description=(serve.__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="the port (default: 8000)")
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the pages may use beside --host's (repeatable; with --host elsewhere "
        "than 127.0.0.1, the machine's names or addresses that pages open)",
    )
    parser.add_argument(
        "--replays", type=Path, metavar="DIR", help="the folder of replays the page may open"
    )
    parser.add_argument(
        "--save-dir", type=Path, metavar="DIR", help="where finished games are saved as replays"
    )
    parser.add_argument(
        "--tick-ms",
        type=int,
        default=Settings.tick_ms,
        help=f"milliseconds a tick of a real-time game (Snap) lasts (default: {Settings.tick_ms})",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=Settings.idle_timeout,
        help="seconds after which a page that sent nothing is dropped "
        f"(default: {Settings.idle_timeout:g})",
    )
    for spec in dataclasses.fields(BotLimits):
        parser.add_argument(
            "--max-" + spec.name.replace("_", "-"),
            dest=f"max_{spec.name}",
            type=type(spec.default),
            default=spec.default,
            metavar="N",
            help=f"{LIMIT_HELP[spec.name]} (default: {spec.default:g})",
        )
    args = parser.parse_args(argv)
    with command_errors(parser.prog):
        try:
            import uvicorn

            from snail_envs.apps.serve.app import create_app
        except ModuleNotFoundError as missing:
            if missing.name not in ("starlette", "uvicorn", "yaml", "PIL"):
                raise
            raise fail(parser.prog, WEB_HINT) from None
        limits = BotLimits(
            **{
                spec.name: getattr(args, f"max_{spec.name}")
                for spec in dataclasses.fields(BotLimits)
            }
        )
        hosts = allowed_hosts(args.host, args.allowed_host)
        settings = Settings(
            args.tick_ms, args.idle_timeout, args.replays, args.save_dir, limits, hosts
        )
        if not 0 <= args.port <= 65535:
            raise ValueError(f"--port must be from 0 to 65535; got {args.port}")
        if not loopback(args.host):
            print(
                f"{parser.prog}: warning: listening on {args.host}: anyone who can reach it can "
                "play here and make the server load policy files by path (ppo:PATH)",
                file=sys.stderr,
            )
        listener = listen(args.host, args.port)
        host, port = listener.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        print(f"{parser.prog}: playing at http://{shown}:{port}/ (Ctrl-C stops)", flush=True)
        config = uvicorn.Config(create_app(settings), log_level="warning", ws_max_size=MAX_FRAME)
        uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()
