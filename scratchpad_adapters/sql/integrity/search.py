"""`db check`'s rules on the word-search index: it holds exactly the current versions and the live entries.

Read in the check's snapshot, a file (or log) at a time, with the store's own rules (scratchpad_core.search.indexing,
the analyzer of scratchpad_adapters.stemming): each live file's index record is at its current version and its
rows, in slot order, are its lines; each live log's record covers its live entries and its rows are their
text; each row's terms are its text's; no row or record belongs to nothing; each agent's statistics are a
recount of its rows. A file or log row whose marker says the index holds its content while the index record does
not is a fault (search-marker: no search would catch it up); a row whose marker says the index is behind is in
the backlog, which the next search catches up: `backlog_note` counts it, no violation (also when an earlier
release indexed the write but left the marker: the catch-up then only sets it).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, and_, func, select

from scratchpad_core.search.indexing import MAX_TF, Statistics, rows_of, rows_of_lines, split_text

from ...stemming import default_analyzer
from ..schema.tables import (
    FILES_PENDING,
    LOGS_PENDING,
    file_versions,
    files,
    log_entries,
    logs,
    search_agents,
    search_files,
    search_logs,
    search_rows,
)
from ..search.reads import unpack
from ..search.terms import VOCAB
from ..search.terms import of as terms_of
from .rules import Violation, scoped

f, v, g, e = files.c, file_versions.c, logs.c, log_entries.c
sa, sf, sl, sr = search_agents.c, search_files.c, search_logs.c, search_rows.c
BATCH = 50
REBUILD = (
    "Set the markers from the index records (the next search re-indexes what they show behind): "
    "UPDATE files SET indexed_version = coalesce((SELECT version FROM search_files WHERE file_id = files.id), 0); "
    "UPDATE logs SET indexed_last = coalesce((SELECT CASE WHEN last_entry >= first_entry THEN last_entry ELSE 0 END "
    "FROM search_logs WHERE log_id = logs.id), 0), indexed_entries = coalesce((SELECT CASE WHEN last_entry >= "
    "first_entry THEN last_entry - first_entry + 1 ELSE 0 END FROM search_logs WHERE log_id = logs.id), 0)"
)


def backlog_note(connection: Connection, agent: str | None) -> str:
    """How many files and logs wait in the index's backlog (its partial indexes count them): not a violation."""
    pending = [
        int(connection.execute(select(func.count()).select_from(table).where(scoped(table.c.agent_id, agent), where))
            .scalar_one())
        for table, where in ((files, FILES_PENDING), (logs, LOGS_PENDING))
    ]  # fmt: skip
    if not any(pending):
        return ""
    return (
        f"note: {pending[0]:,} files and {pending[1]:,} logs wait in the search index's backlog (written, not yet "
        "indexed: the next search, or the server's background pass, catches them up). Not a violation."
    )


def search_rules(connection: Connection, agent: str | None) -> Iterator[Violation]:
    recount: dict[str, Statistics] = {}
    yield from _files(connection, agent, recount)
    yield from _logs(connection, agent, recount)
    yield from _orphans(connection, agent)
    yield from _statistics(connection, agent, recount)
    yield from _engine(connection)


def _engine(connection: Connection) -> Iterator[Violation]:
    """SQLite: FTS5's own index, which a search reads, holds exactly the index rows' terms (each term's rows and
    occurrences, from fts5vocab). PostgreSQL's GIN index is the database's own business."""
    if connection.dialect.name != "sqlite":
        return
    rows: Counter[str] = Counter()
    occurrences: Counter[str] = Counter()
    for (terms,) in connection.execute(select(sr.terms)):
        words = terms.split()
        occurrences.update(words)
        rows.update(set(words))
    held = {term: (doc, cnt) for term, doc, cnt in connection.exec_driver_sql(f"SELECT term, doc, cnt FROM {VOCAB}")}
    wrong = sorted(t for t in held.keys() | occurrences.keys() if held.get(t, (0, 0)) != (rows[t], occurrences[t]))
    if wrong:
        yield Violation("search-engine", None, "search_fts",
                        f"SQLite's full-text index disagrees with the index rows on {len(wrong)} terms (first "
                        f"{wrong[0]!r}): searches may miss or invent text. Rebuild it with sqlite3: INSERT INTO "
                        "search_fts(search_fts) VALUES ('rebuild')")  # fmt: skip


Stored = dict[int, tuple[int, str, Counter[str], int]]  # row id -> entry, text, terms (counted), length


def _rows(connection: Connection, owner: int) -> Stored:
    decode = terms_of(connection).decode
    query = select(sr.id, sr.entry, sr.text, sr.terms, sr.length).where(sr.owner == owner)
    return {r.id: (r.entry, r.text, Counter(decode(r.terms)), r.length) for r in connection.execute(query)}


def _same(counted: Counter[str], length: int, terms: tuple[str, ...] | list[str]) -> bool:
    """Stored terms (each counted at most MAX_TF times) and length against a text's terms."""
    capped = {t: min(n, MAX_TF) for t, n in counted.items()}
    return length == len(terms) and capped == {t: min(n, MAX_TF) for t, n in Counter(terms).items()}


def _pages(connection: Connection, query: Any, key: Any) -> Iterator[Any]:
    after = -(2**62)
    while True:
        page = connection.execute(query.where(key > after).order_by(key).limit(BATCH)).all()
        if not page:
            return
        yield from page
        after = getattr(page[-1], key.key)


def _count(recount: dict[str, Statistics], agent_id: str, stored: Stored) -> None:
    stats = recount.setdefault(agent_id, Statistics())
    stats.change(default_analyzer().common, [(length, set(terms)) for _, _, terms, length in stored.values()], [])


def _files(connection: Connection, agent: str | None, recount: dict[str, Statistics]) -> Iterator[Violation]:
    analyzer = default_analyzer()
    query = (
        select(f.id, f.agent_id, f.path, f.current_version, f.indexed_version, v.content)
        .add_columns(sf.id.label("owner"), sf.version, sf.slots)
        .select_from(
            files.outerjoin(file_versions, and_(v.file_id == f.id, v.version == f.current_version)).outerjoin(
                search_files, sf.file_id == f.id
            )
        )
        .where(scoped(f.agent_id, agent), (f.current_version > 0) | sf.id.is_not(None))
    )  # (a deleted file's record: an earlier release deleted it, and the backlog drops it)
    for row in _pages(connection, query, f.id):
        held, live = 0 if row.owner is None else row.version, max(row.current_version, 0)
        if row.indexed_version == live and held != live:  # it says "nothing to do": no search would catch it up
            yield Violation("search-marker", row.agent_id, row.path,
                            f"the row says the index holds {f'version {live}' if live else 'nothing'}, its record "
                            f"holds {f'version {held}' if held else 'nothing'}. " + REBUILD)  # fmt: skip
        if held != live or row.indexed_version != live:  # the backlog (backlog_note), or the lie just told
            if row.owner is not None:  # (an earlier release indexes a write but leaves its marker: a backlog)
                _count(recount, row.agent_id, _rows(connection, row.owner))
            continue
        stored = _rows(connection, row.owner)
        if row.content is None:  # no head version to compare with (head-missing says so)
            _count(recount, row.agent_id, stored)
            continue
        slots = unpack(row.slots)
        expected = rows_of_lines(analyzer, split_text(row.content))
        _count(recount, row.agent_id, stored)
        problem = _compare_file(slots, stored, expected)
        if problem:
            yield Violation("search-file", row.agent_id, row.path, problem)


def _compare_file(slots: tuple[int, ...], stored: Stored, expected: list[Any]) -> str:
    if len(slots) != len(expected):
        return f"the index lists {len(slots)} rows, the current version has {len(expected)} (lines and pieces)"
    listed = {abs(slot) for slot in slots if slot}
    if listed != set(stored):
        return f"{len(listed - set(stored))} listed rows are missing, {len(set(stored) - listed)} rows are not listed"
    for number, (slot, want) in enumerate(zip(slots, expected, strict=True), 1):
        if want is None or slot == 0:
            if (want is None) != (slot == 0):
                return f"slot {number}: an empty line in one of the index and the file, not in the other"
            continue
        _, text, terms, length = stored[abs(slot)]
        if text != want.text or (slot < 0) != want.continued:
            return f"slot {number}: the index holds other text than the current version"
        if not _same(terms, length, want.terms):
            return f"slot {number}: the row's terms are not its text's"
    return ""


def _logs(connection: Connection, agent: str | None, recount: dict[str, Statistics]) -> Iterator[Violation]:
    analyzer = default_analyzer()
    query = (
        select(g.id, g.agent_id, g.path, g.last_entry_id, g.entries, g.indexed_last, g.indexed_entries)
        .add_columns(sl.first_entry, sl.last_entry)
        .select_from(logs.outerjoin(search_logs, sl.log_id == g.id))
        .where(scoped(g.agent_id, agent), g.entries > 0)
    )
    for log in _pages(connection, query, g.id):
        first = log.last_entry_id - log.entries + 1
        says_live = log.indexed_entries == log.entries and log.indexed_last == log.last_entry_id
        holds_live = (log.first_entry, log.last_entry) == (first, log.last_entry_id)
        if says_live and not holds_live:  # no search would catch it up
            record = "nothing" if log.first_entry is None else f"entries {log.first_entry}..{log.last_entry}"
            yield Violation("search-marker", log.agent_id, log.path,
                            f"the row says the index holds its entries {first}..{log.last_entry_id}, its record "
                            f"holds {record}. " + REBUILD)  # fmt: skip
        if not (says_live and holds_live):  # the backlog, or the lie just told
            if log.first_entry is not None:
                _count(recount, log.agent_id, _rows(connection, -log.id))
            continue
        stored = _rows(connection, -log.id)
        _count(recount, log.agent_id, stored)
        by_entry: dict[int, list[tuple[str, Counter[str], int]]] = {}
        for row_id in sorted(stored):
            entry, text, terms, length = stored[row_id]
            by_entry.setdefault(entry, []).append((text, terms, length))
        entries = select(e.entry_id, e.entry).where(e.log_id == log.id).order_by(e.entry_id)
        for entry_id, text in connection.execute(entries):
            want = rows_of(analyzer, text)
            held = by_entry.pop(entry_id, [])
            if len(held) != len(want) or any(
                t != r.text or not _same(terms, length, r.terms)
                for (t, terms, length), r in zip(held, want, strict=True)
            ):
                yield Violation("search-entry", log.agent_id, log.path,
                                f"entry {entry_id}: the index holds other text or terms than the entry")  # fmt: skip
        if by_entry:
            yield Violation("search-entry", log.agent_id, log.path,
                            f"the index holds {len(by_entry)} entries the log does not")  # fmt: skip


def _orphans(connection: Connection, agent: str | None) -> Iterator[Violation]:
    """Rows of no record, and records of no live file or log."""
    records = select(sf.id)
    log_records = select(-sl.log_id)
    stray = (
        select(sr.owner, sr.id)
        .where(sr.owner.not_in(records), sr.owner.not_in(log_records))
        .order_by(sr.owner, sr.id)
        .limit(1000)
    )
    owners = Counter(owner for owner, _ in connection.execute(stray))
    for owner, count in sorted(owners.items()):
        yield Violation("search-orphan", None, f"owner {owner}", f"{count} index rows of no file or log record")
    gone = (  # (a deleted file's record is _files': in the backlog, or its marker lies)
        select(sf.agent_id, sf.file_id)
        .select_from(search_files.outerjoin(files, f.id == sf.file_id))
        .where(scoped(sf.agent_id, agent), f.id.is_(None))
    )
    for agent_id, file_id in connection.execute(gone):
        yield Violation("search-orphan", agent_id, f"file id {file_id}", "an index record of a file row that is gone")
    gone_logs = (
        select(sl.agent_id, sl.log_id, g.id.label("row"))
        .select_from(search_logs.outerjoin(logs, g.id == sl.log_id))
        .where(scoped(sl.agent_id, agent), (g.id.is_(None)) | ((g.entries == 0) & (g.indexed_entries == 0)))
    )
    for agent_id, log_id, row in connection.execute(gone_logs):
        yield Violation("search-orphan" if row is None else "search-marker", agent_id, f"log id {log_id}",
                        "an index record of a log that is gone" + ("" if row is None else ". " + REBUILD))  # fmt: skip


def _statistics(connection: Connection, agent: str | None, recount: dict[str, Statistics]) -> Iterator[Violation]:
    """Each agent's statistics are a recount of the rows of its (checked) files and logs."""
    query = select(sa.agent_id, sa.documents, sa.length, sa.common).where(scoped(sa.agent_id, agent))
    stored = {
        r.agent_id: Statistics(r.documents, r.length, Counter(json.loads(r.common))) for r in connection.execute(query)
    }
    for agent_id in sorted(set(stored) | set(recount)):
        have, want = stored.get(agent_id, Statistics()), recount.get(agent_id, Statistics())
        if (have.documents, have.length, +have.common) != (want.documents, want.length, +want.common):
            yield Violation("search-counters", agent_id, "search statistics",
                            f"{have.documents} documents of {have.length} terms, a recount gives "
                            f"{want.documents} of {want.length} (or other common-word counts)")  # fmt: skip
