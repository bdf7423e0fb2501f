"""A catch-up's changes to the index, written at its end in a few statements (SearchIndex.batch): the rows it
deletes (one DELETE ... RETURNING an IN list of 500, their lengths and terms for the statistics), the rows it
adds (one executemany), the records and markers it saves (one executemany each), and each agent's statistics
(read once, saved once). A batch changes each file once (a catch-up takes each file of its backlog once)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, delete, update

from scratchpad_core.search.indexing import Document, Statistics

from ..connection.execution import run_many
from ..schema.tables import files, search_files, search_rows
from .terms import Terms

BATCH = 500  # ids in one IN list
ID_POOL = 256  # PostgreSQL: row ids taken from the sequence at once

sf, sr, f = search_files.c, search_rows.c, files.c
DELETE_ROWS = delete(search_rows).where(sr.id.in_(bindparam("ids", expanding=True))).returning(sr.length, sr.terms)
SAVE_RECORD = (
    update(search_files)
    .where(sf.id == bindparam("owner"))
    .values(version=bindparam("version"), slots=bindparam("slots"))
)
MARK_FILE = update(files).where(f.id == bindparam("file_id")).values(indexed_version=bindparam("version"))


@dataclass
class Deferred:
    connection: Connection
    terms: Terms
    stats: dict[str, tuple[int, Statistics]] = field(default_factory=dict)  # agent -> its key, statistics read
    added: dict[str, list[Document]] = field(default_factory=dict)
    removed: dict[str, list[int]] = field(default_factory=dict)  # agent -> ids of the rows to delete
    rows: list[dict[str, Any]] = field(default_factory=list)  # search_rows to insert
    records: list[dict[str, Any]] = field(default_factory=list)  # (owner, version, slots) to save
    marks: list[dict[str, Any]] = field(default_factory=list)  # (file_id, version): the files' markers
    _next: int | None = None  # SQLite: the next row id (writers take turns: no one else adds a row meanwhile)
    _pool: list[int] = field(default_factory=list)  # PostgreSQL: ids taken from the sequence, not used yet

    def new_ids(self, count: int) -> list[int]:
        if self.connection.dialect.name != "postgresql":
            if self._next is None:
                self._next = self.terms.new_ids(self.connection, 1)[0]
            first, self._next = self._next, self._next + count
            return list(range(first, first + count))
        if len(self._pool) < count:
            self._pool.extend(self.terms.new_ids(self.connection, max(count - len(self._pool), ID_POOL)))
        taken, self._pool = self._pool[:count], self._pool[count:]
        return taken

    def flush(self, common: frozenset[str], save: Callable[[int, Statistics], None]) -> None:
        """Write it all; then each agent's statistics, changed by the rows added and deleted."""
        gone: dict[str, list[Document]] = {}
        for agent, ids in self.removed.items():
            for at in range(0, len(ids), BATCH):
                found = self.connection.execute(DELETE_ROWS, {"ids": ids[at : at + BATCH]})
                gone.setdefault(agent, []).extend((n, set(self.terms.decode(t))) for n, t in found)
        run_many(self.connection, self.terms.insert_rows, self.rows)
        run_many(self.connection, SAVE_RECORD, self.records)
        run_many(self.connection, MARK_FILE, self.marks)
        for agent, (key, stats) in self.stats.items():
            added, removed = self.added.get(agent, []), gone.get(agent, [])
            save(key, stats.changed(common, added, removed) if added or removed else stats)
