"""Streamable HTTP: MCP at /mcp (stateless, so any replica answers any request), /health, /ready and /metrics."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import anyio
import uvicorn
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route

from scratchpad_adapters.factory import Backend

from .auth import KeyedCaller, KeyVerifier, UncheckedKeyLogger
from .calls import CallGate, CallRunner, RateLimit, TrustedCaller
from .metrics import Metrics
from .server import build_server
from .server_logging import CallLogger
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


def auth_settings(public_url: str) -> AuthSettings:
    """Bearer-token checks on /mcp; the keys are our own, so no OAuth issuer is involved."""
    return AuthSettings.model_validate(
        {"issuer_url": public_url, "resource_server_url": f"{public_url}/mcp", "validate_token_resource": False}
    )


def max_body_bytes(settings: Settings) -> int:
    """Just above the largest allowed write: its content may grow six-fold as JSON (control characters as \\u00XX)."""
    return 6 * settings.limits.max_file_bytes + 64 * 1024


def build_app(settings: Settings, backend: Backend, metrics: Metrics | None = None) -> Starlette:
    metrics = metrics or Metrics()
    gates: list[CallGate] = []
    if settings.rate_limit > 0:
        gates.append(RateLimit(backend.rate_limiter(settings.rate_limit, settings.rate_burst)))
    keyed = settings.auth == "keys"
    runner = CallRunner(KeyedCaller() if keyed else TrustedCaller(), [CallLogger(), metrics], gates=gates)
    public = settings.public_url or settings.listen_url
    server = build_server(
        backend.pad,
        runner,
        agent_id_required=not keyed,
        token_verifier=KeyVerifier(backend.keys, metrics) if keyed else None,
        auth=auth_settings(public) if keyed else None,
    )
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
        Mount("/", app=UncheckedKeyLogger(mcp_app, metrics) if keyed else mcp_app),
    ]
    return Starlette(routes=routes, lifespan=lifespan)


def serve(settings: Settings, app: Starlette) -> None:
    # log_config=None: uvicorn's own messages go through our handlers (JSON lines when asked), not its own.
    uvicorn.run(app, host=settings.host, port=settings.port, log_config=None, access_log=False)
