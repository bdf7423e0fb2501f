"""The read-only inspection commands: agents, files, cat, versions, diff, logs, log, search, stats.

Each reads the store through the library's use cases (scratchpad_adapters.viewing: nothing written, no
operation counted), one bounded page at a time; a table for a person, or --json for a script.
"""

from __future__ import annotations

import time

import click

from scratchpad_core.bounds import DEFAULT_SEARCH_RESULTS, LOG_PAGE_SIZE, MAX_SEARCH_RESULTS
from scratchpad_core.errors import InvalidInput
from scratchpad_core.results import LogEntryOut
from scratchpad_core.visible_text import screen_line

from .inspect_options import (
    VersionArgument,
    VersionNumber,
    agent_option,
    inspection_command,
    json_option,
    line_span,
    paged,
    path_argument,
    prefix_option,
)
from .inspect_output import (
    CONTINUED,
    emit_json,
    fullest,
    more,
    plain,
    print_diff,
    print_text,
    quota_use,
    table,
    unified,
    when,
)
from .inspect_store import Inspection


@inspection_command("agents")
@json_option
@paged("agents")
def agents(inspection: Inspection, as_json: bool, limit: int, cursor: str | None) -> None:
    """List the agents, with what they store and their quota use.

    Per agent: files, logs, log entries, bytes, the fullest quota, and the time of its last change.
    """
    page = list(inspection.agents.agents(cursor, limit + 1))
    next_cursor = page[limit - 1].agent_id if len(page) > limit else None
    page = page[:limit]
    last = inspection.activity.last_changes([usage.agent_id for usage in page])
    limits = inspection.store.limits
    if as_json:
        rows = [
            {"agent": u.agent_id, "files": u.files, "logs": u.logs, "log_entries": u.log_entries, "bytes": u.bytes,
             "quota_use": quota_use(u, limits), "last_activity": last.get(u.agent_id)}
            for u in page
        ]  # fmt: skip
        emit_json({"agents": rows, "next_cursor": next_cursor})
        return
    table(
        ["agent", "files", "logs", "entries", "bytes", "quota use", "last activity"],
        [
            (u.agent_id, u.files, u.logs, u.log_entries, f"{u.bytes:,}", fullest(quota_use(u, limits)),
             when(last.get(u.agent_id)))
            for u in page
        ],
        right=("files", "logs", "entries", "bytes"),
    )  # fmt: skip
    more("agents", next_cursor)


@inspection_command("files")
@agent_option
@prefix_option
@json_option
@paged("files")
def files(
    inspection: Inspection, agent_id: str, prefix: str | None, as_json: bool, limit: int, cursor: str | None
) -> None:
    """List an agent's files: path, version, size, last change."""
    listing = inspection.store.list_files(inspection.agent(agent_id), prefix, limit=limit, cursor=cursor)
    if as_json:
        emit_json({"files": listing.files, "next_cursor": listing.next_cursor})
        return
    rows = [(f.path, f.current_version, f"{f.bytes:,}", when(f.updated_at)) for f in listing.files]
    table(["path", "version", "bytes", "updated"], rows, right=("version", "bytes"))
    more("files", listing.next_cursor)


@inspection_command("cat")
@agent_option
@path_argument
@click.option(
    "--version", metavar="N", type=click.IntRange(min=1), help="A retained version instead of the current one."
)
@click.option("--lines", "span", metavar="FIRST:LAST", help="Only these lines (from 1; either end may be left out).")
@json_option
def cat(inspection: Inspection, agent_id: str, path: str, version: int | None, span: str | None, as_json: bool) -> None:
    """Print a file, some of its lines, or an older version."""
    first, last = line_span(span)
    count = None if last is None else last - first + 1
    read = inspection.store.read_file(
        inspection.agent(agent_id), path, version=version, start_line=first if span else None, max_lines=count
    )
    if as_json:
        emit_json(read)
    else:
        print_text(read.content or "")


@inspection_command("versions")
@agent_option
@path_argument
@json_option
def versions(inspection: Inspection, agent_id: str, path: str, as_json: bool) -> None:
    """List a file's retained versions.

    Per version: its size, lines, when it was made and, where the store records it, by whom.
    """
    listing = inspection.store.list_versions(inspection.agent(agent_id), path)
    if as_json:
        emit_json(listing)
        return
    rows = [(v.version, f"{v.bytes:,}", v.lines, when(v.created_at), v.by) for v in listing.versions]
    table(["version", "bytes", "lines", "created", "by"], rows, right=("version", "bytes", "lines"))


@inspection_command("diff")
@agent_option
@path_argument
@click.argument("old", cls=VersionArgument, metavar="[FROM", type=VersionNumber(), required=False)
@click.argument("new", cls=VersionArgument, metavar="[TO]]", type=VersionNumber(), required=False)
@json_option
def diff(inspection: Inspection, agent_id: str, path: str, old: int | None, new: int | None, as_json: bool) -> None:
    """Show the changes between two versions of a file.

    A unified diff, coloured on a terminal. TO is the current version unless given, FROM the one before TO.
    """
    store, agent_id = inspection.store, inspection.agent(agent_id)
    current = store.list_versions(agent_id, path).current_version
    new = new or current
    old = old or new - 1
    if old < 1:
        raise InvalidInput(f"{path} has only version {new}: name two versions to compare, e.g. `diff PATH 1 {new}`.")
    before = store.read_file(agent_id, path, version=old).content or ""
    after = store.read_file(agent_id, path, version=new).content or ""
    lines = unified(before, after, f"{path}@{old}", f"{path}@{new}")
    if as_json:
        emit_json({"path": path, "from": old, "to": new, "diff": "".join(f"{line}\n" for line in lines)})
    else:
        print_diff(lines)


@inspection_command("logs")
@agent_option
@prefix_option
@json_option
@paged("logs")
def logs(
    inspection: Inspection, agent_id: str, prefix: str | None, as_json: bool, limit: int, cursor: str | None
) -> None:
    """List an agent's logs: entries, size, last change."""
    found = inspection.store.list_logs(inspection.agent(agent_id), prefix).logs
    after = [log for log in found if cursor is None or log.path > cursor]
    page = after[:limit]
    next_cursor = page[-1].path if len(after) > limit else None
    if as_json:
        emit_json({"logs": page, "next_cursor": next_cursor})
        return
    rows = [(g.path, g.entries, f"{g.bytes:,}", g.last_entry_id, when(g.updated_at)) for g in page]
    table(["path", "entries", "bytes", "last entry", "updated"], rows, right=("entries", "bytes", "last entry"))
    more("logs", next_cursor)


@inspection_command("log")
@agent_option
@path_argument
@click.option(
    "--since", metavar="ID", type=click.IntRange(min=0), help="Only entries after this entry id (a last_entry_id)."
)
@click.option("--tail", metavar="N", type=click.IntRange(min=1), help="Only the newest N entries (any number).")
@click.option("--follow", "-f", is_flag=True, help="Keep printing new entries as they come, until interrupted.")
@click.option(
    "--interval",
    metavar="SECONDS",
    type=click.FloatRange(min=0.05),
    default=1.0,
    show_default=True,
    help="Seconds between polls.",
)
@json_option
def log(inspection: Inspection, agent_id: str, path: str, since: int | None, tail: int | None, follow: bool,
        interval: float, as_json: bool) -> None:  # fmt: skip
    """Print a log's entries, oldest first.

    Each line: the entry id, its time, who appended it, the entry (with --json, one JSON line each). The
    further lines of a multi-line entry are indented under it after "|", control characters shown as
    symbols. Continue where a reading stopped with --since and the last entry id printed; --follow keeps
    polling for new entries until interrupted (Ctrl-C).
    """
    if since is not None and tail is not None:
        raise click.UsageError(
            "--since and --tail cannot be combined: --since N reads on after entry N, --tail N shows the newest N."
        )
    store, agent_id = inspection.store, inspection.agent(agent_id)
    found = inspection.log(agent_id, path)
    last = since or 0
    if tail is not None:  # ids are contiguous: the newest N follow entry last_entry_id - N, read page by page
        last = max(0, found.last_entry_id - tail)
    while True:
        page = store.read_log(agent_id, path, since_entry=last, limit=LOG_PAGE_SIZE, show_by=True)
        _print_entries(page.entries, as_json)
        last = page.last_entry_id
        if page.has_more:
            continue
        if not follow:
            return
        time.sleep(interval)


def _print_entries(entries: list[LogEntryOut], as_json: bool) -> None:
    for entry in entries:
        if as_json:
            emit_json(entry)
        else:
            first, *further = entry.entry.split("\n")
            click.echo(f"#{entry.id}  {when(entry.created_at)}  {screen_line(entry.by or '-')}  {screen_line(first)}")
            for line in further:
                click.echo(f"{CONTINUED}{screen_line(line)}" if line else CONTINUED.rstrip())


@inspection_command("search")
@agent_option
@click.argument("query")
@click.option("--exact", is_flag=True, help="Lines holding QUERY as it is (case folded), files then log entries.")
@click.option("--regex", is_flag=True, help="Lines matching QUERY as an RE2 regular expression, files then logs.")
@prefix_option
@click.option(
    "--limit",
    metavar="N",
    type=click.IntRange(1, MAX_SEARCH_RESULTS),
    default=DEFAULT_SEARCH_RESULTS,
    show_default=True,
    help="Results to show at most.",
)
@json_option
def search(inspection: Inspection, agent_id: str, query: str, exact: bool, regex: bool, prefix: str | None,
           limit: int, as_json: bool) -> int:  # fmt: skip
    """Find what an agent stored, by the words of QUERY.

    By default QUERY is words (a question works): the passages of the agent's files and the log entries that
    hold them, best first, each shown as its lines (path:line: text; a log entry as path#entry: text), passages
    apart by a line "--". --exact finds the lines holding QUERY as it is, --regex those matching it as a
    regular expression (RE2 syntax: no backreferences, lookaround or recursion), in the current version of each
    file in path order, then the log entries holding such a line (path#entry: the entry), by path and entry.
    Nothing found: says so on stderr and exits 1, as grep does.
    """
    found = inspection.store.search_files(
        inspection.agent(agent_id), query, prefix, max_results=limit, exact=exact, regex=regex
    )
    if as_json:
        emit_json(found)
    if not found.matches:  # on stderr with --json too, after the empty reply
        mode = "regular expression" if regex else "text" if exact else "words"
        under = f" under {prefix}" if prefix else ""
        click.echo(
            f"scratchpad-mcp: no match for the {mode} {query!r} in {agent_id}'s files and logs{under}.", err=True
        )
        return 1
    if as_json:
        return 0
    for number, match in enumerate(found.matches):
        if match.end_line is not None and number:
            click.echo("--")
        if match.entry is not None:
            click.echo(f"{screen_line(match.path)}#{match.entry}: {screen_line(match.text)}")
            continue
        first = match.line or 0
        for offset, line in enumerate(match.text.split("\n") if match.end_line is not None else [match.text]):
            click.echo(f"{screen_line(match.path)}:{first + offset}: {screen_line(line)}")
    if found.has_more:
        advice = "narrow the query or --prefix, or raise --limit"
        click.echo(f"scratchpad-mcp: more results than {limit}: {advice}.", err=True)
    return 0


@inspection_command("stats")
@agent_option
@json_option
def stats(inspection: Inspection, agent_id: str, as_json: bool) -> None:
    """Show an agent's counters, quotas and last change."""
    agent_id = inspection.agent(agent_id)
    usage = inspection.store.get_usage_stats(agent_id)
    last = inspection.activity.last_changes([agent_id]).get(agent_id)
    if as_json:
        emit_json({**plain(usage), "last_activity": last})
        return
    quota = usage.quota
    rows = [
        ("files", f"{usage.file_count:,}", f"{quota.files:,}", _percent(usage.file_count, quota.files)),
        ("logs", f"{usage.logs:,}", "-", ""),
        ("log entries", f"{usage.log_count:,}", f"{quota.log_entries:,}", _percent(usage.log_count, quota.log_entries)),
        ("bytes", f"{usage.total_bytes:,}", f"{quota.bytes:,}", _percent(usage.total_bytes, quota.bytes)),
        ("operations", f"{usage.total_operations:,}", "", ""),
        ("bytes saved", f"{usage.bytes_saved:,}", "", ""),
        ("last activity", when(last), "", ""),
    ]
    table([agent_id, "value", "quota", "use"], rows, right=("value", "quota", "use"))


def _percent(used: int, quota: int) -> str:
    return f"{used / quota:.0%}" if quota else "-"


COMMANDS = (agents, files, cat, versions, diff, logs, log, search, stats)
