"""What read_changes reads, on the in-memory tables (scratchpad_core.changes.catchup)."""

from __future__ import annotations

from scratchpad_core.changes.catchup import ChangedFile, ChangedLog
from scratchpad_core.model import LogEntry

from .database import Transaction
from .stamps import FileStamp, LogStamp


class MemoryChangeReader:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def head(self, agent_id: str) -> int:
        return self._tx.tables.stamps.heads.get(agent_id, 0)

    def files(self, agent_id: str, prefix: str, after: int) -> list[ChangedFile]:
        t = self._tx.tables
        found = []
        for row in t.files.under(agent_id, prefix):
            s = t.stamps.files.get(row.id, FileStamp())
            if s.changed > after:
                found.append(
                    ChangedFile(row.id, row.path, row.current_version, s.changed, s.born, s.redacted, s.moved_from,
                               row.updated_at)
                )  # fmt: skip
        return sorted(found, key=lambda c: c.changed)

    def logs(self, agent_id: str, prefix: str, after: int) -> list[ChangedLog]:
        t = self._tx.tables
        found = []
        for row in t.logs.under(agent_id, prefix):
            s = t.stamps.logs.get(row.id, LogStamp())
            if s.changed > after:
                found.append(ChangedLog(row.id, row.path, row.last_entry_id, row.entries, s.changed, s.born, s.dropped))
        return sorted(found, key=lambda c: c.changed)

    def version_at(self, file_id: int, change: int) -> tuple[int, int] | None:
        t = self._tx.tables
        made = [(n, t.stamps.versions.get((file_id, n), 0)) for n in t.versions.get(file_id, {})]
        return max(((n, c) for n, c in made if c <= change), default=None)

    def entries(self, log_id: int, after: int, upto: int) -> list[tuple[int, LogEntry]]:
        t = self._tx.tables
        made = ((t.stamps.entries.get((log_id, r.id), 0), r) for r in t.entries.get(log_id, ()))
        return [(change, LogEntry(r.id, r.entry, r.created_at, r.by)) for change, r in made if after < change <= upto]
