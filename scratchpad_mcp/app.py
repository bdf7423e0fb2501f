"""The composition root of the MCP side: from Settings and an opened backend, everything a transport serves with
(who may call, the gates, the observers, the metrics and the server), for stdio and HTTP alike, and what the
command line serves with (Servers). The only module that wires the rooms to each other: the transports, the
command line and the web view never import one another."""

from __future__ import annotations

import gc
import logging
from typing import TYPE_CHECKING, TextIO

from mcp.server.auth.settings import AuthSettings

from scratchpad_adapters.factory import Backend
from scratchpad_adapters.index_pass import IndexPass
from scratchpad_adapters.pruning import Pruner
from scratchpad_core.actors import HTTP

from .server import ScratchpadServer, build_server
from .server.calls import CallGate, CallObserver, CallRunner, RateLimit, TrustedCaller
from .server.log_lines import CallLogger
from .settings import Settings
from .settings.backend import open_configured

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from .http.metrics import Metrics
    from .stdio.warm_start import WarmStart

log = logging.getLogger("scratchpad")


def stdio_server(settings: Settings, backend: Backend, *observers: CallObserver) -> ScratchpadServer:
    """One local client: agent_id taken at its word, calls run inline, one log line each."""
    runner = CallRunner(TrustedCaller(), [CallLogger(), *observers], inline=True)
    return build_server(
        backend.store,
        runner,
        max_read_bytes=settings.max_read_bytes or None,
        changes=backend.change_feed,
        sessions=True,
    )


def http_server(settings: Settings, backend: Backend, metrics: Metrics, *observers: CallObserver) -> ScratchpadServer:
    """Many clients: API keys (unless SCRATCHPAD_AUTH=none), the rate limit, logs and metrics, worker threads."""
    from .http.auth import KeyedCaller, KeyVerifier, uses_keys  # with prometheus_client: only when serving HTTP

    gates: list[CallGate] = []
    if settings.rate_limit > 0:
        gates.append(RateLimit(backend.rate_limiter(settings.rate_limit, settings.rate_burst)))
    keyed = uses_keys(settings)
    caller = KeyedCaller(metrics) if keyed else TrustedCaller(HTTP)
    runner = CallRunner(caller, [CallLogger(), metrics, *observers], gates=gates)
    return build_server(
        backend.store,
        runner,
        agent_id_required=not keyed,
        token_verifier=KeyVerifier(backend.keys, metrics) if keyed else None,
        auth=auth_settings(settings.listen_url) if keyed else None,
        max_read_bytes=settings.max_read_bytes or None,
        changes=backend.change_feed,
    )


def http_app(
    settings: Settings, backend: Backend, metrics: Metrics | None = None, *observers: CallObserver
) -> Starlette:
    """The ASGI app of one replica (http.app): the MCP server the settings call for at /mcp, the plainest tool
    calls answered directly (stdio.direct_calls), the probes and metrics, and the web view at /ui."""
    from .http.app import build_app  # starlette and uvicorn only when serving HTTP
    from .http.auth import uses_keys
    from .http.metrics import Metrics
    from .stdio.direct_calls import DirectCalls
    from .web.serve import web_app

    metrics = metrics or Metrics()
    server = http_server(settings, backend, metrics, *observers)
    ui = web_app(settings, backend, signed_in=uses_keys(settings))
    return build_app(settings, backend, server, metrics, direct=DirectCalls(server.direct_tools), ui=ui)


def auth_settings(listen_url: str) -> AuthSettings:
    """Bearer-token checks on /mcp. The keys are our own and no authorization server issues them, so no OAuth
    metadata is advertised: without a resource_server_url the SDK serves no /.well-known/oauth-protected-resource
    and names none in a 401. issuer_url is a field the SDK requires; with no OAuth provider it uses it nowhere."""
    return AuthSettings.model_validate({"issuer_url": listen_url, "resource_server_url": None})


def settle() -> None:
    """Take what start-up made (modules, the SDK's and our models, ~140,000 objects that live as long as the process)
    out of the cyclic collector's sight: a full collection, which a large reply's allocations set off now and then,
    then scans only what calls made since, not everything (~60-150 ms, a call's p99 otherwise)."""
    gc.freeze()


def serve(settings: Settings, warm: WarmStart | None = None) -> None:
    """Open the store the settings name and serve MCP over their transport until stopped; over stdio, a warm start
    hands over what it read and answered, and keeps this start's first replies for the next one."""
    backend = open_configured(settings)
    pruner = Pruner(backend, settings.prune_every)
    pruner.start()
    indexer = IndexPass(backend.store, settings.index_every)
    indexer.start()
    if settings.transport == "stdio":
        try:
            from .server import wire
            from .stdio import transport
            from .stdio.direct_calls import DirectCalls

            server = stdio_server(settings, backend, indexer)
            settle()
            transport.serve(server, wire.max_message_bytes(settings.limits), DirectCalls(server.direct_tools), warm)
        finally:
            indexer.stop()
            pruner.stop()
            backend.close()
        transport.exit_past_abandoned_calls()
        return
    try:
        if warm is not None:
            warm.handover()  # stdin is not ours to read over HTTP
        from .http import app as http  # starlette and uvicorn only when serving HTTP

        public = f"; clients use {settings.public_url}/mcp" if settings.public_url else ""
        log.info(
            "serving MCP on %s/mcp (auth: %s)%s", settings.listen_url, settings.auth, public,
            extra={"event": "listening", "host": settings.host, "port": settings.port},
        )  # fmt: skip
        served = http_app(settings, backend, None, indexer)
        settle()
        http.serve(settings, served)
    finally:
        indexer.stop()
        pruner.stop()
        backend.close()


class Servers:
    """What the command line serves with (cli.invocation.Servers): MCP over the settings' transport, handed a warm
    start's early replies (stdio), and the read-only web view (the `web` command)."""

    def __init__(self, warm: WarmStart | None = None) -> None:
        self._warm = warm

    def mcp(self, settings: Settings) -> None:
        serve(settings, self._warm)

    def web(self, settings: Settings, host: str, port: int, *, loopback: bool, out: TextIO) -> int:
        from .web.serve import check_web_exposure, serve_web

        check_web_exposure(settings, host, loopback)
        settings.check_walls(host)
        return serve_web(settings, host, port, signed_in=not loopback, out=out)
