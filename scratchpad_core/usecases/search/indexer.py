"""Keeping the word-search index with the content (scratchpad_core.search.indexing), off the writers' path.

A write changes the file's or log's row only, which then differs from what the index says it holds of it (the
row's marker, kept by the index): it is in the agent's backlog. `catch_up` brings a backlog up to date in bulk
(one lock order: the files, then the logs, each by path, then the index's statistics, read and saved once);
a search runs it before it ranks (usecases.search), and the server's background pass between calls. A file is
re-indexed from the text its index holds (the version it reflects, while retained, or its rows' own text): an
old line's rows stay with an unchanged line wherever it moved, so a catch-up costs the lines that changed.
Deletes drop a file's or log's rows in their own transaction (a deleted row may be forgotten, and with it the
marker), and so do a redaction and a move; the migration and an import build a whole store with `index_file`
and `index_log`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model import FileSlots
from ...ports import LogRepository, SearchIndex, UnitOfWork
from ...search.indexing import Part, relayout, rows_of, rows_of_lines, split_text, text_of

ENTRY_PAGE = 1000  # entries read at once while a log is indexed
CATCH_UP_BATCH = 200  # files and logs caught up in one transaction (a search runs as many as its backlog needs)


def index_file(
    index: SearchIndex,
    agent_id: str,
    file_id: int,
    version: int,
    content: str,
    record: FileSlots | None = None,
    previous: str | None = None,
) -> None:
    """Make the index reflect `content` as the file's `version`. With the file's index record and the text its
    rows hold (`previous`), only the lines that changed are re-indexed."""
    layout = None if record is None or previous is None else relayout(index.analyzer, previous, record.slots, content)
    if layout is not None:
        start, stop, parts = layout
    else:
        start, stop = 0, len(record.slots) if record is not None else 0
        parts = list[Part](rows_of_lines(index.analyzer, split_text(content)))
    index.splice(agent_id, file_id, version, start, stop, parts, record)


def refresh_file(uow: UnitOfWork, agent_id: str, file_id: int, version: int, previous: str | None = None) -> None:
    """Make the index reflect the file's retained `version` (its current one; the row locked by the caller),
    from the text the index holds: `previous` when the caller has it, else the version the index reflects while
    it is retained, else the rows' own text."""
    record = uow.index.file_slots(file_id)
    if record is not None and record.version == version and previous is None:
        uow.index.splice(agent_id, file_id, version, 0, 0, [], record)  # indexed by an earlier release: the marker
        return
    head = uow.files.get_version(file_id, version)
    if head is None:
        return
    if record is not None and previous is None:
        previous = held_text(uow, file_id, record)
    index_file(uow.index, agent_id, file_id, version, head.content, record, previous)


def held_text(uow: UnitOfWork, file_id: int, record: FileSlots) -> str:
    """The text the file's index record holds: the version it reflects, while retained, else its rows' text."""
    held = uow.files.get_version(file_id, record.version) if record.version > 0 else None
    if held is not None:
        return held.content
    return text_of(record.slots, uow.index.texts([abs(slot) for slot in record.slots if slot]))


def _index_entries(
    index: SearchIndex, agent_id: str, log_id: int, entries: Iterable[tuple[int, str]], *, below: int = 0
) -> None:
    """Index entries (id, text) that follow the last one indexed (and drop those of entries below `below`)."""
    rows = [(entry_id, rows_of(index.analyzer, text)) for entry_id, text in entries]
    index.add_entries(agent_id, log_id, rows, below=below)


def index_log(index: SearchIndex, logs: LogRepository, agent_id: str, log_id: int, first: int, last: int) -> None:
    """Make the index hold exactly the log's live entries, first..last (last < first: none)."""
    indexed = index.log_entries(log_id)
    if indexed is not None and (last < first or indexed[1] > last or indexed[1] < first - 1):
        index.drop_entries(log_id)  # nothing to keep: the log is gone, or was deleted and came back
        indexed = None
    if last < first:
        index.drop_entries(log_id)  # (also the marker of a log an earlier release deleted)
        return
    if indexed is not None and indexed[0] < first:
        index.drop_entries(log_id, below=first)
    after = first - 1 if indexed is None else indexed[1]
    if after >= last:
        index.add_entries(agent_id, log_id, [])  # nothing to add (an earlier release indexed it): the marker
    while after < last:
        page = logs.entries(log_id, after, ENTRY_PAGE)
        if not page:
            break
        _index_entries(index, agent_id, log_id, [(e.id, e.entry) for e in page])
        after = page[-1].id


def catch_up(uow: UnitOfWork, agent_id: str, limit: int = CATCH_UP_BATCH) -> int:
    """Re-index up to `limit` of the agent's files and logs in its backlog, in this transaction; returns how
    many it took (fewer than `limit`: the backlog is empty now, but for what was written meanwhile)."""
    files, logs = uow.index.lagging(agent_id, limit)
    logs = logs[: max(0, limit - len(files))]
    # Every row locked first, in path order (one lock order: files, then logs, then the index's statistics),
    # taking no change number (the content stays as it is);
    # another catch-up that took a row first has indexed it: its state is read after the lock.
    file_rows = [(i, uow.files.lock(agent_id, path, writes=False)) for i, path in sorted(files, key=_by_path) if path]
    log_rows = [(i, uow.logs.lock(agent_id, path, writes=False)) for i, path in sorted(logs, key=_by_path) if path]
    with uow.index.batch(agent_id):
        for file_id, record in file_rows:
            if record is None or record.id != file_id or record.current_version <= 0:
                uow.index.drop_file(file_id)
            else:
                refresh_file(uow, agent_id, record.id, record.current_version)
        for log_id, log in log_rows:
            if log is None or log.id != log_id:
                uow.index.drop_entries(log_id)
            else:
                index_log(uow.index, uow.logs, agent_id, log_id, log.last_entry_id - log.entries + 1, log.last_entry_id)
    return len(files) + len(logs)


def _by_path(found: tuple[int, str | None]) -> str:
    return found[1] or ""
