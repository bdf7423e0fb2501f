"""`scratchpad-mcp redact`: remove a version's content, a text from every retained version of a file, or a log
entry's text (scratchpad_core.redaction), then, on SQLite, rewrite the database's files without it."""

from __future__ import annotations

import getpass
import sys

import click

from scratchpad_adapters.factory import SqlBackend
from scratchpad_adapters.sql.scrub import scrub
from scratchpad_core.results import RedactResult

from .admin import opened_backend
from .inspect_options import said_in_cli_terms
from .invocation import Invocation, progress
from .root import Command, pass_invocation

POSTGRES_NOTE = (
    "PostgreSQL keeps the old row versions on disk until they are vacuumed: run VACUUM FULL on file_versions, "
    "log_entries, search_rows, summaries and request_ids (see the README) for the bytes to leave the disk."
)


@click.command("redact", cls=Command)
@click.option("--agent", metavar="AGENT", required=True, help="The agent whose file or log it is.")
@click.option("--path", metavar="PATH", help="The file.")
@click.option("--version", "version", metavar="V", type=int, help="Remove this version's whole content.")
@click.option("--text", metavar="SECRET", help="Remove every occurrence of this text from every retained version.")
@click.option("--log", metavar="PATH", help="The log.")
@click.option("--entry", metavar="N", type=int, help="Remove this entry's text.")
@pass_invocation
def redact(
    invocation: Invocation,
    agent: str,
    path: str | None,
    version: int | None,
    text: str | None,
    log: str | None,
    entry: int | None,
) -> int:
    """Remove content from the history; each version or entry stays, with a marker of who redacted it and when."""
    for_file = path is not None and log is None and entry is None and (version is None) != (text is None)
    for_log = log is not None and entry is not None and path is None and version is None and text is None
    if not (for_file or for_log):
        raise click.UsageError("give --path P with --version V or --text SECRET, or --log P with --entry N.")
    with opened_backend(invocation.begin(), "redact works") as backend:
        store, by = backend.store, _who()
        with said_in_cli_terms({"agent_id": agent, "path": path}):
            if log is not None and entry is not None:
                done = store.redact_entry(agent, log, entry, by=by)
            elif version is not None and path is not None:
                done = store.redact_version(agent, path, version, by=by)
            else:
                assert path is not None and text is not None
                done = store.redact_text(agent, path, text, by=by)
        print(_said(done, "entry" if log is not None else "version"))
        if isinstance(backend, SqlBackend) and scrub(backend.engine):
            progress("the SQLite file was rewritten without it (VACUUM) and its write-ahead log truncated")
        elif isinstance(backend, SqlBackend):
            print(f"scratchpad-mcp: {POSTGRES_NOTE}", file=sys.stderr)
    return 0


def _who() -> str:
    try:
        return f"{getpass.getuser()} (cli)"
    except (KeyError, OSError):
        return "cli"


def _said(done: RedactResult, what: str) -> str:
    numbers = ", ".join(str(n) for n in done.redacted)
    plural = "s" if len(done.redacted) != 1 else ""
    made = f"; made version {done.new_version}, so readers catching up see it" if done.new_version else ""
    what = "entries" if what == "entry" and plural else what + plural
    return f"redacted {what} {numbers} of {done.path}{made}"
