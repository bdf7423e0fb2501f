"""The log repository on the in-memory tables: a head row per log whose counter numbers the entries."""

from __future__ import annotations

import bisect
import dataclasses

from scratchpad_core.model import LogEntry, LogRecord

from .database import EntryRow, Transaction
from .stamps import LogStamp


class MemoryLogRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def get(self, agent_id: str, path: str) -> LogRecord | None:
        return self._tx.tables.logs.find(agent_id, path)

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> LogRecord | None:
        if writes:
            self._tx.number(agent_id)  # as in SQL, the agent's change number is taken first
        return self.get(agent_id, path)  # a writing unit of work holds the whole store already

    def append(self, agent_id: str, path: str, entry: str, size: int, now: int, by: str) -> tuple[int, int, int]:
        t = self._tx.change()  # as the SQL's UPDATE does, refused in a read-only unit of work
        change = self._tx.number(agent_id)
        row = t.logs.find_or_insert(agent_id, path, lambda new: LogRecord(new, agent_id, path, 0, 0, 0, now, now))
        bumped = dataclasses.replace(
            row,
            last_entry_id=row.last_entry_id + 1,
            entries=row.entries + 1,
            created_at=now if row.entries == 0 else row.created_at,  # a deleted log coming back
            bytes=row.bytes + size,
            updated_at=now,
        )
        t.logs[row.id] = bumped
        t.entries[row.id] = (*t.entries.get(row.id, ()), EntryRow(bumped.last_entry_id, entry, size, now, by))
        t.stamps.entries[row.id, bumped.last_entry_id] = change
        born = change if row.entries == 0 else t.stamps.logs.get(row.id, LogStamp()).born
        t.stamps.log(row.id, changed=change, born=born)
        return row.id, bumped.last_entry_id, bumped.entries

    def entries(self, log_id: int, after: int, limit: int, *, with_by: bool = False) -> list[LogEntry]:
        rows = self._tx.tables.entries.get(log_id, ())
        start = bisect.bisect_right(rows, after, key=lambda r: r.id)
        return [LogEntry(r.id, r.entry, r.created_at, r.by if with_by else None) for r in rows[start : start + limit]]

    def list(self, agent_id: str, prefix: str) -> list[LogRecord]:
        # A deleted log keeps its row, with no entries, so that its ids carry on if it comes back.
        return [r for r in self._tx.tables.logs.under(agent_id, prefix) if r.entries > 0]

    def delete(self, log_id: int, now: int, remember: int) -> tuple[int, int]:
        t = self._tx.change()
        gone = [r.bytes for r in t.entries.pop(log_id, ())]
        row = t.logs[log_id]
        t.logs[log_id] = dataclasses.replace(row, entries=0, bytes=0, updated_at=now)
        t.stamps.log(log_id, changed=self._tx.number(row.agent_id))
        for forgotten in t.logs.forget(row.agent_id, lambda r: r.entries == 0, remember):
            t.entries.pop(forgotten, None)
        return len(gone), sum(gone)

    def young_from(self, log_id: int, below: int, since: int) -> int | None:
        rows = self._tx.tables.entries.get(log_id, ())
        return next((r.id for r in rows if r.id < below and r.created_at >= since), None)

    def stored_below(self, log_id: int, below: int) -> tuple[int, int]:
        rows = self._tx.tables.entries.get(log_id, ())
        gone = rows[: bisect.bisect_left(rows, below, key=lambda r: r.id)]
        return len(gone), sum(r.bytes for r in gone)

    def trim(self, log_id: int, below: int) -> tuple[int, int]:
        rows = self._tx.tables.entries.get(log_id, ())
        cut = bisect.bisect_left(rows, below, key=lambda r: r.id)
        if cut == 0:
            return 0, 0
        t = self._tx.change()
        gone, t.entries[log_id] = rows[:cut], rows[cut:]
        freed = sum(r.bytes for r in gone)
        row = t.logs[log_id]
        t.logs[log_id] = dataclasses.replace(row, entries=row.entries - len(gone), bytes=row.bytes - freed)
        newest = max(t.stamps.entries.pop((log_id, r.id), 0) for r in gone)
        t.stamps.log(log_id, dropped=max(newest, t.stamps.logs.get(log_id, LogStamp()).dropped))
        return len(gone), freed

    def replace_entry(self, log_id: int, entry_id: int, text: str, size: int, old_size: int) -> None:
        t = self._tx.change()
        rows = t.entries[log_id]
        t.entries[log_id] = tuple(
            dataclasses.replace(r, entry=text, bytes=size) if r.id == entry_id else r for r in rows
        )
        row = t.logs[log_id]
        t.logs[log_id] = dataclasses.replace(row, bytes=row.bytes + size - old_size)
        change = self._tx.number(row.agent_id)
        t.stamps.entries[log_id, entry_id] = change
        t.stamps.log(log_id, changed=change)
