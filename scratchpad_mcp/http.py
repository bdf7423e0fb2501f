"""Streamable HTTP: MCP at /mcp (stateless, so any replica answers any request), /health, /ready and /metrics."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from scratchpad_adapters.factory import Backend

from .app import http_server, uses_keys
from .auth import UncheckedKeyLogger
from .metrics import Metrics
from .settings import Settings


def transport_security(settings: Settings) -> TransportSecuritySettings | None:
    """DNS-rebinding protection: on for loopback (the SDK default) or SCRATCHPAD_ALLOWED_HOSTS; off behind a proxy."""
    if settings.allowed_hosts:
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=list(settings.allowed_hosts), allowed_origins=[]
        )
    if settings.loopback:
        return None
    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


def max_body_bytes(settings: Settings) -> int:
    """Just above the largest allowed write: its content may grow six-fold as JSON (control characters as \\u00XX)."""
    return 6 * settings.limits.max_file_bytes + 64 * 1024


def build_app(settings: Settings, backend: Backend, metrics: Metrics | None = None) -> Starlette:
    """The ASGI app of one replica: the MCP server the settings call for at /mcp, and the probes and metrics."""
    metrics = metrics or Metrics()
    server = http_server(settings, backend, metrics)
    mcp_app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(settings),
        host=settings.host,
        max_request_body_size=max_body_bytes(settings),
    )

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

    routes = [
        Route("/health", health, methods=["GET"]),
        Route("/ready", ready, methods=["GET"]),
        Route("/metrics", prometheus, methods=["GET"]),
        Mount("/", app=UncheckedKeyLogger(mcp_app, metrics) if uses_keys(settings) else mcp_app),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def serve(settings: Settings, app: Starlette) -> None:
    # log_config=None: uvicorn's own messages go through our handlers (JSON lines when asked), not its own.
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False)
