"""`scratchpad-mcp redact`: remove a text from every file and log of an agent (or of one file or one log), or a
version's or an entry's whole content (scratchpad_core.redaction.rules); print, per version and entry, what it changed
(with --dry-run: what it would change, changing nothing); then scrub the database's files as `db scrub` does."""

from __future__ import annotations

import functools
import getpass
from collections.abc import Callable

import click

from scratchpad_core.errors import NothingToRedact
from scratchpad_core.limits import Limits
from scratchpad_core.results import Redacted, RedactResult
from scratchpad_core.service import Scratchpad

from .admin import opened_backend
from .inspect_output import table
from .invocation import Invocation
from .root import Command, pass_invocation
from .scrubbing import scrubbed

USAGE = (
    "give --text SECRET (every file and log of the agent), --path P with --version V or --text SECRET, "
    "or --log P with --entry N or --text SECRET."
)


@click.command("redact", cls=Command)
@click.option("--agent", metavar="AGENT", required=True, help="The agent whose files and logs it is.")
@click.option("--text", metavar="SECRET", help="Remove every occurrence of this text (at least 4 characters).")
@click.option("--path", metavar="PATH", help="Only this file.")
@click.option("--version", "version", metavar="V", type=int, help="Remove this version's whole content (with --path).")
@click.option("--log", metavar="PATH", help="Only this log.")
@click.option("--entry", metavar="N", type=int, help="Remove this entry's whole text (with --log).")
@click.option("--dry-run", is_flag=True, help="Print what would be redacted; change nothing.")
@pass_invocation
def redact(
    invocation: Invocation,
    agent: str,
    text: str | None,
    path: str | None,
    version: int | None,
    log: str | None,
    entry: int | None,
    dry_run: bool,
) -> int:
    """Remove content from the history; each version or entry stays, with a marker of who redacted it and when.

    Without --path or --log, --text goes from every retained version of every file and every kept entry of
    every log of the agent. Prints one row per version and entry (occurrences; 'whole' where the whole content
    became one marker: asked for, or each occurrence's marker would pass the size limit), then rewrites the
    database's files without it as `db scrub` does (exit 1 if another process holds them open).
    """
    redaction = _chosen(agent, text, path, version, log, entry)
    settings = invocation.begin()
    nothing: NothingToRedact | None = None
    with opened_backend(settings, "redact works") as backend:
        try:  # a refusal (no such agent, file or log; a text too short) is raised before anything changes
            done = redaction(backend.store, by=_who(), dry_run=dry_run)
        except NothingToRedact as refused:  # a text may have left the store by other ways yet stay in its files
            nothing = refused
    if nothing is None:
        _print(done, settings.limits)
    if not dry_run:
        scrubbed(settings)
    if nothing is not None:
        raise nothing
    return 0


Redaction = Callable[..., RedactResult]  # (store, by=..., dry_run=...) -> what it redacted


def _chosen(
    agent: str, text: str | None, path: str | None, version: int | None, log: str | None, entry: int | None
) -> Redaction:
    """The library call the options name (a usage error when they name none, or two)."""
    store = Scratchpad
    if path is not None and log is None and entry is None and (version is None) != (text is None):
        if version is not None:
            return functools.partial(store.redact_version, agent_id=agent, path=path, version=version)
        assert text is not None
        return functools.partial(store.redact_text, agent_id=agent, path=path, text=text)
    if log is not None and path is None and version is None and (entry is None) != (text is None):
        if entry is not None:
            return functools.partial(store.redact_entry, agent_id=agent, path=log, entry_id=entry)
        assert text is not None
        return functools.partial(store.redact_log_text, agent_id=agent, path=log, text=text)
    if text is not None and path is None and log is None and version is None and entry is None:
        return functools.partial(store.redact_everywhere, agent_id=agent, text=text)
    raise click.UsageError(USAGE)


def _who() -> str:
    try:
        return f"{getpass.getuser()} (cli)"
    except (KeyError, OSError):
        return "cli"


def _print(done: RedactResult, limits: Limits) -> None:
    rows = [
        (row.path, row.version or "", row.entry or "", "-" if row.occurrences is None else f"{row.occurrences:,}",
         _how(row))
        for row in done.redacted
    ]  # fmt: skip
    table(["path", "version", "entry", "occurrences", "would redact" if done.dry_run else "redacted"], rows,
          right=("version", "entry", "occurrences"))  # fmt: skip
    versions = [row for row in done.redacted if row.version is not None]
    entries = [row for row in done.redacted if row.entry is not None]
    found = sum(row.occurrences or 0 for row in done.redacted)
    parts = [
        f"{_count(len(rows), noun)} of {_count(len({row.path for row in rows}), owner)}"
        for rows, noun, owner in ((versions, "version", "file"), (entries, "entry", "log"))
        if rows
    ]
    said = " and ".join(parts) + (f" ({_count(found, 'occurrence')})" if found else "")
    if done.dry_run:
        print(f"dry run: would redact {said}; nothing was changed")
    else:
        print(f"redacted {said}; {_count(done.requests_forgotten, 'request_id')} forgotten")
    print(in_force(limits))


def in_force(limits: Limits) -> str:
    """The limits the redaction applied (this command's environment, which should be the servers')."""
    named = ", ".join(
        f"SCRATCHPAD_{name.upper()}={getattr(limits, name)}"
        for name in ("max_versions", "max_file_bytes", "max_log_entry_bytes")
    )
    return f"limits in force: {named} (from this command's environment: give it the servers' values)"


def _how(row: Redacted) -> str:
    what = "version" if row.version is not None else "entry"
    how = "each occurrence" if not row.whole else f"whole {what}"
    if row.whole and row.occurrences is not None:
        how += " (size limit)"
    if row.pruned:
        how += "; the file had expired: deleted, as a prune would"
    if row.new_version is not None:
        how += f"; new version {row.new_version}"
    return how


def _count(number: int, noun: str) -> str:
    plural = noun if number == 1 else ("entries" if noun == "entry" else noun + "s")
    return f"{number:,} {plural}"
