"""`scratchpad-mcp web`: the read-only web view of a local SQLite or Postgres store, on 127.0.0.1 by default.

On loopback the single local user sees every agent without signing in (and only requests naming a loopback
host, or one of SCRATCHPAD_ALLOWED_HOSTS, are answered, so a web page elsewhere cannot reach the view through DNS
rebinding). On any other address the view is served only behind API keys: people sign in with a key, as at /ui
of the HTTP server, under the same Host rule (settings.hosts).
"""

from __future__ import annotations

import sys

import click

from scratchpad_adapters.memory import is_memory_url

from ..settings import SettingsError
from ..settings.hosts import is_loopback
from .admin import require_existing
from .invocation import Invocation
from .root import Command, pass_invocation


@click.command("web", cls=Command)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to serve on (not loopback: keys only).")
@click.option("--port", type=click.IntRange(1, 65535), help="Port to serve on. [default: SCRATCHPAD_WEB_PORT, 4322]")
@pass_invocation
def web(invocation: Invocation, host: str, port: int | None) -> int:
    """Serve the read-only web view of this store: agents, files, versions, diffs, logs, search."""
    settings = invocation.begin()
    if is_memory_url(settings.database_url):
        raise SettingsError(
            "the web view shows a database: memory:// lives in one process only. Give --database a SQLite file or a "
            "Postgres URL."
        )
    require_existing(settings.database_url)  # a missing SQLite file is a typo: this command creates nothing
    loopback = is_loopback(host)
    return invocation.servers.web(settings, host, port or settings.web_port, loopback=loopback, out=sys.stdout)
