"""snail-serve under load: the limits on a page's bots, one worker a page, stopping work."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from snail_envs.agents.stopping import Stopped, check_stop
from snail_envs.apps.serve.app import create_app
from snail_envs.apps.serve.settings import BotLimits, Settings
from snail_envs.apps.serve.table import Table
from tests.apps.web.pages import LOCAL, QUICK_GAMES, SOCKET, TURN_GAME, Page
from tests.apps.web.servers import running_server

ROOT = Path(__file__).resolve().parents[3]
"""A game played by turns, over in seconds."""
PAGE_WORKER = "snail-serve-page"
"""The name every page's worker thread starts with."""


def _huge_policy(folder: Path) -> Path:
    """A policy file of a few hundred bytes whose description names a network of 288 million
    weights."""
    (folder / "huge.pt").write_bytes(b"PK\x03\x04 not read")
    description = {
        "format": "snail_envs.ppo_policy/1",
        "env": TURN_GAME,
        "env_options": {},
        "observation_size": 8,
        "num_actions": 4,
        "net_arch": {"pi": [12000, 12000], "vf": [12000, 12000]},
        "activation": "tanh",
        "value_network": True,
    }
    (folder / "huge.json").write_text(json.dumps(description))
    return folder / "huge.pt"


def test_bots_over_the_servers_limits_are_refused_with_one_line(tmp_path: Path) -> None:
    settings = Settings(limits=BotLimits(bots=2))
    huge = _huge_policy(tmp_path)
    with (
        TestClient(create_app(settings), base_url=LOCAL) as client,
        client.websocket_connect(SOCKET) as socket_,
    ):
        page = Page(socket_)
        for seats, expected in (
            (["ismcts:100000000"], "at most 2000 iterations a move; asked 1e+08"),
            (["search:99999s"], "at most 5 seconds a move; asked 99999"),
            (["search:100000000"], "at most 65536 iterations a move"),
            (["search:64:batch=10000000"], "at most 65536 worlds at once (batch)"),
            (["rollout:10000000"], "at most 1024 worlds a move"),
            ([f"ppo:{huge}"], "that policy has 288,"),
            (["random", "random", "random"], "3 bots at one table; this server seats at most 2"),
        ):
            page.send(
                "start",
                game=TURN_GAME,
                seats=[{"agent": "human"}, *({"agent": spec} for spec in seats)],
                options=QUICK_GAMES[TURN_GAME],
                seed=0,
                pace_ms=0,
            )
            error = page.error()
            assert expected in error and "\n" not in error, error
        assert page.start(TURN_GAME, ["human", "ismcts:2000"])["type"] == "table"


THINKING = threading.Event()
"""Set when a slow bot starts to think."""
STOPPED = threading.Event()
"""Set when a slow bot's work is stopped."""


def _slow_bot(table: Table, agent: str) -> int:
    """A bot that thinks until its work is stopped (or for a minute), checking between steps."""
    THINKING.set()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            check_stop()
        except Stopped:
            STOPPED.set()
            raise
        time.sleep(0.01)
    return table.legal_actions(agent)[0]


def _page_workers() -> int:
    return sum(thread.name.startswith(PAGE_WORKER) for thread in threading.enumerate())


async def _busy_pages_and_a_fresh_one(url: str, busy: int) -> float:
    """Open `busy` pages watching bots that think until stopped, then a fresh page; the seconds
    the fresh page waited for its game's first frame. Every page is then closed."""
    import websockets

    async def open_page(seats: list[str]) -> Any:
        connection = await websockets.connect(url)
        session = json.loads(await connection.recv())["session"]
        message = {"type": "start", "session": session, "game": TURN_GAME, "seed": 1}
        message |= {"seats": [{"agent": spec} for spec in seats], "pace_ms": 0}
        await connection.send(json.dumps(message | {"options": QUICK_GAMES[TURN_GAME]}))
        return connection

    pages = [await open_page(["random", "random"]) for _ in range(busy)]
    for page in pages:  # each has its table: its bots (slowed) think now
        while json.loads(await asyncio.wait_for(page.recv(), 60))["type"] != "frame":
            pass
    started = time.monotonic()
    fresh = await open_page(["human", "random"])
    while json.loads(await asyncio.wait_for(fresh.recv(), 60))["type"] != "frame":
        pass
    waited = time.monotonic() - started
    for page in [*pages, fresh]:
        await page.close()
    return waited


def test_a_fresh_page_gets_its_game_while_every_other_page_thinks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """More busy pages than the machine has threads for them by default: a fresh page still gets
    its game (within a generous bound: this is no timing test), and leaving the pages stops
    their bots' work, freeing every page's worker."""
    monkeypatch.setattr(Table, "bot_action", _slow_bot)
    busy = (os.cpu_count() or 1) + 8
    with running_server(Settings()) as (address, app):
        waited = asyncio.run(
            _busy_pages_and_a_fresh_one(address.replace("http", "ws") + "/ws", busy)
        )
        deadline = time.monotonic() + 30
        while (_page_workers() or app.state.sessions) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _page_workers() == 0 and not app.state.sessions
    assert waited < 30


def test_stopping_a_game_stops_its_bots_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Table, "bot_action", _slow_bot)
    with (
        TestClient(create_app(Settings()), base_url=LOCAL) as client,
        client.websocket_connect(SOCKET) as socket_,
    ):
        page = Page(socket_)
        THINKING.clear()
        STOPPED.clear()
        page.start(TURN_GAME, ["random", "random"])
        assert THINKING.wait(30)
        page.send("stop")
        assert STOPPED.wait(30)
        table = page.start(TURN_GAME, ["human", "random"])  # the one worker is free again
        assert table["you"] == "player_0"


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "ctrl-c"])
def test_a_stop_signal_ends_the_server_whatever_its_bots_are_doing(stop: signal.Signals) -> None:
    """A server whose page's bots would think for hours ends soon after SIGTERM or Ctrl-C."""
    import websockets

    command = [sys.executable, "-m", "snail_envs.apps.serve", "--port", "0"]
    command += ["--max-ismcts-iterations", "100000000"]
    server = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        address = server.stdout.readline().split("playing at ")[1].split()[0]

        async def busy_page() -> None:
            async with websockets.connect(address.replace("http", "ws") + "ws") as connection:
                session = json.loads(await connection.recv())["session"]
                seats = [{"agent": "ismcts:100000000"}] * 2
                message = {"type": "start", "session": session, "game": TURN_GAME, "seed": 1}
                message |= {"seats": seats, "pace_ms": 0, "options": QUICK_GAMES[TURN_GAME]}
                await connection.send(json.dumps(message))
                while json.loads(await asyncio.wait_for(connection.recv(), 60))["type"] != "frame":
                    pass
                await asyncio.sleep(0.5)  # the first bot searches now
                server.send_signal(stop)
                with pytest.raises(websockets.ConnectionClosed):
                    while True:
                        await connection.recv()

        asyncio.run(busy_page())
        server.wait(timeout=30)
    finally:
        server.kill()
        server.wait()
