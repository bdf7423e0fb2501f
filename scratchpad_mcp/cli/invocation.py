"""One run of the scratchpad-mcp command: its settings and database, read once, what it serves with (given by
the composition root: Servers), and the one-line progress notes on stderr."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path
from typing import Protocol, TextIO

from scratchpad_adapters.admin import safe_url

from ..server.log_lines import configure_logging
from ..settings import Settings, SettingsError
from . import databases
from .databases import Database

log = logging.getLogger("scratchpad")


class Servers(Protocol):
    """What the command line serves with, handed to it by the composition root (scratchpad_mcp.app.Servers): the
    command line imports neither a transport nor the web view."""

    def mcp(self, settings: Settings) -> None:
        """Serve MCP over the settings' transport until stopped."""

    def web(self, settings: Settings, host: str, port: int, *, loopback: bool, out: TextIO) -> int:
        """Serve the read-only web view until stopped (signed in with keys unless on loopback)."""


def progress(message: str) -> None:
    print(f"scratchpad-mcp: {message}", file=sys.stderr, flush=True)


class Invocation:
    """What this run of the command chose: its settings and database once read, and whether it serves."""

    def __init__(self, servers: Servers | None = None) -> None:
        self._servers = servers
        self.option: str | None = None
        self.settings: Settings | None = None
        self.database: Database | None = None
        self.serving = False

    def configured(self) -> tuple[Settings, Database]:
        """The settings (the --database option overriding them) and their database, read once; logging set up."""
        if self.settings is None or self.database is None:
            settings = Settings.from_env(os.environ)
            if self.option is not None:
                if not self.option.strip():
                    raise SettingsError("--database is empty: give a URL such as sqlite:///path/to/file.db.")
                settings = settings.model_copy(update={"database_url": self.option})
            configure_logging(settings.log_level, settings.log_format)
            self.settings, self.database = settings, databases.chosen(settings, os.environ, self.option)
        return self.settings, self.database

    @property
    def servers(self) -> Servers:
        if self._servers is None:
            raise RuntimeError("this command line has nothing to serve with: start it with scratchpad_mcp.launch.main")
        return self._servers

    def serve(self) -> int:
        settings, database = self.configured()
        self.serving = True
        check_exposure(settings)
        if settings.transport == "http":
            settings.check_walls(settings.host)
        shown = safe_url(settings.database_url)
        log.info(
            "starting scratchpad-mcp over %s; database %s", settings.transport, database.named(),
            extra={"event": "startup", "transport": settings.transport, "database": shown, "auth": settings.auth},
        )  # fmt: skip
        if settings.transport == "stdio" and sys.stdin.isatty():
            print(waiting_on_a_terminal(), file=sys.stderr, flush=True)
        self.servers.mcp(settings)
        return 0

    def begin(self) -> Settings:
        """The settings a command other than serve works with, once the operator has been told which database."""
        settings, database = self.configured()
        databases.refuse_to_guess(settings, os.environ, self.option)
        progress(f"database {database.named()}")  # before any work: an operator sees which one it is
        return settings


def waiting_on_a_terminal() -> str:
    """What a person who started the stdio server in a terminal is told: it waits for an MCP client, and how a
    host starts it instead."""
    root = Path(__file__).resolve().parents[2]
    checkout = str(root) if (root / "pyproject.toml").exists() else "/path/to/checkout"
    entry = {"command": "uv", "args": ["run", "--directory", checkout, "scratchpad-mcp"]}  # the checkout as it is
    return (
        "scratchpad-mcp: waiting for an MCP client on stdin (MCP over stdio: a host such as Claude Desktop starts "
        "this command itself; Ctrl-C stops it).\n"
        "  Claude Desktop: add to claude_desktop_config.json, then restart it:\n"
        f"    {json.dumps({'mcpServers': {'scratchpad': entry}})}\n"
        f"  Claude Code: claude mcp add --transport stdio scratchpad -- uv run --directory {checkout} scratchpad-mcp\n"
        "  Over HTTP instead: MCP_TRANSPORT=http uv run scratchpad-mcp. More: docs/getting-started.md"
    )


def check_exposure(settings: Settings) -> None:
    exposed = settings.transport == "http" and settings.auth == "none" and not settings.loopback
    if exposed and not settings.allow_insecure:
        raise SettingsError(
            f"SCRATCHPAD_AUTH=none would let anyone who reaches {settings.host} act as any agent. Bind to 127.0.0.1, "
            "use API keys (the default), or set SCRATCHPAD_ALLOW_INSECURE=1 if something else guards access."
        )
