"""What a search reads of the SQL word-search index (scratchpad_core.ports.SearchReader), and the backlog's probes:
each agent's statistics and its terms' documents (search_terms: FTS5 or GIN), the paths of the owners found,
the rows' texts; the files and logs the index has not caught up with (partial indexes: their cost is the
backlog's). search_index.SqlSearchIndex adds what changes the index."""

from __future__ import annotations

import contextlib
import json
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence

from sqlalchemy import BindParameter, Connection, bindparam, literal, select, text

from scratchpad_core.model import Posting
from scratchpad_core.search.indexing import Statistics
from scratchpad_core.search.words import Analyzer

from ..connection.execution import run
from ..schema.tables import FILES_PENDING, LOGS_PENDING, files, logs, search_agents, search_files, search_rows
from . import terms as search_terms
from .batch import BATCH

sa, sf, sr, f, g = search_agents.c, search_files.c, search_rows.c, files.c, logs.c

AGENT = select(sa.id, sa.documents, sa.length, sa.common).where(sa.agent_id == bindparam("agent_id"))
IDS: BindParameter[int] = bindparam("ids", expanding=True)
_SLOTS = select(sf.slots).where(sf.id == bindparam("owner"))
_FILE_OWNERS = (  # the owners a search found documents of: their files' paths and last writes
    select(sf.id, f.path, f.updated_at)
    .select_from(search_files.join(files, f.id == sf.file_id))
    .where(sf.agent_id == bindparam("agent_id"), f.current_version > 0, sf.id.in_(IDS))
)
_LOG_OWNERS = select(-g.id, g.path, literal(0)).where(g.agent_id == bindparam("agent_id"), g.entries > 0, g.id.in_(IDS))
_LAGGING_FILES = (  # the partial index ix_files_unindexed: its cost is the backlog's
    select(f.id, f.path).where(f.agent_id == bindparam("agent_id"), FILES_PENDING).limit(bindparam("limit"))
)
_LAGGING_LOGS = (  # ix_logs_unindexed
    select(g.id, g.path).where(g.agent_id == bindparam("agent_id"), LOGS_PENDING).limit(bindparam("limit"))
)
_BEHIND = (  # agents with a backlog (the background pass)
    select(f.agent_id).where(FILES_PENDING).limit(bindparam("limit")),
    select(g.agent_id).where(LOGS_PENDING).limit(bindparam("limit")),
)
# PostgreSQL estimates a comparison of two columns (indexed_version <> current_version) to hold for almost every
# row, so once a table is analysed it plans the backlog's probes as a scan of the whole table (with LIMIT 1: it
# expects to stop at once) rather than the partial indexes that hold only the backlog; neither expression
# statistics nor `= true` change that estimate. For these probes alone the scan is switched off: the partial index
# is then the plan, whatever the table holds (tests/contract/test_search_backlog_plans.py).
_NO_SCAN = text("SET LOCAL enable_seqscan = off")
_SCAN_AGAIN = text("SET LOCAL enable_seqscan TO DEFAULT")
CLAIM_KEY = 0x5C7A_0029  # "scratchpad, issue 29": the first key of the background pass's advisory locks
_CLAIM = text(f"SELECT pg_try_advisory_xact_lock({CLAIM_KEY}, hashtext(:agent_id))")
_TEXTS = select(sr.id, sr.text).where(sr.id.in_(IDS))
_ENTRY_TEXTS = (
    select(sr.entry, sr.text)
    .where(sr.owner == bindparam("owner"), sr.entry.in_(bindparam("entries", expanding=True)))
    .order_by(sr.entry, sr.id)
)


def pack(slots: Sequence[int]) -> bytes:
    return array("q", slots).tobytes()


def unpack(blob: bytes) -> tuple[int, ...]:
    slots = array("q")
    slots.frombytes(blob)
    return tuple(slots)


class SqlSearchReads:
    def __init__(self, connection: Connection, analyzer: Analyzer) -> None:
        self._c = connection
        self._analyzer = analyzer
        self._terms = search_terms.of(connection)
        self._keys: dict[str, int | None] = {}  # an agent's key, once read (it never changes)

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    def behind(self, limit: int) -> list[str]:
        with self._backlog_plans():
            return sorted({agent for query in _BEHIND for (agent,) in run(self._c, query, {"limit": limit}).values})

    @contextlib.contextmanager
    def _backlog_plans(self) -> Iterator[None]:
        """The probes inside plan on the backlog's partial indexes (see _NO_SCAN), on PostgreSQL."""
        if self._c.dialect.name != "postgresql":
            yield
            return
        self._c.execute(_NO_SCAN)
        try:
            yield
        finally:
            self._c.execute(_SCAN_AGAIN)

    def claim(self, agent_id: str) -> bool:
        if self._c.dialect.name != "postgresql":
            return True  # SQLite's writers take turns
        return bool(run(self._c, _CLAIM, {"agent_id": agent_id}).scalar())

    def lagging(
        self, agent_id: str, limit: int = 1
    ) -> tuple[list[tuple[int, str | None]], list[tuple[int, str | None]]]:
        params = {"agent_id": agent_id, "limit": limit}
        with self._backlog_plans():
            return (
                [(i, p) for i, p in run(self._c, _LAGGING_FILES, params).values],
                [(i, p) for i, p in run(self._c, _LAGGING_LOGS, params).values],
            )

    def statistics(self, agent_id: str) -> Statistics:
        row = run(self._c, AGENT, {"agent_id": agent_id}).first()
        self._keys[agent_id] = None if row is None else int(row.id)
        return Statistics() if row is None else Statistics(row.documents, row.length, Counter(json.loads(row.common)))

    def _key(self, agent_id: str) -> int | None:
        if agent_id not in self._keys:
            row = run(self._c, AGENT, {"agent_id": agent_id}).first()
            self._keys[agent_id] = None if row is None else int(row.id)
        return self._keys[agent_id]

    def frequency(self, agent_id: str, term: str) -> int:
        key = self._key(agent_id)
        return 0 if key is None else self._terms.frequency(self._c, self._terms.scoped(key, term))

    def postings(self, agent_id: str, term: str) -> list[Posting]:
        key = self._key(agent_id)
        if key is None:
            return []
        return [tuple(row) for row in self._terms.postings(self._c, self._terms.scoped(key, term))]

    def owners(self, agent_id: str, owners: Sequence[int]) -> dict[int, tuple[str, int]]:
        files_of = [o for o in owners if o > 0]
        logs_of = [-o for o in owners if o < 0]
        found: dict[int, tuple[str, int]] = {}
        for statement, ids in ((_FILE_OWNERS, files_of), (_LOG_OWNERS, logs_of)):
            if ids:
                rows = self._c.execute(statement, {"agent_id": agent_id, "ids": ids})
                found.update((owner, (path, updated_at)) for owner, path, updated_at in rows)
        return found

    def owner_slots(self, owner: int) -> Sequence[int]:
        blob = run(self._c, _SLOTS, {"owner": owner}).scalar()
        return () if blob is None else unpack(blob)

    def texts(self, row_ids: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for at in range(0, len(row_ids), BATCH):
            out.update(
                (row_id, text) for row_id, text in self._c.execute(_TEXTS, {"ids": list(row_ids[at : at + BATCH])})
            )
        return out

    def entry_texts(self, owner: int, entries: Sequence[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        for entry, piece in self._c.execute(_ENTRY_TEXTS, {"owner": owner, "entries": list(entries)}):
            out[entry] = out.get(entry, "") + piece
        return out
