"""The word-search index on the in-memory tables: an inverted index in dicts (term -> row -> count), per agent,
row for row what the SQL index holds (scratchpad_core.ports.SearchIndex). Copied on write, as every table here:
a unit of work copies an agent's index the first time it changes it, and each term's postings it changes."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence
from contextlib import AbstractContextManager

from scratchpad_core.model import FileSlots, Posting
from scratchpad_core.search.indexing import IndexRow, Part, Statistics, document
from scratchpad_core.search.words import Analyzer

from .database import Transaction
from .search_tables import FileRecordRow, SearchRow, SearchTables


class MemorySearchIndex:
    def __init__(self, transaction: Transaction, analyzer: Analyzer) -> None:
        self._tx = transaction
        self._analyzer = analyzer

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    @property
    def _read(self) -> SearchTables:
        return self._tx.tables.search

    def _write(self) -> SearchTables:
        return self._tx.change().search

    def _add(self, t: SearchTables, agent_id: str, owner: int, entry: int, rows: Sequence[IndexRow]) -> list[int]:
        index = t.agent(agent_id)
        ids = []
        for row in rows:
            t.last_row += 1
            t.rows[t.last_row] = SearchRow(owner, entry, row.text, row.terms)
            index.change(t.last_row, row.terms, 1)
            ids.append(t.last_row)
        index.stats = index.stats.changed(self._analyzer.common, [document(r.terms) for r in rows], [])
        return ids

    def _remove(self, t: SearchTables, agent_id: str, ids: Sequence[int]) -> None:
        index = t.agent(agent_id)
        removed = []
        for row_id in ids:
            row = t.rows.pop(row_id)
            index.change(row_id, row.terms, -1)
            removed.append(document(row.terms))
        index.stats = index.stats.changed(self._analyzer.common, [], removed)

    def file_slots(self, file_id: int) -> FileSlots | None:
        record = self._read.files.get(file_id)
        return None if record is None else FileSlots(record.owner, record.version, record.slots)

    def splice(
        self,
        agent_id: str,
        file_id: int,
        version: int,
        start: int,
        stop: int,
        rows: Sequence[Part],
        record: FileSlots | None,
    ) -> None:
        t = self._write()
        if record is None:
            t.last_owner += 1
            owner, old = t.last_owner, tuple[int, ...]()
            t.owners[owner] = file_id
        else:
            owner, old = record.owner, record.slots
        kept = {abs(part) for part in rows if isinstance(part, int)}
        self._remove(t, agent_id, [abs(slot) for slot in old[start:stop] if slot and abs(slot) not in kept])
        ids = iter(self._add(t, agent_id, owner, 0, [row for row in rows if isinstance(row, IndexRow)]))
        new = [
            part if isinstance(part, int) else 0 if part is None else -next(ids) if part.continued else next(ids)
            for part in rows
        ]
        t.files[file_id] = FileRecordRow(owner, agent_id, version, (*old[:start], *new, *old[stop:]))

    def drop_file(self, file_id: int) -> None:
        record = self._read.files.get(file_id)
        if record is None:
            return
        t = self._write()
        self._remove(t, record.agent_id, [abs(slot) for slot in record.slots if slot])
        del t.files[file_id], t.owners[record.owner]

    def move_file(self, from_id: int, to_id: int, version: int) -> None:
        t = self._write()
        record = t.files.pop(from_id)
        t.files[to_id] = dataclasses.replace(record, version=version)
        t.owners[record.owner] = to_id

    def log_entries(self, log_id: int) -> tuple[int, int] | None:
        found = self._read.logs.get(log_id)
        return None if found is None else found[1:]

    def add_entries(
        self, agent_id: str, log_id: int, entries: Sequence[tuple[int, Sequence[IndexRow]]], *, below: int = 0
    ) -> None:
        if not entries:
            return
        if below and log_id in self._read.logs:
            self.drop_entries(log_id, below)
        t = self._write()
        first = t.logs[log_id][1] if log_id in t.logs else entries[0][0]
        ids = [row for entry, rows in entries for row in self._add(t, agent_id, -log_id, entry, rows)]
        t.logs[log_id] = (agent_id, first, entries[-1][0])
        t.log_rows[log_id] = (*t.log_rows.get(log_id, ()), *ids)

    def drop_entries(self, log_id: int, below: int | None = None) -> None:
        found = self._read.logs.get(log_id)
        if found is None:
            return
        t = self._write()
        agent_id, first, last = found
        rows = t.log_rows.get(log_id, ())  # in entry order
        cut = (
            len(rows) if below is None else next((i for i, r in enumerate(rows) if t.rows[r].entry >= below), len(rows))
        )
        self._remove(t, agent_id, rows[:cut])
        if below is None:
            del t.logs[log_id]
            t.log_rows.pop(log_id, None)
        else:
            t.logs[log_id] = (agent_id, max(first, below), last)
            t.log_rows[log_id] = rows[cut:]

    def behind(self, limit: int) -> list[str]:
        agents = {record.agent_id for record in self._tx.tables.files.by_id.values()}
        agents |= {log.agent_id for log in self._tx.tables.logs.by_id.values()}
        return [agent for agent in sorted(agents) if self.lagging(agent) != ([], [])][:limit]

    def claim(self, agent_id: str) -> bool:
        return True  # one writer at a time

    def batch(self, agent_id: str) -> AbstractContextManager[None]:
        return contextlib.nullcontext()

    def lagging(
        self, agent_id: str, limit: int = 1
    ) -> tuple[list[tuple[int, str | None]], list[tuple[int, str | None]]]:
        """What writers left for the index (as the SQL backend's markers say it; here a scan: a test store)."""
        t = self._tx.tables
        files: list[tuple[int, str | None]] = [
            (record.id, record.path)
            for record in t.files.by_id.values()
            if record.agent_id == agent_id
            and max(record.current_version, 0) != getattr(t.search.files.get(record.id), "version", 0)
        ]
        logs: list[tuple[int, str | None]] = []
        for log in t.logs.by_id.values():
            held = t.search.logs.get(log.id)
            live = None if log.entries == 0 else (log.last_entry_id - log.entries + 1, log.last_entry_id)
            if log.agent_id == agent_id and live != (None if held is None else held[1:]):
                logs.append((log.id, log.path))
        return files[:limit], logs[:limit]

    def statistics(self, agent_id: str) -> Statistics:
        index = self._read.agents.get(agent_id)
        return Statistics() if index is None else index.stats

    def frequency(self, agent_id: str, term: str) -> int:
        index = self._read.agents.get(agent_id)
        return 0 if index is None else len(index.postings.get(term, {}))

    def postings(self, agent_id: str, term: str) -> list[Posting]:
        index = self._read.agents.get(agent_id)
        if index is None:
            return []
        rows = self._read.rows
        return [
            (row_id, rows[row_id].owner, rows[row_id].entry, tf, len(rows[row_id].terms))
            for row_id, tf in index.postings.get(term, {}).items()
        ]

    def owners(self, agent_id: str, owners: Sequence[int]) -> dict[int, tuple[str, int]]:
        t = self._tx.tables
        found: dict[int, tuple[str, int]] = {}
        for owner in owners:
            if owner < 0:
                log = t.logs.by_id.get(-owner)
                if log is not None and log.agent_id == agent_id and log.entries > 0:
                    found[owner] = (log.path, 0)
                continue
            head = t.files.by_id.get(t.search.owners.get(owner, 0))
            if head is not None and head.agent_id == agent_id and head.current_version > 0:
                found[owner] = (head.path, head.updated_at)
        return found

    def owner_slots(self, owner: int) -> Sequence[int]:
        file_id = self._read.owners.get(owner)
        return () if file_id is None else self._read.files[file_id].slots

    def texts(self, row_ids: Sequence[int]) -> dict[int, str]:
        rows = self._read.rows
        return {row_id: rows[row_id].text for row_id in row_ids if row_id in rows}

    def entry_texts(self, owner: int, entries: Sequence[int]) -> dict[int, str]:
        rows = self._read.rows
        wanted = set(entries)
        out: dict[int, str] = {}
        for row_id in self._read.log_rows.get(-owner, ()):
            row = rows[row_id]
            if row.entry in wanted:
                out[row.entry] = out.get(row.entry, "") + row.text
        return out
