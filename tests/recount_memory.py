"""Recount a memory:// store's rows from its committed tables, as recount.py does a database's with SQL."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from scratchpad_adapters import memory
from scratchpad_adapters.memory.database import Tables
from scratchpad_core.model import FileRecord, LogRecord
from scratchpad_core.retention.rules import FILES
from tests.recount import Counts, Recounter, Snapshot


class MemoryRecounter(Recounter):
    """Reads the committed tables of the memory://NAME store (kept open until closed), checking on the way
    what the SQL schema's keys would: every version, entry and summary belongs to a row, the indexes agree."""

    def __init__(self, url: str, clock: Callable[[], int] | None = None) -> None:
        self._connection = memory.connect(url)
        self.clock = clock

    def close(self) -> None:
        self._connection.close()

    def counts(self, agent_id: str) -> Counts:
        t, heads, logs = self._rows(agent_id)
        rules = [rule for rule in t.retention.values() if rule.agent_id == agent_id and rule.kind == FILES]
        heads = [f for f in heads if not (f.current_version > 0 and self.expired(rules, f.path, f.updated_at))]
        versions = [v for f in heads for v in t.versions.get(f.id, {}).values()]
        entries = [e for g in logs for e in t.entries.get(g.id, ())]
        return Counts(
            files=sum(1 for f in heads if f.current_version > 0),
            bytes=sum(v.bytes for v in versions) + sum(e.bytes for e in entries),
            logs=sum(1 for g in logs if g.entries > 0),
            log_entries=len(entries),
        )

    def snapshot(self, agent_id: str) -> Snapshot:
        t, heads, logs = self._rows(agent_id)
        return {
            "agents": [dataclasses.astuple(t.agents[agent_id])] if agent_id in t.agents else [],
            "files": [(f.path, f.current_version, f.bytes, f.sha256, f.created_at, f.updated_at) for f in heads],
            "file_versions": [
                (f.path, v.version, v.content, v.bytes, v.lines, v.sha256, v.created_at)
                for f in heads
                for _, v in sorted(t.versions.get(f.id, {}).items())
            ],
            "logs": [(g.path, g.last_entry_id, g.entries, g.bytes, g.created_at, g.updated_at) for g in logs],
            "log_entries": [
                (g.path, e.id, e.entry, e.bytes, e.created_at) for g in logs for e in t.entries.get(g.id, ())
            ],
            "summaries": [(f.path, s.version, s.summary) for f in heads if (s := t.summaries.get(f.id)) is not None],
        }

    def _rows(self, agent_id: str) -> tuple[Tables, list[FileRecord], list[LogRecord]]:
        """The committed tables (checked), and the agent's file and log rows in path order."""
        t = self._connection.database.tables
        _check_keys(t)
        return t, t.files.under(agent_id, ""), t.logs.under(agent_id, "")

    def summaries(self, agent_id: str) -> list[tuple[Any, ...]]:
        return self.snapshot(agent_id)["summaries"]

    def versions(self, agent_id: str, path: str) -> list[int]:
        return [int(v[1]) for v in self.snapshot(agent_id)["file_versions"] if v[0] == path]


def _check_keys(t: Tables) -> None:
    assert set(t.versions) <= set(t.files.by_id) and set(t.summaries) <= set(t.files.by_id)
    assert set(t.entries) <= set(t.logs.by_id)
    for rows in (t.files, t.logs):
        assert rows.ids == {(r.agent_id, r.path): r.id for r in rows.by_id.values()}
        assert all(row_id <= rows.last_id for row_id in rows.by_id)
    for file_id, kept in t.versions.items():
        assert all(number == v.version for number, v in kept.items()), file_id
    for log_id, entries in t.entries.items():
        assert [e.id for e in entries] == sorted({e.id for e in entries}), log_id  # unique, in id order
