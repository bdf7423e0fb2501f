"""The state of an in-memory database: tables that are never changed once committed, and one writer at a time.

A writing unit of work holds the database's lock from start to end (writers serialize, as SQLite's
BEGIN IMMEDIATE makes them) and works on a copy of the committed tables, which it publishes on commit.
Leaving without commit drops the copy, so nothing of it remains; a reader takes the committed tables
as they are and has a consistent snapshot that holds up no writer. The copy is shallow: rows, versions
and entries are immutable and shared, so a write costs time in proportion to the number of rows
(fine for tests and small databases; SQLite serves the rest).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from scratchpad_core.access.keys import ApiKey
from scratchpad_core.errors import StorageError
from scratchpad_core.model import FileRecord, LogRecord, StoredRequest, Usage, Version
from scratchpad_core.retention.rules import RetentionRule

from .search_tables import SearchTables
from .stamps import Stamps

MEMORY_SCHEME = "memory://"

PathKey = tuple[str, str]  # (agent_id, path)
Row = TypeVar("Row", FileRecord, LogRecord)


@dataclass(frozen=True)
class EntryRow:
    id: int
    entry: str
    bytes: int
    created_at: int
    by: str


@dataclass(frozen=True)
class SummaryRow:
    version: int
    summary: str
    model: str
    created_at: int


@dataclass
class Rows(Generic[Row]):
    """A table of head rows (files, or logs): by id, and by (agent_id, path), the table's unique key."""

    by_id: dict[int, Row] = field(default_factory=dict)
    ids: dict[PathKey, int] = field(default_factory=dict)
    last_id: int = 0

    def copy(self) -> Rows[Row]:
        return Rows(dict(self.by_id), dict(self.ids), self.last_id)

    def __getitem__(self, row_id: int) -> Row:
        return self.by_id[row_id]

    def __setitem__(self, row_id: int, row: Row) -> None:
        self.by_id[row_id] = row

    def find(self, agent_id: str, path: str) -> Row | None:
        row_id = self.ids.get((agent_id, path))
        return None if row_id is None else self.by_id[row_id]

    def find_or_insert(self, agent_id: str, path: str, make: Callable[[int], Row]) -> Row:
        """The row at (agent_id, path); if there is none, the one `make` builds with the next id, added."""
        found = self.find(agent_id, path)
        if found is not None:
            return found
        self.last_id += 1
        row = make(self.last_id)
        self.by_id[row.id] = row
        self.ids[row.agent_id, row.path] = row.id
        return row

    def under(self, agent_id: str, prefix: str) -> list[Row]:
        """The agent's rows whose path starts with `prefix` (literally, case-sensitively), sorted by path."""
        return sorted(
            (r for r in self.by_id.values() if r.agent_id == agent_id and r.path.startswith(prefix)),
            key=lambda r: r.path,
        )

    def forget(self, agent_id: str, dead: Callable[[Row], bool], keep: int) -> list[int]:
        """Drop the agent's dead rows (tombstones) beyond the `keep` most recently updated; returns their ids."""
        tombstones = sorted(
            (r for r in self.by_id.values() if r.agent_id == agent_id and dead(r)),
            key=lambda r: (r.updated_at, r.id),
            reverse=True,
        )
        for row in tombstones[keep:]:
            del self.by_id[row.id], self.ids[row.agent_id, row.path]
        return [row.id for row in tombstones[keep:]]


@dataclass
class Tables:
    """The rows of a database, as the SQL tables hold them: a deleted file's row keeps minus its last version,
    a deleted log's row keeps its last entry id with no entries. Values are replaced, never changed."""

    files: Rows[FileRecord] = field(default_factory=Rows)
    versions: dict[int, Mapping[int, Version]] = field(default_factory=dict)  # by file id, then number
    summaries: dict[int, SummaryRow] = field(default_factory=dict)  # by file id
    logs: Rows[LogRecord] = field(default_factory=Rows)
    entries: dict[int, tuple[EntryRow, ...]] = field(default_factory=dict)  # by log id, in id order
    agents: dict[str, Usage] = field(default_factory=dict)
    requests: dict[str, Mapping[tuple[str, str], StoredRequest]] = field(default_factory=dict)  # by agent, then
    # (caller, request_id), oldest first
    search: SearchTables = field(default_factory=SearchTables)  # the word-search index (search_index.py)
    retention: dict[tuple[str, str, str], RetentionRule] = field(default_factory=dict)  # (agent, kind, prefix)
    stamps: Stamps = field(default_factory=Stamps)  # change numbers (stamps.py)

    def copy(self) -> Tables:
        """A copy to change: of the tables, not of the (immutable) rows they hold."""
        return Tables(
            self.files.copy(), dict(self.versions), dict(self.summaries), self.logs.copy(), dict(self.entries),
            dict(self.agents), dict(self.requests), self.search.copy(), dict(self.retention), self.stamps.copy(),
        )  # fmt: skip


class MemoryDatabase:
    """One database: its committed tables, the lock its writers hold, and its API keys and rate-limit buckets
    (which, as in SQL, live outside the units of work)."""

    def __init__(self) -> None:
        self.tables = Tables()
        self.write_lock = threading.Lock()
        self.side_lock = threading.Lock()  # for api_keys and buckets
        self.api_keys: dict[str, ApiKey] = {}  # by the key's hash
        self.buckets: dict[str, tuple[float, int]] = {}  # agent_id -> (tokens, updated_at)
        self.connections = 0  # of a named database: how many are open (see connect)
        self.watchers: list[Callable[[Tables, Tables], None]] = []  # told (before, after) of each commit

    def publish(self, tables: Tables) -> None:
        """Make `tables` the committed ones (a writer holds write_lock), and tell the watchers."""
        before, self.tables = self.tables, tables
        for watcher in list(self.watchers):
            watcher(before, tables)


class Transaction:
    """What one unit of work's repositories read and write: the tables it began with, copied at its first write."""

    def __init__(self, tables: Tables, *, writable: bool) -> None:
        self._base = tables
        self._draft: Tables | None = None
        self._writable = writable
        self._numbers: dict[str, int] = {}  # the change number this transaction took, per agent

    def number(self, agent_id: str) -> int:
        """The agent's change number in this transaction, taken on first use (a writer holds the whole store)."""
        if agent_id not in self._numbers:
            heads = self.change().stamps.heads
            heads[agent_id] = self._numbers[agent_id] = heads.get(agent_id, 0) + 1
        return self._numbers[agent_id]

    @property
    def tables(self) -> Tables:
        """The tables to read: this unit of work's own changes included."""
        return self._base if self._draft is None else self._draft

    def change(self) -> Tables:
        """The tables to write to."""
        if not self._writable:
            raise StorageError(
                "This unit of work is a read-only snapshot; nothing was changed. Open one without read_only to write."
            )
        if self._draft is None:
            self._draft = self._base.copy()
        return self._draft

    def commit(self) -> Tables | None:
        """The tables to publish (None: nothing was written); a later write starts from them again."""
        draft, self._draft = self._draft, None
        self._numbers = {}
        if draft is not None:
            self._base = draft
        return draft


class MemoryConnection:
    """A database opened by URL; a named database lasts while any connection to it is open (as SQLite's shared
    in-memory databases do), so close it when done. Closing twice is harmless."""

    def __init__(self, database: MemoryDatabase, name: str) -> None:
        self.database = database
        self._name = name
        self._open = True

    def close(self) -> None:
        with _registry_lock:
            if not (self._open and self._name):
                return
            self._open = False
            self.database.connections -= 1
            if self.database.connections == 0:
                del _named[self._name]


_named: dict[str, MemoryDatabase] = {}
_registry_lock = threading.Lock()


def is_memory_url(url: str) -> bool:
    return url.startswith(MEMORY_SCHEME)


def connect(url: str) -> MemoryConnection:
    """memory:// is a new database of its own; memory://NAME the one every connection to NAME in this process shares."""
    if not is_memory_url(url):
        raise ValueError(f"Not a memory URL: {url!r}; use memory:// or memory://NAME.")
    name = url.removeprefix(MEMORY_SCHEME)
    if not name:
        return MemoryConnection(MemoryDatabase(), name)
    with _registry_lock:
        database = _named.setdefault(name, MemoryDatabase())
        database.connections += 1
    return MemoryConnection(database, name)
