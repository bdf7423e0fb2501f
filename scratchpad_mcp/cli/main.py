"""The scratchpad-mcp command: serve MCP (the default) and run maintenance subcommands.

The command tree (click) is in cli.root, each command with its work (admin, keys, inspection, web); this module
attaches them, runs the one named, and turns every failure into one line and an exit code. With no arguments at
all, as a supervisor starts it, it serves without importing the command-line parser. What it serves with comes
from the composition root (scratchpad_mcp.launch.main)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import DataError, DBAPIError, IntegrityError

from scratchpad_adapters.admin import SqliteFileError, file_of, problem, safe_url
from scratchpad_core.errors import ScratchpadError

from ..server.log_lines import configure_logging
from ..settings import Settings, SettingsError
from . import databases, refusals
from .databases import Database
from .invocation import Invocation, Servers

if TYPE_CHECKING:
    from .root import Root

log = logging.getLogger("scratchpad")


def main(argv: Sequence[str] | None, servers: Servers) -> int:
    """Run the command `argv` names (None: this process's arguments; none: serve), serving with `servers`."""
    args = sys.argv[1:] if argv is None else list(argv)
    invocation = Invocation(servers)
    try:
        if not args:
            return invocation.serve()
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


def command_line() -> Root:
    """The root group with every command attached (once)."""
    from .root import root  # the parser, for any command line at all

    if len(root.commands) == 1:
        from . import admin, inspection, keys
        from .changes import changes
        from .redaction import redact  # and `db scrub`
        from .retention import retention  # and `db prune`
        from .web import web

        for command in (*admin.COMMANDS, keys.keys, retention, redact, web, *inspection.COMMANDS, changes):
            root.add_command(command)
    return root


def run(args: Sequence[str], invocation: Invocation) -> int:
    """Parse `args` and run the command they name; usage errors are shown here, every other failure raised."""
    import click

    try:
        with command_line().make_context("scratchpad-mcp", list(args), obj=invocation) as context:
            return int(context.command.invoke(context) or 0)
    except click.exceptions.Exit as done:  # --help, --version
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return error.exit_code


def invalid_setting(error: SettingsError) -> int:
    if Settings.log_format_on_failure(os.environ) == "json":  # as the server's own lines: a supervisor reads JSON
        configure_logging("INFO", "json")
        log.error("scratchpad-mcp: invalid setting: %s", error, extra={"event": "startup_failed"})
    else:
        print(f"scratchpad-mcp: invalid setting: {error}", file=sys.stderr)
    return 2


def failed(invocation: Invocation, error: Exception) -> int:
    database = invocation.database
    if isinstance(error, ScratchpadError):
        message = refusals.said(error)
    else:
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
        file = file_of(database.url)
        cause = problem(file) if file is not None else None
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
