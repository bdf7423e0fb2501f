"""Streamable HTTP: MCP at /mcp (stateless, so any replica answers any request) plus GET /health."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

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
    """Just above the largest allowed write, allowing for JSON escaping of its content."""
    return 3 * settings.limits.max_file_bytes + 64 * 1024


def build_app(settings: Settings, server: MCPServer, extra_routes: list[Route] | None = None) -> Starlette:
    mcp_app = server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=transport_security(settings),
        host=settings.host,
        max_request_body_size=max_body_bytes(settings),
    )

    async def health(_: Request) -> JSONResponse:
        return JSONResponse({"status": "ok"})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    routes = [Route("/health", health, methods=["GET"]), *(extra_routes or []), Mount("/", app=mcp_app)]
    return Starlette(routes=routes, lifespan=lifespan)


def serve(settings: Settings, app: Starlette) -> None:
    uvicorn.run(app, host=settings.host, port=settings.port, log_level="warning", access_log=False)
