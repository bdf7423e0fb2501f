"""The scratchpad-mcp command: serve MCP (the default) and run maintenance subcommands."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import os
import sys
from collections.abc import Sequence

from sqlalchemy.engine import make_url

from scratchpad_adapters import open_store
from scratchpad_adapters.anthropic_summarizer import AnthropicSummarizer
from scratchpad_core.errors import ScratchpadError

from . import admin
from .calls import CallRunner, TrustedCaller
from .logs import CallLogger, configure_logging
from .server import build_server
from .settings import Settings, SettingsError

log = logging.getLogger("scratchpad")


def safe_url(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


def serve(settings: Settings) -> int:
    log.info(
        "starting: transport=%s database=%s",
        settings.transport,
        safe_url(settings.database_url),
        extra={"event": "startup", "transport": settings.transport},
    )
    summarizer = AnthropicSummarizer(settings.summary_model)
    with open_store(settings.database_url, limits=settings.limits, summarizer=summarizer) as pad:
        log.info("database ready (migrations at head)", extra={"event": "migration"})
        runner = CallRunner(TrustedCaller(), [CallLogger()])
        server = build_server(pad, runner)
        if settings.transport == "stdio":
            server.run()
            return 0
        from . import http

        log.info("serving streamable HTTP on http://%s:%d/mcp", settings.host, settings.port)
        http.serve(settings, http.build_app(settings, server))
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="scratchpad-mcp",
        description="Versioned, token-efficient storage for AI agents over MCP. With no command: serve "
        "(stdio, or streamable HTTP with MCP_TRANSPORT=http). Settings come from SCRATCHPAD_* variables.",
    )
    root.add_argument(
        "--database", metavar="URL", help="SQLAlchemy URL; overrides SCRATCHPAD_DATABASE_URL and SCRATCHPAD_DB_PATH"
    )
    commands = root.add_subparsers(dest="command")
    commands.add_parser("serve", help="serve MCP (the default)")
    admin.add_commands(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as error:
        print(f"scratchpad-mcp: invalid setting: {error}", file=sys.stderr)
        return 2
    if args.database:
        settings = dataclasses.replace(settings, database_url=args.database, database_is_default=False)
    configure_logging(settings.log_level, settings.log_format)
    try:
        if args.command in (None, "serve"):
            return serve(settings)
        return admin.run(args, settings.database_url)
    except (ScratchpadError, SettingsError) as error:
        print(f"scratchpad-mcp: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def entry_point() -> None:
    sys.exit(main())
