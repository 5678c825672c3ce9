"""One page's session: its WebSocket, its game, its replay viewer, its idle timer.

The server holds all game logic; a page only shows what it is sent and sends what the person
does. A session reads the page's messages one at a time (`snail_envs.apps.serve.messages`
checks each; a bad one is answered with an error the page shows, and the session goes on), and a
game task drives its `Table`:

- turn by turn: each tick of bots waits the page's pace first (`pace_ms`, adjustable while the
  game runs: watching bots, the speed of the game); the person's decisions wait for a click;
  a decision with one choice is taken for them (the races' log says so; in the narrated games
  the narration tells the play). Snap watched is played so too, one tick a move.
- Snap with a person, in real time: a tick every `tick_ms` on the wall clock, whoever has
  called or not; the person's call is the first key of the tick (the page sends it at once),
  the bots decide on the same clock, their reflexes being Snap's `reaction_delay`. A tick
  whose work outlasts it (a searching bot thinks for longer) is late, and the page is told how
  many were.

All of the table's work (setting it, bots' decisions, steps, pictures) and the replays' runs in
the page's own worker thread, one task at a time, so that no page's work holds up another's
ticks, nor takes more than one thread: a page gets its game however busy the other pages'
bots are. Each game has a stop flag (`snail_envs.agents.stopping`) that its work runs under:
stopping the game, starting another or leaving the page sets it, and the searches stop at their
next iteration (the bots' budgets are bounded by the server's limits, `bots`). A session whose
page has sent nothing for `idle_timeout` seconds is told so and closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.websockets import WebSocket, WebSocketDisconnect

from snail_envs.agents.stopping import Stopped, stop_on
from snail_envs.apps.seats import PERSON
from snail_envs.apps.serve.bots import check_bots
from snail_envs.apps.serve.catalog import agent_catalog
from snail_envs.apps.serve.messages import (
    MAX_PACE_MS,
    BadMessage,
    integer,
    parse_message,
    read_seating,
    short,
    string,
)
from snail_envs.apps.serve.replays import ReplayFolder, ReplayView
from snail_envs.apps.serve.settings import Settings
from snail_envs.apps.serve.table import Table

LOG = logging.getLogger(__name__)
DEFAULT_PACE_MS = 400
Result = TypeVar("Result")


def _flagged(flag: threading.Event, work: Callable[[], Result]) -> Result:
    with stop_on(flag):
        return work()


class Session:
    """The session of one page (see the module docstring); `run` lasts as long as the page."""

    def __init__(
        self, websocket: WebSocket, settings: Settings, session_id: str, games: list[dict[str, Any]]
    ) -> None:
        self.websocket = websocket
        self.settings = settings
        self.id = session_id
        self.games = {game["name"]: game for game in games}
        self._catalog = games
        self._loop = asyncio.get_running_loop()
        self.last_heard = self._loop.time()
        self._closed = False
        self._send_lock = asyncio.Lock()
        self._table: Table | None = None
        self._game: asyncio.Task[None] | None = None
        self._moves: asyncio.Queue[tuple[int, int]] = asyncio.Queue()
        self._offered: int | None = None
        """The turn of the last frame that offered the person moves, until one is sent."""
        self._call: int | None = None
        self._pace_s = DEFAULT_PACE_MS / 1000
        self._folder = None if settings.replays is None else ReplayFolder(settings.replays)
        self._replay: ReplayView | None = None
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snail-serve-page")
        self._flag = threading.Event()
        """The stop flag of the game now (see the module docstring)."""

    # ----------------------------------------------------------------- the connection

    async def run(self) -> None:
        """Greet the page, then answer its messages until it leaves or falls idle."""
        await self.send(
            {
                "type": "welcome",
                "session": self.id,
                "games": self._catalog,
                "agents": agent_catalog(),
                "person": PERSON,
                "replays": self._replay_names(),
                "can_save": self.settings.save_dir is not None,
                "tick_ms": self.settings.tick_ms,
                "idle_timeout": self.settings.idle_timeout,
                "pace_ms": DEFAULT_PACE_MS,
            }
        )
        tasks = [asyncio.create_task(self._receive()), asyncio.create_task(self._watch_idle())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            self.stop_work()
            if not self._closed:
                self._closed = True
                with contextlib.suppress(RuntimeError):  # the page has gone already
                    await self.websocket.close()

    def stop_work(self) -> None:
        """Stop the page's game and its work for good: what runs in its worker stops at the
        next iteration of its search, and nothing queued there starts."""
        self._stop_game()
        self._flag.set()
        self._worker.shutdown(wait=False, cancel_futures=True)

    async def _work(self, function: Callable[..., Result], *args: Any) -> Result:
        """`function(*args)`, run in the page's worker under the stop flag of the game now."""
        call = functools.partial(_flagged, self._flag, functools.partial(function, *args))
        return await self._loop.run_in_executor(self._worker, call)

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send `message` to the page, unless it has gone."""
        async with self._send_lock:
            if self._closed:
                return
            try:
                await self.websocket.send_json(message)
            except (WebSocketDisconnect, RuntimeError, OSError):
                self._closed = True

    async def error(self, message: str) -> None:
        await self.send({"type": "error", "message": message})

    async def _receive(self) -> None:
        while True:
            received = await self.websocket.receive()
            if received["type"] == "websocket.disconnect":
                self._closed = True
                return
            self.last_heard = self._loop.time()
            try:
                message = parse_message(received.get("text"), self.id)
                await HANDLERS[message["type"]](self, message)
            except BadMessage as problem:
                await self.error(str(problem))
            except Exception as problem:
                LOG.exception("a message the server failed on")
                await self.error(f"the server failed on this message ({type(problem).__name__})")

    async def _watch_idle(self) -> None:
        timeout = self.settings.idle_timeout
        while (quiet := self._loop.time() - self.last_heard) < timeout:
            await asyncio.sleep(timeout - quiet)
        await self.send(
            {
                "type": "dropped",
                "message": f"this page sent nothing for {timeout:g} s: its session is closed; "
                "reload the page to play again",
            }
        )

    # ----------------------------------------------------------------- the page's requests

    async def _start(self, message: Mapping[str, Any]) -> None:
        seating = read_seating(message, self.games)
        pace_ms = integer(message, "pace_ms", 0, MAX_PACE_MS)
        self._stop_game()
        try:
            await self._work(check_bots, seating.seats, self.settings.limits)
            table = await self._work(Table, seating)
        except (ValueError, OSError, ImportError) as problem:
            await self.error(f"the table cannot be set: {short(str(problem))}")
            return
        self._table, self._pace_s, self._call = table, pace_ms / 1000, None
        self._moves = asyncio.Queue()
        await self.send(table.opening(self.settings.tick_ms))
        drive = self._drive_realtime if table.realtime else self._drive_turns
        self._game = asyncio.create_task(self._play(drive, table))

    async def _act(self, message: Mapping[str, Any]) -> None:
        table = self._table
        action = integer(message, "action", 0, 10**6)
        if table is None or table.over:
            raise BadMessage("no game is being played: start one")
        if table.realtime:
            if self._call is None:
                self._call = action
            return
        turn = integer(message, "turn", 0, 10**9)
        if turn != self._offered:
            raise BadMessage("it is not your turn: wait for your moves to show")
        self._offered = None
        self._moves.put_nowait((turn, action))

    async def _pace(self, message: Mapping[str, Any]) -> None:
        self._pace_s = integer(message, "ms", 0, MAX_PACE_MS) / 1000

    async def _stop(self, message: Mapping[str, Any]) -> None:
        self._stop_game()
        self._table = None

    async def _save(self, message: Mapping[str, Any]) -> None:
        table, folder = self._table, self.settings.save_dir
        if folder is None:
            raise BadMessage("saving is off: start snail-serve with --save-dir FOLDER")
        if table is None or not table.over:
            raise BadMessage("a game is saved once it is over")
        try:
            path = await self._work(table.save, folder)
        except (ValueError, OSError) as problem:
            reason = problem.strerror if isinstance(problem, OSError) else str(problem)
            await self.error(f"the replay was not saved: {short(reason or 'cannot write')}")
            return
        await self.send({"type": "saved", "name": path.name, "replays": self._replay_names()})

    async def _open_replay(self, message: Mapping[str, Any]) -> None:
        name = string(message, "name")
        folder = self._folder
        if folder is None:
            raise BadMessage("no replays folder: start snail-serve with --replays FOLDER")
        try:
            view = await self._work(lambda: ReplayView(name, folder.read(name)))
            shown = await self._work(view.position, 0)
        except (ValueError, OSError) as problem:
            await self.error(f"the replay cannot be shown: {short(str(problem))}")
            return
        self._replay = view
        await self.send(view.opened())
        await self.send(shown)

    async def _replay_step(self, message: Mapping[str, Any]) -> None:
        view = self._replay
        if view is None:
            raise BadMessage("no replay is open")
        index = integer(message, "index", 0, len(view.texts) - 1)
        await self.send(await self._work(view.position, index))

    def _replay_names(self) -> list[str]:
        return [] if self._folder is None else self._folder.names()

    # ----------------------------------------------------------------- the game

    def _stop_game(self) -> None:
        """Stop the game: its task, and its work in the worker (its flag); the next game's
        work runs under a new flag."""
        if self._game is not None:
            self._game.cancel()
            self._game = None
        self._flag.set()
        self._flag = threading.Event()
        self._offered = None

    async def _play(self, drive: Callable[[Table], Awaitable[None]], table: Table) -> None:
        try:
            await drive(table)
        except asyncio.CancelledError:
            raise
        except Stopped:
            return  # stopped while its work ran: the page asked for it
        except Exception as problem:
            LOG.exception("a game failed")
            await self.error(f"the game stopped ({type(problem).__name__})")

    async def _frame(self, table: Table) -> None:
        frame = await self._work(table.frame)
        self._offered = frame["turn"] if frame["moves"] and not table.realtime else None
        await self.send(frame)

    async def _drive_turns(self, table: Table) -> None:
        await self._frame(table)
        while agents := await self._work(table.tick_agents):
            if table.person not in agents:
                await asyncio.sleep(self._pace_s)
            for order, agent in enumerate(agents):
                if agent != table.person:
                    action = await self._work(table.bot_action, agent)
                    await self._work(table.play, agent, action)
                    continue
                legal = table.legal_actions(agent)
                if len(legal) == 1:
                    await self._work(table.play, agent, legal[0], " (your only choice)")
                    continue
                if order > 0:
                    await self._frame(table)
                await self._work(table.play, agent, await self._person_move(table, agent))
            await self._work(table.settle)
            await self._frame(table)

    async def _person_move(self, table: Table, agent: str) -> int:
        """The person's next legal move, from the page: a move for this position (`turn`), one
        the rules allow (an illegal one is answered with the error, which names the legal
        moves, and the moves are offered again)."""
        while True:
            turn, action = await self._moves.get()
            if turn != table.turn:
                await self.error("that move was for a position that has passed")
                continue
            try:
                table.check(agent, action)
                return action
            except ValueError as problem:
                self._offered = turn
                await self.error(str(problem))

    async def _drive_realtime(self, table: Table) -> None:
        await self._frame(table)
        tick_s = self.settings.tick_ms / 1000
        deadline, late = self._loop.time(), 0
        while not table.over:
            deadline += tick_s
            await asyncio.sleep(max(0.0, deadline - self._loop.time()))
            call, self._call = self._call, None
            refused, frame = await self._work(self._realtime_tick, table, call)
            if self._loop.time() > deadline + tick_s:
                # the tick's work (a bot that searches, a busy machine) outlasted the tick: the
                # clock starts again from now rather than hurrying the next ticks
                late += 1
                deadline = self._loop.time()
            if refused:
                await self.error(refused)
            await self.send({**frame, "late_ticks": late})

    @staticmethod
    def _realtime_tick(table: Table, call: int | None) -> tuple[str | None, dict[str, Any]]:
        refused = table.play_realtime_tick(call)
        return refused, table.frame()


Handler = Callable[[Session, Mapping[str, Any]], Awaitable[None]]
HANDLERS: dict[str, Handler] = {
    "start": Session._start,
    "act": Session._act,
    "pace": Session._pace,
    "stop": Session._stop,
    "save": Session._save,
    "open_replay": Session._open_replay,
    "replay_step": Session._replay_step,
}
"""Each message type's handler (`snail_envs.apps.serve.messages.MESSAGE_TYPES`)."""
