"""The web view as an ASGI app: build_web_app(...) for `scratchpad-mcp web` (mounted at /) or /ui of the HTTP
server. Read-only: GET pages, and POSTs only to sign in and out (which the walls of settings.hosts, around the
view wherever it is served, refuse from another site).

Every response carries a strict Content-Security-Policy (script only from this app's own static file, no inline
script or style, no frames) and nosniff, so nothing an agent stored can act in a reader's browser; a link to
another site carries no referrer (same-origin: the view's own forms still say where they come from).
"""

from __future__ import annotations

import datetime
from importlib import resources

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scratchpad_core.service import Scratchpad

from .access import Sessions
from .highlight import stylesheet, visible
from .pages import Pages
from .reading import AgentDirectory

POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
]


class Guarded:
    """Adds the security headers to every response of the view."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def headed(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in HEADERS}
                kept = [(n, v) for n, v in message.get("headers", []) if n.lower() not in names]
                message = {**message, "headers": kept + HEADERS}
            await send(message)

        await self.app(scope, receive, headed)


def templates() -> Environment:
    folder = resources.files(__package__) / "templates"
    env = Environment(loader=FileSystemLoader(str(folder)), autoescape=select_autoescape(default=True))
    env.filters["when"] = _when
    env.filters["size"] = _size
    env.filters["visible"] = visible
    return env


def build_web_app(
    store: Scratchpad, agents: AgentDirectory, sessions: Sessions | None = None, *, https: bool = False
) -> Starlette:
    """The view of `store`: signed in with API keys when `sessions` is given, else the local user's (every agent);
    https: clients reach it over https (its session cookie is Secure even when a proxy speaks http to it)."""
    pages = Pages(store, agents, templates(), sessions, https=https)

    async def pygments_css(_: Request) -> Response:
        return Response(stylesheet(), media_type="text/css")

    static = StaticFiles(directory=str(resources.files(__package__) / "static"))
    routes = [
        Route("/", pages.agents, methods=["GET"]),
        Route("/signin", pages.sign_in_form, methods=["GET"]),
        Route("/signin", pages.sign_in, methods=["POST"]),
        Route("/signout", pages.sign_out_form, methods=["GET"]),
        Route("/signout", pages.sign_out, methods=["POST"]),
        Route("/colours.css", pygments_css, methods=["GET"]),
        Mount("/static", app=static),
        Route("/a/{agent}", pages.agent, methods=["GET"]),
        Route("/a/{agent}/search", pages.search, methods=["GET"]),
        Route("/a/{agent}/file/{path:path}", pages.file, methods=["GET"]),
        Route("/a/{agent}/log/{path:path}", pages.log, methods=["GET"]),
        Route("/a/{agent}/entries/{path:path}", pages.log_entries, methods=["GET"]),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(Guarded)
    return app


def _when(ms: int | None) -> str:
    if ms is None:
        return "—"
    return datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _size(n: int) -> str:
    if n < 1024:
        return f"{n:,} B"
    return f"{n / 1024:,.1f} KiB" if n < 1024 * 1024 else f"{n / 1024 / 1024:,.1f} MiB"
