"""Export: every agent's retention rules, files (all retained versions), summaries and logs (all entries) as
JSON lines. A file that has expired under a files rule (not yet pruned) is left out, as list_files leaves it out,
and so are log entries past their rule's max_age (a log all of whose entries are: the log too), as read_log.

The export is deterministic (agents, rules, paths, versions and entries in order; no timestamp of its own),
so moving SQLite -> Postgres -> SQLite exports byte-identical. Lines, for each agent in order:

    {"type": "agent", "agent_id", "operations", "bytes_saved"}
    {"type": "rule", "kind", "prefix", "keep_entries", "max_age"}            max_age in seconds; null: no such limit
    {"type": "file", "path", "current_version", "created_at", "updated_at"}
    {"type": "version", "path", "version", "content", "by", "created_at"}   every retained version, and who made it
    {"type": "summary", "path", "version", "summary", "model", "created_at"}
    {"type": "log", "path", "last_entry_id", "created_at", "updated_at"}
    {"type": "entry", "path", "id", "entry", "by", "created_at"}             every entry, in id order

framed by {"type": "header", "format": "scratchpad-export", "version": 2} and {"type": "end", "counts": {...}}.
Version 1 (before retention rules) had no rule records and no "rules" count; it still imports.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from sqlalchemy import Connection, Engine, func, select, union

from scratchpad_core.errors import NotFound
from scratchpad_core.retention.rules import FILES, LOGS, RetentionRule, age_threshold, expired, kept_from, rule_for
from scratchpad_core.usecases.base import wall_clock_ms

from ..connection.engine import snapshot
from ..repositories.retention_repository import SqlRetentionRepository
from ..schema.tables import agents, file_versions, files, log_entries, logs, retention_rules, summaries

FORMAT = "scratchpad-export"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)  # version 1: no retention rules
BATCH = 500
PLURAL = {
    "agent": "agents",
    "rule": "rules",
    "file": "files",
    "version": "versions",
    "summary": "summaries",
    "log": "logs",
    "entry": "entries",
}

_SINGULAR = {plural: kind for kind, plural in PLURAL.items()}

Progress = Callable[[str], None]


@dataclass
class Counts:
    agents: int = 0
    rules: int = 0
    files: int = 0
    versions: int = 0
    summaries: int = 0
    logs: int = 0
    entries: int = 0

    def add(self, kind: str) -> None:
        name = PLURAL[kind]
        setattr(self, name, getattr(self, name) + 1)

    def describe(self) -> str:
        shown = {name: value for name, value in vars(self).items() if value or name != "rules"}  # rules: when any
        return ", ".join(f"{value:,} {name if value != 1 else _SINGULAR[name]}" for name, value in shown.items())


class Ticker:
    """Progress reports at most once a second, and once at the end."""

    def __init__(self, progress: Progress | None, verb: str, counts: Counts) -> None:
        self._progress, self._verb, self._counts = progress, verb, counts
        self._next = time.monotonic() + 1.0

    def tick(self) -> None:
        if self._progress is not None and time.monotonic() >= self._next:
            self._next = time.monotonic() + 1.0
            self._progress(f"{self._verb} {self._counts.describe()} ...")

    def done(self) -> None:
        if self._progress is not None:
            self._progress(f"{self._verb} {self._counts.describe()}: done")


def export(
    engine: Engine, out: IO[str], agent: str | None = None, progress: Progress | None = None, now: int | None = None
) -> Counts:
    """Write every agent's data (or one agent's) to `out`, in one consistent read; files that have expired by
    `now` (ms; the wall clock by default) are left out."""
    now = wall_clock_ms() if now is None else now
    counts = Counts()
    ticker = Ticker(progress, "exported", counts)
    with engine.connect() as connection, snapshot(connection).begin():
        agent_ids = _agent_ids(connection, agent)
        if agent is not None and not agent_ids:
            raise NotFound(f"Agent {agent!r} has no data in this database; nothing was exported. Check the agent id.")
        out.write(_line({"type": "header", "format": FORMAT, "version": FORMAT_VERSION}))
        for agent_id in agent_ids:
            for record in _agent_records(connection, agent_id, now):
                counts.add(record["type"])
                out.write(_line(record))
                ticker.tick()
        out.write(_line({"type": "end", "counts": vars(counts)}))
    ticker.done()
    return counts


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def _agent_ids(connection: Connection, only: str | None) -> list[str]:
    tables = (agents, files, logs, retention_rules)  # an agent may hold nothing but rules
    ids = union(*(select(table.c.agent_id) for table in tables)).subquery()
    query = select(ids.c.agent_id)
    if only is not None:
        query = query.where(ids.c.agent_id == only)
    # Sorted here, by code point, not by the database: a Postgres database's collation may order
    # 'Bob' after '_under' where SQLite does not, and the export must not depend on it.
    return sorted(connection.execute(query).scalars())


def _agent_records(connection: Connection, agent_id: str, now: int) -> Iterator[dict[str, Any]]:
    counters = connection.execute(select(agents).where(agents.c.agent_id == agent_id)).first()
    yield {
        "type": "agent",
        "agent_id": agent_id,
        "operations": counters.operations if counters else 0,
        "bytes_saved": counters.bytes_saved if counters else 0,
    }
    rules = SqlRetentionRepository(connection).all(agent_id)  # by kind, then prefix
    for rule in rules:
        yield {"type": "rule", "kind": rule.kind, "prefix": rule.prefix, "keep_entries": rule.keep_entries,
               "max_age": rule.max_age}  # fmt: skip
    files_rules = [rule for rule in rules if rule.kind == FILES]
    file_query = select(files).where(files.c.agent_id == agent_id, files.c.current_version > 0).order_by(files.c.path)
    for f in connection.execute(file_query).all():
        if expired(rule_for(files_rules, f.path), f.updated_at, now):
            continue  # as if deleted: a prune removes it here, and nothing of it goes elsewhere
        yield _record("file", f, path=f.path, current_version=f.current_version)
        versions = select(file_versions).where(file_versions.c.file_id == f.id).order_by(file_versions.c.version)
        for v in connection.execute(versions.execution_options(yield_per=BATCH)):
            yield _record("version", v, path=f.path, version=v.version, content=v.content, by=v.actor)
        s = connection.execute(select(summaries).where(summaries.c.file_id == f.id)).first()
        if s is not None:
            yield _record("summary", s, path=f.path, version=s.version, summary=s.summary, model=s.model)
    logs_rules = [rule for rule in rules if rule.kind == LOGS]
    log_query = select(logs).where(logs.c.agent_id == agent_id, logs.c.entries > 0).order_by(logs.c.path)
    for g in connection.execute(log_query).all():
        start = _kept_from(connection, g, rule_for(logs_rules, g.path), now)
        if start > g.last_entry_id:
            continue  # every entry past its age: the log reads as dropped
        yield _record("log", g, path=g.path, last_entry_id=g.last_entry_id)
        entries = (
            select(log_entries)
            .where(log_entries.c.log_id == g.id, log_entries.c.entry_id >= start)
            .order_by(log_entries.c.entry_id)
        )
        for e in connection.execute(entries.execution_options(yield_per=BATCH)):
            yield _record("entry", e, path=g.path, id=e.entry_id, entry=e.entry, by=e.actor)


def _kept_from(connection: Connection, log: Any, rule: RetentionRule | None, now: int) -> int:
    """The oldest entry of the log a reader sees (retention.kept_from): entries past the rule's age are left out."""
    first: int = log.last_entry_id - log.entries + 1
    since = None if rule is None else age_threshold(rule, now)
    if since is None:
        return first
    young = select(func.min(log_entries.c.entry_id)).where(
        log_entries.c.log_id == log.id, log_entries.c.created_at >= since
    )
    found = connection.execute(young).scalar()
    return kept_from(first, log.last_entry_id, None if found is None else int(found))


def _record(kind: str, row: Any, **fields: Any) -> dict[str, Any]:
    record = {"type": kind, **fields, "created_at": row.created_at}
    if "updated_at" in row._fields:
        record["updated_at"] = row.updated_at
    return record
