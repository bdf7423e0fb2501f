"""Building the word-search index of a whole store (migration 0008) or of the agents an import loads, in batches,
with the core's rules (scratchpad_core.usecases.search.indexer), saying how far it got on stderr as it goes."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sqlalchemy import Connection, Select, and_, select

from scratchpad_core.usecases.search.indexer import index_file, index_log

from ...stemming import default_analyzer
from ..repositories.log_repository import SqlLogRepository
from ..repositories.stamps import SqlStamp
from ..schema.tables import file_versions, files, logs
from .index import SqlSearchIndex

BATCH = 50  # files read at once (each up to 1 MiB)
REPORT_EVERY_S = 2.0
f, v, g = files.c, file_versions.c, logs.c


def _stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def build(
    connection: Connection,
    agents: Iterable[str] | None = None,
    say: Callable[[str], None] = _stderr,
    *,
    markers: bool = True,
) -> int:
    """Index every live file and log of these agents (None: of every agent); returns how many were indexed
    (markers=False: for migration 0008, before the rows had the index's markers)."""
    index = SqlSearchIndex(connection, default_analyzer(), markers=markers)
    entries = SqlLogRepository(connection, SqlStamp(connection))
    file_query = (
        select(f.id, f.agent_id, f.current_version, v.content)
        .join(file_versions, and_(v.file_id == f.id, v.version == f.current_version))
        .where(f.current_version > 0)
    )
    log_query = select(g.id, g.agent_id, g.last_entry_id, g.entries).where(g.entries > 0)
    if agents is not None:
        scope = list(agents)
        file_query, log_query = file_query.where(f.agent_id.in_(scope)), log_query.where(g.agent_id.in_(scope))
    done, started, told = 0, time.monotonic(), time.monotonic()
    for row in _pages(connection, file_query, f.id):
        index_file(index, row.agent_id, row.id, row.current_version, row.content, index.file_slots(row.id))
        done += 1
        if time.monotonic() - told > REPORT_EVERY_S:
            told = time.monotonic()
            say(f"search index: {done:,} files indexed ({told - started:.0f} s) ...")
    for log in _pages(connection, log_query, g.id):
        index_log(index, entries, log.agent_id, log.id, log.last_entry_id - log.entries + 1, log.last_entry_id)
        done += 1
        if time.monotonic() - told > REPORT_EVERY_S:
            told = time.monotonic()
            say(f"search index: {done:,} files and logs indexed ({told - started:.0f} s) ...")
    if done and agents is None:
        say(f"search index: built for {done:,} files and logs in {time.monotonic() - started:.1f} s")
    return done


def _pages(connection: Connection, query: Select[Any], key: Any) -> Iterator[Any]:
    """The rows of a query, BATCH at a time in key order (no cursor stays open: indexing writes meanwhile)."""
    after = 0
    while True:
        page = connection.execute(query.where(key > after).order_by(key).limit(BATCH)).all()
        if not page:
            return
        yield from page
        after = page[-1].id


def build_all(connection: Connection, *, markers: bool = True) -> int:
    return build(connection, markers=markers)
