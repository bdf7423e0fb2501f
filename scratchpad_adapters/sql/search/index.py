"""The word-search index on SQL (scratchpad_core.ports.SearchIndex): rows, records and statistics in tables,
terms in each database's own full-text engine (search_terms has what differs: FTS5 on SQLite, tsvector + GIN
on PostgreSQL), and each file's and log's marker of what the index holds of it. This module changes the index
(a catch-up's changes a batch at a time: search_batch); search_reads reads it. Ranking is the core's
(scratchpad_core.search.ranking): nothing here ranks.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select, update

from scratchpad_core.model import FileSlots
from scratchpad_core.search.indexing import Document, IndexRow, Part, Statistics, document
from scratchpad_core.search.words import Analyzer

from ..connection.execution import run, run_many
from ..repositories.upserts import insert_ignore
from ..schema.tables import files, logs, search_agents, search_files, search_logs, search_rows
from .batch import BATCH, DELETE_ROWS, MARK_FILE, SAVE_RECORD, Deferred
from .reads import AGENT, SqlSearchReads, pack, unpack

sa, sf, sl, sr, f, g = search_agents.c, search_files.c, search_logs.c, search_rows.c, files.c, logs.c

FEW = 32  # rows deleted one statement each (more: IN lists)

_LOCK_AGENT = AGENT.with_for_update()
_SAVE_AGENT = (
    update(search_agents)
    .where(sa.id == bindparam("key"))
    .values(documents=bindparam("documents"), length=bindparam("length"), common=bindparam("common"))
)
_RECORD = select(sf.id, sf.version, sf.slots).where(sf.file_id == bindparam("file_id"))
_NEW_RECORD = insert(search_files).returning(sf.id)
_DROP_RECORD = delete(search_files).where(sf.id == bindparam("owner"))
_MOVE_RECORD = (
    update(search_files)
    .where(sf.file_id == bindparam("from_id"))
    .values(file_id=bindparam("to_id"), version=bindparam("version"))
)
_LOG = select(sl.first_entry, sl.last_entry).where(sl.log_id == bindparam("log_id"))
_LOG_AGENT = select(sl.agent_id).where(sl.log_id == bindparam("log_id"))
_LOG_ROWS = select(sr.id).where(sr.owner == bindparam("owner"))
_LOG_ROWS_BELOW = _LOG_ROWS.where(sr.entry < bindparam("below"))
_SAVE_LOG = (
    update(search_logs)
    .where(sl.log_id == bindparam("the_log"))
    .values(first_entry=bindparam("first"), last_entry=bindparam("last"))
)
_DROP_LOG = delete(search_logs).where(sl.log_id == bindparam("log_id"))
_MARK_LOG = (
    update(logs)
    .where(g.id == bindparam("the_log"))
    .values(indexed_last=bindparam("last"), indexed_entries=bindparam("held"))
)


_DELETE_ROW = delete(search_rows).where(sr.id == bindparam("row_id")).returning(sr.length, sr.terms)
_DELETE_ENTRIES_BELOW = (  # retention's oldest entries of a log, one statement (an append drops a few)
    delete(search_rows)
    .where(sr.owner == bindparam("owner"), sr.entry < bindparam("below"))
    .returning(sr.length, sr.terms)
)


class SqlSearchIndex(SqlSearchReads):
    def __init__(self, connection: Connection, analyzer: Analyzer, *, markers: bool = True) -> None:
        super().__init__(connection, analyzer)
        self._markers = markers  # False: a store before migration 0013 (0008 and 0011 change the index)
        self._batch: Deferred | None = None  # a catch-up's changes, written when it ends

    @contextlib.contextmanager
    def batch(self, agent_id: str) -> Iterator[None]:
        """Changes written when the block ends without an error, in a few statements (search_batch)."""
        self._batch = Deferred(self._c, self._terms)
        try:
            yield
            self._batch.flush(self._analyzer.common, self._write_statistics)
        finally:
            self._batch = None

    def file_slots(self, file_id: int) -> FileSlots | None:
        row = run(self._c, _RECORD, {"file_id": file_id}).first()
        return None if row is None else FileSlots(row.id, row.version, unpack(row.slots))

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
        if record is not None and start == stop and not rows:  # the rows stay: only the version (and the marker)
            self._save_record(record.owner, version, record.slots)
            self._mark_file(file_id, version)
            return
        key, stats = self._agent(agent_id)
        if record is None:
            values = {"file_id": file_id, "agent_id": agent_id, "version": version, "slots": b""}
            owner, old = run(self._c, _NEW_RECORD, values).scalar(), tuple[int, ...]()
        else:
            owner, old = record.owner, record.slots
        kept = {abs(part) for part in rows if isinstance(part, int)}
        gone = [abs(slot) for slot in old[start:stop] if slot and abs(slot) not in kept]
        added = [part for part in rows if isinstance(part, IndexRow)]
        ids = iter(self._insert(key, owner, [(0, row) for row in added]))
        new = [
            part if isinstance(part, int) else 0 if part is None else -next(ids) if part.continued else next(ids)
            for part in rows
        ]
        self._save_record(owner, version, [*old[:start], *new, *old[stop:]])
        self._mark_file(file_id, version)
        documents = [document(r.terms) for r in added]
        if self._batch is not None:  # deleted, and counted, when the batch ends
            self._batch.removed.setdefault(agent_id, []).extend(gone)
            self._batch.added.setdefault(agent_id, []).extend(documents)
        elif added or gone:
            self._save(agent_id, key, stats.changed(self._analyzer.common, documents, self._delete(gone)))

    def _save_record(self, owner: int, version: int, slots: Sequence[int]) -> None:
        values = {"owner": owner, "version": version, "slots": pack(slots)}
        if self._batch is not None:
            self._batch.records.append(values)
        else:
            run(self._c, SAVE_RECORD, values)

    def drop_file(self, file_id: int) -> None:
        record = self.file_slots(file_id)
        self._mark_file(file_id, 0)
        if record is None:
            return
        agent_id = self._c.execute(select(sf.agent_id).where(sf.id == record.owner)).scalar_one()
        key, stats = self._agent(agent_id)
        removed = self._delete([abs(slot) for slot in record.slots if slot])
        run(self._c, _DROP_RECORD, {"owner": record.owner})
        self._save(agent_id, key, stats.changed(self._analyzer.common, [], removed))

    def move_file(self, from_id: int, to_id: int, version: int) -> None:
        run(self._c, _MOVE_RECORD, {"from_id": from_id, "to_id": to_id, "version": version})
        self._mark_file(from_id, 0)
        self._mark_file(to_id, version)

    def _mark_file(self, file_id: int, version: int) -> None:
        if not self._markers:
            return
        if self._batch is not None:
            self._batch.marks.append({"file_id": file_id, "version": version})
        else:
            run(self._c, MARK_FILE, {"file_id": file_id, "version": version})

    def _mark_log(self, log_id: int, first: int, last: int) -> None:
        """The log's marker: the entries first..last held (none when last < first)."""
        if self._markers:
            held = max(0, last - first + 1)
            run(self._c, _MARK_LOG, {"the_log": log_id, "last": last if held else 0, "held": held})

    def log_entries(self, log_id: int) -> tuple[int, int] | None:
        row = run(self._c, _LOG, {"log_id": log_id}).first()
        return None if row is None else (row.first_entry, row.last_entry)

    def add_entries(
        self, agent_id: str, log_id: int, entries: Sequence[tuple[int, Sequence[IndexRow]]], *, below: int = 0
    ) -> None:
        indexed = self.log_entries(log_id)
        if not entries:  # the marker only: what the record holds
            self._mark_log(log_id, *(indexed or (1, 0)))
            return
        key, stats = self._agent(agent_id)
        last = entries[-1][0]
        removed: list[Document] = []
        if indexed is None:
            first = entries[0][0]
            run(self._c, insert_ignore(self._c, search_logs, ["log_id"]),
                {"log_id": log_id, "agent_id": agent_id, "first_entry": first, "last_entry": last})  # fmt: skip
        else:
            if below > indexed[0]:  # retention dropped the oldest entries in this transaction
                gone = run(self._c, _DELETE_ENTRIES_BELOW, {"owner": -log_id, "below": below}).values
                removed = [(length, set(self._terms.decode(terms))) for length, terms in gone]
            first = max(below, indexed[0])
            run(self._c, _SAVE_LOG, {"the_log": log_id, "first": first, "last": last})
        self._mark_log(log_id, first, last)
        self._insert(key, -log_id, [(entry, row) for entry, rows in entries for row in rows])
        added = [document(row.terms) for _, rows in entries for row in rows]
        self._save(agent_id, key, stats.changed(self._analyzer.common, added, removed))

    def drop_entries(self, log_id: int, below: int | None = None) -> None:
        indexed = self.log_entries(log_id)
        if indexed is None:
            if below is None:
                self._mark_log(log_id, 1, 0)
            return
        agent_id = run(self._c, _LOG_AGENT, {"log_id": log_id}).scalar()
        key, stats = self._agent(agent_id)
        if below is None:
            ids = run(self._c, _LOG_ROWS, {"owner": -log_id}).scalars()
            run(self._c, _DROP_LOG, {"log_id": log_id})
            self._mark_log(log_id, 1, 0)
        else:
            ids = run(self._c, _LOG_ROWS_BELOW, {"owner": -log_id, "below": below}).scalars()
            first = max(below, indexed[0])
            run(self._c, _SAVE_LOG, {"the_log": log_id, "first": first, "last": indexed[1]})
            self._mark_log(log_id, first, indexed[1])
        removed = self._delete(ids)
        self._save(agent_id, key, stats.changed(self._analyzer.common, [], removed))

    def _agent(self, agent_id: str) -> tuple[int, Statistics]:
        """The agent's key and statistics, its row locked (made on its first use)."""
        if self._batch is not None and agent_id in self._batch.stats:
            return self._batch.stats[agent_id]
        row = run(self._c, _LOCK_AGENT, {"agent_id": agent_id}).first()
        if row is None:
            fresh = {"agent_id": agent_id, "documents": 0, "length": 0, "common": "{}"}
            run(self._c, insert_ignore(self._c, search_agents, ["agent_id"]), fresh)
            row = run(self._c, _LOCK_AGENT, {"agent_id": agent_id}).one()
        read = (int(row.id), Statistics(row.documents, row.length, Counter(json.loads(row.common))))
        if self._batch is not None:
            self._batch.stats[agent_id] = read
        return read

    def _save(self, agent_id: str, key: int, stats: Statistics) -> None:
        if self._batch is not None:
            self._batch.stats[agent_id] = (key, stats)
        else:
            self._write_statistics(key, stats)

    def _write_statistics(self, key: int, stats: Statistics) -> None:
        common = json.dumps(dict(sorted(stats.common.items())), ensure_ascii=False)
        run(self._c, _SAVE_AGENT, {"key": key, "documents": stats.documents, "length": stats.length, "common": common})

    def _delete(self, ids: Sequence[int]) -> list[Document]:
        """Delete these rows; returns each one's length and terms (for the statistics)."""
        found: list[tuple[int, Any]] = []
        if len(ids) <= FEW:  # an edit's few rows: a prepared statement each, no statement built per call
            for row_id in ids:
                found.extend(run(self._c, _DELETE_ROW, {"row_id": row_id}).values)
        else:
            for at in range(0, len(ids), BATCH):
                found.extend(tuple(row) for row in self._c.execute(DELETE_ROWS, {"ids": list(ids[at : at + BATCH])}))
        return [(length, set(self._terms.decode(terms))) for length, terms in found]

    def _insert(self, key: int, owner: int, rows: Sequence[tuple[int, IndexRow]]) -> list[int]:
        """Insert rows (entry id, row) for an owner; returns their ids, in order."""
        if not rows:
            return []
        ids = self._terms.new_ids(self._c, len(rows)) if self._batch is None else self._batch.new_ids(len(rows))
        values = [
            {"id": row_id, "owner": owner, "entry": entry, "text": row.text,
             "terms": self._terms.encode(key, row.terms), "length": len(row.terms)}
            for row_id, (entry, row) in zip(ids, rows, strict=True)
        ]  # fmt: skip
        if self._batch is not None:
            self._batch.rows.extend(values)
        else:
            run_many(self._c, self._terms.insert_rows, values)
        return ids


def drop_agent(connection: Connection, agent_id: str) -> None:
    """Delete the agent's whole index (an import replacing the agent rebuilds it)."""
    owners = select(sf.id).where(sf.agent_id == agent_id).union_all(select(-sl.log_id).where(sl.agent_id == agent_id))
    connection.execute(delete(search_rows).where(sr.owner.in_(owners)))
    connection.execute(delete(search_files).where(sf.agent_id == agent_id))
    connection.execute(delete(search_logs).where(sl.agent_id == agent_id))
    connection.execute(delete(search_agents).where(sa.agent_id == agent_id))
