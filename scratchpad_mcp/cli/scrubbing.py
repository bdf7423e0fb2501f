"""`scratchpad-mcp db scrub`: what left the store (deleted, dropped, redacted) leaves the database's files
(scratchpad_adapters.admin: scrub). `redact` ends with the same scrub (scrubbed) and the same exit status: 1 when
another process held it back."""

from __future__ import annotations

import click

from scratchpad_adapters import admin
from scratchpad_adapters.admin import scrub_sqlite, vacuum, vacuum_command
from scratchpad_adapters.memory import is_memory_url
from scratchpad_core.errors import StorageBusy

from ..settings import Settings
from .admin import db, in_memory, opened_backend, opened_engine
from .invocation import Invocation, progress
from .root import pass_invocation

AGAIN = "close it (stop the servers that use it) and run `scratchpad-mcp db scrub` again"


@db.command("scrub")
@click.option(
    "--vacuum", "run_vacuum", is_flag=True,
    help="PostgreSQL: run the VACUUM (FULL, ANALYZE) it prints (it locks each table while it rewrites it).",
)  # fmt: skip
@pass_invocation
def scrub(invocation: Invocation, run_vacuum: bool) -> int:
    """Rewrite the database so that nothing deleted, dropped or redacted stays in its files.

    First every agent's search index catches up with what was written, so that no index row keeps the text of
    a version since pruned or an entry since dropped. SQLite: then rebuild the full-text index, rewrite every
    page (VACUUM, secure_delete) and truncate the write-ahead log; exit 1 when another process holds the
    database open in a transaction. PostgreSQL: print the VACUUM (FULL, ANALYZE) command that rewrites the
    tables that may hold it, and their statistics (or run it, with --vacuum).
    """
    settings = invocation.begin()
    if is_memory_url(settings.database_url):
        raise in_memory(settings.database_url, "`db scrub` works")
    if admin.file_of(settings.database_url) is None and not run_vacuum:
        caught_up(settings)
        click.echo(vacuum_command())  # on stdout: it may go straight to psql
        progress("PostgreSQL keeps old row versions in these tables' files, and samples of them in their statistics, "
                 "until VACUUM (FULL, ANALYZE) rewrites both (it locks each table meanwhile): run it when the servers "
                 "can wait, or run `db scrub --vacuum`. Its write-ahead log, WAL archives, replicas and backups "
                 "keep their copies: see the README.")  # fmt: skip
        return 0
    scrubbed(settings, run_vacuum=run_vacuum)
    return 0


def scrubbed(settings: Settings, *, run_vacuum: bool = False) -> None:
    """Scrub the settings' database (SQLite; PostgreSQL: say what to run, or run it); StorageBusy, which names
    what to do, when another process held it back. The caller has closed its own connections."""
    url = settings.database_url
    file = admin.file_of(url)
    caught_up(settings)  # (a SQLite file that is not there: refused)
    if file is None:
        _vacuumed(settings, run_vacuum)
        return
    done = scrub_sqlite(file)
    if done.held is not None:
        raise StorageBusy(
            f"the files of {file} may still hold removed content: another process has the database open "
            f"({done.held}); {AGAIN}."
        )
    progress(
        f"scrubbed {file}: full-text index rebuilt, every page rewritten (VACUUM, secure_delete), write-ahead "
        "log checkpointed and truncated; once every process has closed it, no file of it holds what was removed"
    )


def caught_up(settings: Settings) -> None:
    """Every agent's search-index backlog caught up: the index then holds the current text only."""
    with opened_backend(settings, "`db scrub` works") as backend:
        backend.store.catch_up_all_indexes()


def _vacuumed(settings: Settings, run_vacuum: bool) -> None:
    command = vacuum_command()
    if not run_vacuum:
        progress(f"PostgreSQL keeps the old row versions in the table files until they are vacuumed: run `{command}` "
                 "(or `scratchpad-mcp db scrub --vacuum`) for the removed text to leave them.")  # fmt: skip
        return
    with opened_engine(settings) as engine:
        try:
            vacuum(engine)
        except StorageBusy:
            raise StorageBusy(
                f"`{command}` waited too long for a table another session is using; nothing was rewritten. Run "
                "`scratchpad-mcp db scrub --vacuum` again when the servers are idle (or stopped)."
            ) from None
    progress(f"ran {command}")
