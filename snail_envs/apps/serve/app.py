"""The web application: the page, its static files, and one WebSocket session per page.

`/` is the page (`apps/web/index.html`), `/static/...` its scripts and styles, served from
that folder alone (Starlette's `StaticFiles` refuses any path that leads out of it), and `/ws`
the WebSocket each page opens: a new `Session` with its own game. A WebSocket opened by a page
of another site (its `Origin` is not this server) is refused, so that no other site can play
or load agents through a browser that visits it.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from snail_envs.apps.serve.catalog import catalog
from snail_envs.apps.serve.session import Session
from snail_envs.apps.serve.settings import Settings

WEB = Path(__file__).resolve().parents[1] / "web"
"""The page's files: package data of `snail_envs.apps`."""
PAGE_POLICY = (
    "default-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'"
)
"""The page's Content-Security-Policy: its own scripts, styles and socket, pictures sent as
`data:` URLs, nothing from elsewhere, never in another site's frame."""
POLICY_VIOLATION = 1008
"""The WebSocket close code for a connection the server refuses."""


def trusted_origin(origin: str | None, headers: Mapping[str, str], settings: Settings) -> bool:
    """Whether a WebSocket opened with `origin` comes from this server's page: no `Origin` (not
    a browser), or one of `settings.hosts` at the host and port the request was sent to."""
    if origin is None:
        return True
    try:
        parts = urlsplit(origin)
        name = parts.hostname or ""
    except ValueError:
        return False
    name = f"[{name}]" if ":" in name else name
    return name in settings.hosts and parts.netloc == headers.get("host")


def create_app(settings: Settings) -> Starlette:
    """The application serving pages with `settings`; `app.state.sessions` holds the sessions
    of the pages connected now, by id."""
    games = catalog()
    sessions: dict[str, Session] = {}

    async def page(request: Request) -> FileResponse:
        return FileResponse(WEB / "index.html", headers={"Content-Security-Policy": PAGE_POLICY})

    async def socket(websocket: WebSocket) -> None:
        if not trusted_origin(websocket.headers.get("origin"), websocket.headers, settings):
            await websocket.close(code=POLICY_VIOLATION)
            return
        await websocket.accept()
        session = Session(websocket, settings, secrets.token_urlsafe(12), games)
        sessions[session.id] = session
        try:
            await session.run()
        finally:
            del sessions[session.id]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        for session in list(sessions.values()):  # pages still open when the server stops
            session.stop_work()

    app = Starlette(
        lifespan=lifespan,
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=settings.hosts, www_redirect=False)
        ],
        routes=[
            Route("/", page),
            WebSocketRoute("/ws", socket),
            Mount("/static", StaticFiles(directory=WEB), name="static"),
        ],
    )
    app.state.sessions = sessions
    return app
