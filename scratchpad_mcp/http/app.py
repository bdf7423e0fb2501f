"""Streamable HTTP: MCP at /mcp (stateless, so any replica answers any request), /health, /ready and /metrics,
the web view at /ui; every route behind the walls of settings.hosts (the Host and Origin rule)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import uvicorn
from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from scratchpad_adapters.factory import Backend

from ..server import ScratchpadServer
from ..server.wire import max_message_bytes
from ..settings import Settings
from ..settings.hosts import Walls
from .auth import KeyRequired, uses_keys
from .body import CheckedBody
from .direct import DirectAnswers, DirectHttp
from .metrics import Metrics

# The SDK's own Host and Origin check covers /mcp only: Walls (settings.hosts) applies one rule to every route.
NO_SDK_CHECK = TransportSecuritySettings(enable_dns_rebinding_protection=False)


def max_body_bytes(settings: Settings) -> int:
    """Just above the largest allowed write (wire.max_message_bytes, the stdio line bound too)."""
    return max_message_bytes(settings.limits)


def build_app(
    settings: Settings,
    backend: Backend,
    server: ScratchpadServer,
    metrics: Metrics,
    *,
    direct: DirectAnswers | None = None,
    ui: ASGIApp | None = None,
) -> Starlette:
    """The ASGI app of one replica: `server` (the MCP server the settings call for, feeding `metrics`) at /mcp,
    with `direct` answering the plainest tool calls; the probes and metrics; `ui` (the web view) at /ui; all of
    them behind the walls (the Host and Origin rule of settings.hosts), which run before any route."""
    mcp_app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=NO_SDK_CHECK,
        host=settings.host,
        max_request_body_size=max_body_bytes(settings),
    )
    answers = None if direct is None else DirectHttp(direct)
    without_event_stream(mcp_app, max_body_bytes(settings), answers)

    async def health(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def ready(_: Request) -> Response:
        problem = await anyio.to_thread.run_sync(backend.readiness)
        if problem is None:
            return JSONResponse({"status": "ready"})
        return JSONResponse({"status": "not ready", "reason": problem}, status_code=503)

    async def prometheus(_: Request) -> Response:
        return Response(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    routes: list[BaseRoute] = [
        Route("/health", health, methods=["GET"]),
        Route("/ready", ready, methods=["GET"]),
        Route("/metrics", prometheus, methods=["GET"]),
    ]
    if ui is not None:  # the read-only web view
        routes += [Route("/ui", to_the_view, methods=["GET"]), Mount("/ui", app=ui)]
    routes.append(Mount("/", app=KeyRequired(mcp_app, metrics) if uses_keys(settings) else mcp_app))
    walls = Middleware(Walls, rule=settings.host_rule())
    return Starlette(routes=routes, lifespan=lifespan, middleware=[walls])


async def to_the_view(request: Request) -> Response:
    """/ui, as the docs name the view, is /ui/ (the mount answers only below it): a relative redirect, which
    holds behind a proxy that serves the server under a prefix."""
    query = request.url.query
    return RedirectResponse("ui/" + (f"?{query}" if query else ""), status_code=307)


class NoEventStream:
    """GET /mcp asks for the stream of messages a server sends unprompted. A stateless server has none to send,
    so it answers 405 with the methods it takes, as the spec allows a server without one, instead of holding
    open a stream that never carries anything."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            error = {"code": -32000, "message": "Method Not Allowed: this stateless server has no event stream; POST"}
            body = {"jsonrpc": "2.0", "id": None, "error": error}
            await JSONResponse(body, status_code=405, headers={"Allow": "POST"})(scope, receive, send)
            return
        await self.app(scope, receive, send)


def without_event_stream(mcp_app: Starlette, max_bytes: int, direct: DirectHttp | None = None) -> None:
    """Put NoEventStream and CheckedBody (with the direct tool calls) behind the SDK's key check on /mcp (a GET or
    a broken body without a valid key still gets the 401)."""
    for route in mcp_app.routes:
        if isinstance(route, Route) and route.path == "/mcp":
            if isinstance(route.app, RequireAuthMiddleware):
                route.app.app = NoEventStream(CheckedBody(route.app.app, max_bytes, direct))
            else:
                route.app = NoEventStream(CheckedBody(route.app, max_bytes, direct))
            return
    raise RuntimeError("the MCP SDK's app has no /mcp route to answer GET on")


def serve(settings: Settings, app: Starlette) -> None:
    # log_config=None: uvicorn's own messages go through our handlers (JSON lines when asked), not its own.
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False)
