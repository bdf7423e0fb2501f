"""Maintenance subcommands: migrations, export and import. Output on stdout, progress and errors on stderr."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from sqlalchemy import Engine

from scratchpad_adapters.factory import SqlBackend
from scratchpad_adapters.memory import is_memory_url
from scratchpad_adapters.sql import migrate, sqlite_files
from scratchpad_adapters.sql.exporter import export
from scratchpad_adapters.sql.importer import check_first_line, import_
from scratchpad_adapters.sql.urls import safe_url
from scratchpad_core.errors import InvalidInput

from .app import open_configured
from .settings import Settings


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    db = commands.add_parser("db", help="database migrations")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser("upgrade", help="apply pending migrations (the server also does this at start)")
    db_commands.add_parser("current", help="show the database's migration revision and whether it is at head")
    down = db_commands.add_parser("downgrade", help="revert migrations (e.g. to 'base'); destroys data")
    down.add_argument("revision")

    out = commands.add_parser("export", help="write files, versions, logs and summaries as JSON lines")
    out.add_argument("--agent", help="export only this agent")
    out.add_argument("-o", "--output", help="write to this file instead of stdout")

    load = commands.add_parser("import", help="load an export into this database (all or nothing)")
    load.add_argument("input", nargs="?", default="-", help="export file, or - for stdin (default)")
    load.add_argument("--replace", action="store_true", help="overwrite agents that already have data here")


def progress(message: str) -> None:
    print(f"scratchpad-mcp: {message}", file=sys.stderr, flush=True)


@contextlib.contextmanager
def opened_engine(settings: Settings) -> Iterator[Engine]:
    """The database the settings name, as it is (each command migrates, or not, itself)."""
    if is_memory_url(settings.database_url):  # refused before anything is opened, as `keys` does
        raise in_memory(settings.database_url, "`db`, `export` and `import` work")
    backend = open_configured(settings, upgrade=False)
    try:
        assert isinstance(backend, SqlBackend), "every URL but memory:// opens a SQL backend"
        yield backend.engine
    finally:
        backend.close()


def in_memory(url: str, commands: str) -> InvalidInput:
    """The refusal of a command whose work would vanish with its process."""
    return InvalidInput(
        f"{safe_url(url)} is a store in one process's memory, gone when it ends: {commands} on a SQLite or "
        "PostgreSQL database; pass its URL with --database."
    )


def run(args: argparse.Namespace, settings: Settings) -> int:
    url = settings.database_url
    if args.command == "import":
        with _input(args.input) as handle:
            first = handle.readline()
            check_first_line(first)  # input that is no export (or no file) creates no database
            with opened_engine(settings) as engine:
                migrate.upgrade(engine)
                lines = itertools.chain([first], handle)
                import_(engine, lines, replace=args.replace, progress=progress, limits=settings.limits)
        return 0
    if args.command == "export" or (args.command == "db" and args.db_command == "current"):
        require_existing(url)
    with opened_engine(settings) as engine:
        if args.command == "db":
            return _db(args, engine)
        if migrate.current_revision(engine) is None:
            raise InvalidInput(f"{safe_url(url)} holds no scratchpad data (no schema). Check the database URL.")
        with _output(args.output) as out:
            export(engine, out, agent=args.agent, progress=progress)
        return 0


def require_existing(url: str) -> None:
    """Reading from a SQLite file that is not there is a typo, not a new, empty database."""
    file = sqlite_files.file_of(url)  # None for another database, or a URL make_engine will explain
    if file is not None and not file.exists():
        cause = sqlite_files.problem(file)  # e.g. its directory is missing too
        raise InvalidInput(f"There is no database file at {file}{f' ({cause})' if cause else ''}. Check the path.")


def _db(args: argparse.Namespace, engine: Engine) -> int:
    if args.db_command == "upgrade":
        migrate.upgrade(engine)
    elif args.db_command == "downgrade":
        if not args.revision.strip():
            raise InvalidInput("Invalid revision: name one, e.g. `db downgrade base` (see `db current`).")
        migrate.downgrade(engine, args.revision)
    current, head = migrate.current_revision(engine), migrate.head_revision()
    if current == head:
        state = "at head"
    elif current is not None and not migrate.is_known(current):
        state = f"unknown to this scratchpad-mcp, whose head is {head}: a newer version made it; upgrade scratchpad-mcp"
    else:
        state = f"behind head {head}; run `uv run scratchpad-mcp db upgrade`"
    print(f"{current or 'empty (no migrations applied)'} ({state})")
    return 0


@contextlib.contextmanager
def _output(path: str | None) -> Iterator[IO[str]]:
    """stdout, or a file that appears (replacing any earlier one) only when the export is complete."""
    if path is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    partial = Path(f"{path}.partial")
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as handle:
            yield handle
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


@contextlib.contextmanager
def _input(path: str) -> Iterator[IO[str]]:
    if path == "-":
        yield sys.stdin
        return
    with open(path, encoding="utf-8", newline="\n") as handle:
        yield handle
