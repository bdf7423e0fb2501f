"""The web view on a store the settings name: at /ui of the HTTP server, or alone (`scratchpad-mcp web`)."""

from __future__ import annotations

import hashlib
from typing import TextIO

import uvicorn
from starlette.applications import Starlette

from scratchpad_adapters.agent_directory import agent_directory
from scratchpad_adapters.factory import Backend
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.usecases.base import wall_clock_ms

from ..settings import Settings, SettingsError
from ..settings.backend import open_configured
from ..settings.hosts import Walls
from .access import Sessions
from .app import build_web_app


def web_app(settings: Settings, backend: Backend, *, signed_in: bool) -> Starlette:
    """The view of the backend's store; with signed_in, a person signs in with an API key first."""
    sessions = Sessions(backend.keys, wall_clock_ms, session_secret(settings)) if signed_in else None
    https = settings.public_url.lower().startswith("https:")
    return build_web_app(viewing_store(backend), agent_directory(backend), sessions, https=https)


def session_secret(settings: Settings) -> bytes | None:
    given = settings.web_session_secret.get_secret_value()
    return hashlib.sha256(given.encode()).digest() if given else None  # None: a random one for this process


def check_web_exposure(settings: Settings, host: str, loopback: bool) -> None:
    """The web view without sign-in shows every agent: only on loopback; elsewhere only behind keys."""
    if not loopback and settings.auth != "keys":
        raise SettingsError(
            f"the web view on {host} would show every agent to anyone who reaches it: serve it on 127.0.0.1, "
            "or keep SCRATCHPAD_AUTH=keys so that people sign in with an API key."
        )


def serve_web(settings: Settings, host: str, port: int, *, signed_in: bool, out: TextIO) -> int:
    """Open the store (its schema as it is: this command never migrates) and serve the view until stopped."""
    backend = open_configured(settings, upgrade=False)
    try:
        problem = backend.readiness()
        if problem is not None:
            advice = "Run `uv run scratchpad-mcp db upgrade` first."
            raise SettingsError(f"the web view cannot read this database: {problem}. {advice}")
        # the HTTP server's walls: the local user's view (no keys) answers loopback names and the listed hosts only
        app = Walls(web_app(settings, backend, signed_in=signed_in), settings.host_rule())
        shown = f"[{host}]" if ":" in host else host
        print(f"scratchpad web view: http://{shown}:{port}/", file=out, flush=True)
        uvicorn.run(app, host=host, port=port, log_config=None, access_log=False)
        return 0
    finally:
        backend.close()
