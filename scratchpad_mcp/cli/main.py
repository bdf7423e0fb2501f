"""The scratchpad-mcp command: serve MCP (the default) and run maintenance subcommands.

The command tree (click) is in cli.root; this module reads the settings, serves, and turns every failure into
one line and an exit code. With no arguments at all, as a supervisor starts it, it serves without importing
the command-line parser."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

from scratchpad_adapters.sql import sqlite_files
from scratchpad_adapters.sql.sqlite_files import SqliteFileError
from scratchpad_adapters.sql.urls import safe_url
from scratchpad_core.errors import ScratchpadError

from .. import app
from ..server.log_lines import configure_logging
from ..settings import Settings, SettingsError
from ..stdio.warm_start import WarmStart
from . import databases
from .databases import Database

log = logging.getLogger("scratchpad")


def progress(message: str) -> None:
    print(f"scratchpad-mcp: {message}", file=sys.stderr, flush=True)


class Invocation:
    """What this run of the command chose: its settings and database once read, and whether it serves."""

    def __init__(self) -> None:
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

    def serve(self, warm: WarmStart | None = None) -> int:
        settings, database = self.configured()
        self.serving = True
        check_exposure(settings)
        shown = safe_url(settings.database_url)
        log.info(
            "starting scratchpad-mcp over %s; database %s", settings.transport, database.named(),
            extra={"event": "startup", "transport": settings.transport, "database": shown, "auth": settings.auth},
        )  # fmt: skip
        app.serve(settings, warm)
        return 0

    def begin(self) -> Settings:
        """The settings a command other than serve works with, once the operator has been told which database."""
        settings, database = self.configured()
        databases.refuse_to_guess(settings, os.environ, self.option)
        progress(f"database {database.named()}")  # before any work: an operator sees which one it is
        return settings


def check_exposure(settings: Settings) -> None:
    exposed = settings.transport == "http" and settings.auth == "none" and not settings.loopback
    if exposed and not settings.allow_insecure:
        raise SettingsError(
            f"SCRATCHPAD_AUTH=none would let anyone who reaches {settings.host} act as any agent. Bind to 127.0.0.1, "
            "use API keys (the default), or set SCRATCHPAD_ALLOW_INSECURE=1 if something else guards access."
        )


def main(argv: Sequence[str] | None = None, *, warm: WarmStart | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    invocation = Invocation()
    try:
        if not args:
            return invocation.serve(warm)
        from .root import run  # the parser, for any command line at all

        return run(args, invocation)
    except BrokenPipeError:  # e.g. `export | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 141
    except SettingsError as error:
        if invocation.database is None:  # the settings themselves
            return invalid_setting(error)
        return failed(invocation, error)
    except (ScratchpadError, DBAPIError, OSError, UnicodeDecodeError) as error:
        return failed(invocation, error)
    except KeyboardInterrupt:
        return 130


def invalid_setting(error: SettingsError) -> int:
    if Settings.log_format_on_failure(os.environ) == "json":  # as the server's own lines: a supervisor reads JSON
        configure_logging("INFO", "json")
        log.error("scratchpad-mcp: invalid setting: %s", error, extra={"event": "startup_failed"})
    else:
        print(f"scratchpad-mcp: invalid setting: {error}", file=sys.stderr)
    return 2


def failed(invocation: Invocation, error: Exception) -> int:
    database = invocation.database
    message = str(error) if database is None else describe_failure(error, database)
    if invocation.serving:  # the server's own log, JSON when asked for: a supervisor reads why it did not start
        log.error("scratchpad-mcp cannot start: %s", message, extra={"event": "startup_failed"})
    else:
        print(f"scratchpad-mcp: {message}", file=sys.stderr)
    return 2 if isinstance(error, SettingsError) else 1


def describe_failure(error: Exception, database: Database) -> str:
    """Why a command could not do its work, on one line: our own errors, driver errors, files."""
    if isinstance(error, SqliteFileError):
        return _unusable_file(error.path, error.cause, database)
    if isinstance(error, DBAPIError):
        reason = (str(error.orig).strip().splitlines() or [type(error.orig).__name__])[0]
        if isinstance(error, IntegrityError | DataError):  # the database refused what a command tried to write
            return f"the database refused the data: {reason}. Nothing was changed."
        file = sqlite_files.file_of(database.url)
        cause = sqlite_files.problem(file) if file is not None else None
        if file is not None and cause is not None:  # "unable to open database file": say why
            return _unusable_file(file, cause, database)
        return (  # no such server, bad credentials, an unwritable SQLite file
            f"cannot use the database {safe_url(database.url)} ({database.origin}): {reason}. {database.advice()} "
            "and that the database is up and reachable."
        )
    if isinstance(error, UnicodeDecodeError):
        return f"the input is not UTF-8 text ({error.reason} at byte {error.start:,}); an export is UTF-8 JSON lines."
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    return str(error)


def _unusable_file(path: Path, cause: str, database: Database) -> str:
    setting = database.setting or databases.PATH_VARIABLE
    return (
        f"cannot use {path} as a SQLite database ({database.origin}): {cause}. "
        f"Point {setting} at a file in a directory this user may write."
    )
