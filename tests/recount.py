"""Recount an agent's rows with plain SQL through an engine of its own, to check the store's counters.

The memory store's rows are recounted in recount_memory.py, behind the same Recounter."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, create_engine, func, select
from sqlalchemy.pool import NullPool

from scratchpad_adapters.sql.schema.tables import (
    agents,
    file_versions,
    files,
    log_entries,
    logs,
    retention_rules,
    summaries,
)
from scratchpad_core.results import UsageStats
from scratchpad_core.retention.rules import FILES, RetentionRule, expired, rule_for
from scratchpad_core.service import Scratchpad


@dataclass(frozen=True)
class Counts:
    """What the agent stores, as counted from the rows."""

    files: int
    bytes: int
    logs: int
    log_entries: int


Snapshot = dict[str, list[tuple[Any, ...]]]


class Recounter(ABC):
    """Reads the stored rows directly, never through the store. With a clock, the files that have expired by its
    time under the agent's files rules (rows not yet pruned) are left out, as list_files leaves them out."""

    clock: Callable[[], int] | None = None

    @abstractmethod
    def counts(self, agent_id: str) -> Counts: ...

    def expired(self, rules: list[RetentionRule], path: str, updated_at: int) -> bool:
        return self.clock is not None and expired(rule_for(rules, path), updated_at, self.clock())

    @abstractmethod
    def snapshot(self, agent_id: str) -> Snapshot:
        """Every row that belongs to the agent, counters included, in a stable order."""

    @abstractmethod
    def summaries(self, agent_id: str) -> list[tuple[Any, ...]]:
        """(path, version, summary) of the agent's cached summaries."""

    @abstractmethod
    def versions(self, agent_id: str, path: str) -> list[int]:
        """The version numbers stored for a file."""

    @abstractmethod
    def close(self) -> None: ...

    def check(self, store: Scratchpad, agent_id: str) -> UsageStats:
        """Assert that get_usage_stats agrees with the rows; returns the stats."""
        stats = store.get_usage_stats(agent_id)
        reported = Counts(stats.file_count, stats.total_bytes, stats.logs, stats.log_count)
        assert reported == self.counts(agent_id)
        return stats


class SqlRecounter(Recounter):
    """Reads the database on a separate engine."""

    def __init__(self, url: str, clock: Callable[[], int] | None = None) -> None:
        self.engine: Engine = create_engine(url, poolclass=NullPool)
        self.clock = clock

    def close(self) -> None:
        self.engine.dispose()

    def counts(self, agent_id: str) -> Counts:
        r = retention_rules.c
        with self.engine.connect() as c:
            rules = [
                RetentionRule(**row._mapping)
                for row in c.execute(
                    select(r.agent_id, r.kind, r.prefix, r.keep_entries, r.max_age).where(
                        r.agent_id == agent_id, r.kind == FILES
                    )
                )
            ]
            kept = [
                row
                for row in c.execute(
                    select(files.c.path, files.c.updated_at, func.coalesce(func.sum(file_versions.c.bytes), 0))
                    .select_from(files.outerjoin(file_versions, file_versions.c.file_id == files.c.id))
                    .where(files.c.agent_id == agent_id, files.c.current_version > 0)
                    .group_by(files.c.id, files.c.path, files.c.updated_at)
                )
                if not self.expired(rules, row[0], row[1])
            ]
            file_count, version_bytes = len(kept), sum(int(row[2]) for row in kept)
            log_count = c.execute(
                select(func.count()).select_from(logs).where(logs.c.agent_id == agent_id, logs.c.entries > 0)
            ).scalar_one()
            entry_count, entry_bytes = c.execute(
                select(func.count(), func.coalesce(func.sum(log_entries.c.bytes), 0))
                .select_from(log_entries.join(logs, log_entries.c.log_id == logs.c.id))
                .where(logs.c.agent_id == agent_id)
            ).one()
        return Counts(int(file_count), int(version_bytes) + int(entry_bytes), int(log_count), int(entry_count))

    def snapshot(self, agent_id: str) -> Snapshot:
        f, v, g, e, a = files.c, file_versions.c, logs.c, log_entries.c, agents.c
        with self.engine.connect() as c:

            def rows(query: Any) -> list[tuple[Any, ...]]:
                return [tuple(r) for r in c.execute(query)]

            return {
                # its counters; not the change number (read_changes), which a call that commits and changes
                # nothing may take in passing (a redaction that found nothing forgets request ids): a gap
                # in the numbers, which the cursor allows
                "agents": rows(select(*(c for c in agents.c if c.name != "changes")).where(a.agent_id == agent_id)),
                "files": rows(
                    select(f.path, f.current_version, f.bytes, f.sha256, f.created_at, f.updated_at)
                    .where(f.agent_id == agent_id)
                    .order_by(f.path)
                ),
                "file_versions": rows(
                    select(f.path, v.version, v.content, v.bytes, v.lines, v.sha256, v.created_at)
                    .select_from(file_versions.join(files, v.file_id == f.id))
                    .where(f.agent_id == agent_id)
                    .order_by(f.path, v.version)
                ),
                "logs": rows(
                    select(g.path, g.last_entry_id, g.entries, g.bytes, g.created_at, g.updated_at)
                    .where(g.agent_id == agent_id)
                    .order_by(g.path)
                ),
                "log_entries": rows(
                    select(g.path, e.entry_id, e.entry, e.bytes, e.created_at)
                    .select_from(log_entries.join(logs, e.log_id == g.id))
                    .where(g.agent_id == agent_id)
                    .order_by(g.path, e.entry_id)
                ),
                "summaries": self._summaries(c, agent_id),
            }

    def summaries(self, agent_id: str) -> list[tuple[Any, ...]]:
        with self.engine.connect() as c:
            return self._summaries(c, agent_id)

    def versions(self, agent_id: str, path: str) -> list[int]:
        with self.engine.connect() as c:
            rows = c.execute(
                select(file_versions.c.version)
                .select_from(file_versions.join(files, file_versions.c.file_id == files.c.id))
                .where(files.c.agent_id == agent_id, files.c.path == path)
                .order_by(file_versions.c.version)
            )
            return [int(r[0]) for r in rows]

    @staticmethod
    def _summaries(c: Any, agent_id: str) -> list[tuple[Any, ...]]:
        f, s = files.c, summaries.c
        rows = c.execute(
            select(f.path, s.version, s.summary)
            .select_from(summaries.join(files, s.file_id == f.id))
            .where(f.agent_id == agent_id)
            .order_by(f.path)
        )
        return [tuple(r) for r in rows]
