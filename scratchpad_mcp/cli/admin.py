"""Maintenance subcommands: migrations, export and import. Output on stdout, progress and errors on stderr."""

from __future__ import annotations

import contextlib
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import click
from sqlalchemy import Engine

from scratchpad_adapters import admin as sql_admin
from scratchpad_adapters.admin import check_first_line, export, import_, safe_url
from scratchpad_adapters.factory import Backend, SqlBackend
from scratchpad_adapters.memory import is_memory_url
from scratchpad_core.errors import InvalidInput

from ..settings import Settings
from ..settings.backend import open_configured
from .invocation import Invocation, progress
from .root import Command, Group, pass_invocation


@click.group(cls=Group)
def db() -> None:
    """Database migrations (upgrade, current, downgrade), the integrity check, prune and scrub."""


@db.command()
@pass_invocation
def upgrade(invocation: Invocation) -> int:
    """Apply pending migrations (the server also does this at start)."""
    with opened_engine(invocation.begin()) as engine:
        sql_admin.upgrade(engine)
        return _show_revision(engine)


@db.command()
@pass_invocation
def current(invocation: Invocation) -> int:
    """Show the migration revision and whether it is at head."""
    settings = invocation.begin()
    require_existing(settings.database_url)
    with opened_engine(settings) as engine:
        return _show_revision(engine)


@db.command()
@click.argument("revision")
@pass_invocation
def downgrade(invocation: Invocation, revision: str) -> int:
    """Revert migrations to REVISION; destroys data.

    REVISION is a migration id (see `db current`), or 'base' to remove the schema and everything in it.
    """
    settings = invocation.begin()
    if not revision.strip():
        raise InvalidInput("Invalid revision: name one, e.g. `db downgrade base` (see `db current`).")
    with opened_engine(settings) as engine:
        sql_admin.downgrade(engine, revision)
        return _show_revision(engine)


@db.command("check")
@click.option("--agent", metavar="AGENT", help="Check only this agent's rows (and rows that belong to no agent).")
@pass_invocation
def check_command(invocation: Invocation, agent: str | None) -> int:
    """Verify every invariant in one read-only snapshot; exit 1 with a report naming each violation."""
    settings = invocation.begin()
    require_existing(settings.database_url)
    with opened_engine(settings) as engine:
        current, head = sql_admin.current_revision(engine), sql_admin.head_revision()
        if current != head:
            raise InvalidInput(
                f"{safe_url(settings.database_url)} is at revision {current or 'empty (no schema)'}, and `db check` "
                f"reads the schema at head {head}: check the database URL, or run `db upgrade` first."
            )
        report = sql_admin.check(engine, settings.limits, agent)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


@click.command("export", cls=Command)
@click.option("--agent", metavar="AGENT", help="Export only this agent.")
@click.option("-o", "--output", metavar="FILE", help="Write to this file instead of stdout.")
@pass_invocation
def export_command(invocation: Invocation, agent: str | None, output: str | None) -> int:
    """Write files, versions, logs and summaries as JSON lines."""
    settings = invocation.begin()
    require_existing(settings.database_url)
    with opened_engine(settings) as engine:
        if sql_admin.current_revision(engine) is None:
            raise InvalidInput(
                f"{safe_url(settings.database_url)} holds no scratchpad data (no schema). Check the database URL."
            )
        with _output(output) as out:
            export(engine, out, agent=agent, progress=progress)
    return 0


@click.command("import", cls=Command)
@click.argument("source", metavar="[INPUT]", default="-")
@click.option("--replace", is_flag=True, help="Overwrite agents that already have data here.")
@pass_invocation
def import_command(invocation: Invocation, source: str, replace: bool) -> int:
    """Load an export into this database (all or nothing).

    INPUT is an export file, or - for stdin (the default).
    """
    settings = invocation.begin()
    with _input(source) as handle:
        first = handle.readline()
        check_first_line(first)  # input that is no export (or no file) creates no database
        with opened_engine(settings) as engine:
            sql_admin.upgrade(engine)
            lines = itertools.chain([first], handle)
            import_(engine, lines, replace=replace, progress=progress, limits=settings.limits)
    return 0


COMMANDS = (db, export_command, import_command)


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


@contextlib.contextmanager
def opened_backend(settings: Settings, commands: str, *, existing: bool = True) -> Iterator[Backend]:
    """The store the settings name (migrated), for a command that changes it: refused on memory://, where its work
    would vanish with the process, and when a SQLite file is not there unless the command may make it."""
    if is_memory_url(settings.database_url):
        raise in_memory(settings.database_url, commands)
    if existing:
        require_existing(settings.database_url)
    backend = open_configured(settings)
    try:
        yield backend
    finally:
        backend.close()


def in_memory(url: str, commands: str) -> InvalidInput:
    """The refusal of a command whose work would vanish with its process."""
    return InvalidInput(
        f"{safe_url(url)} is a store in one process's memory, gone when it ends: {commands} on a SQLite or "
        "PostgreSQL database; pass its URL with --database."
    )


def require_existing(url: str) -> None:
    """Reading from a SQLite file that is not there is a typo, not a new, empty database."""
    file = sql_admin.file_of(url)  # None for another database, or a URL make_engine will explain
    if file is not None and not file.exists():
        cause = sql_admin.problem(file)  # e.g. its directory is missing too
        raise InvalidInput(f"There is no database file at {file}{f' ({cause})' if cause else ''}. Check the path.")


def _show_revision(engine: Engine) -> int:
    current, head = sql_admin.current_revision(engine), sql_admin.head_revision()
    if current == head:
        state = "at head"
    elif current is not None and not sql_admin.is_known(current):
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
