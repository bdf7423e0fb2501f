"""Keeping the word-search index with the content, in the writer's own transaction (scratchpad_core.indexing).

Every writing path calls these: a new version re-indexes the lines that changed since the version the index
reflects (all of them when it reflects another: a file written by a release that did not index), a delete
drops the file's rows, a move carries them, an append indexes the entry. `catch_up` re-indexes what a writer of
an earlier release left behind; the migration and an import build a whole store with `index_file` and
`index_log`.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..indexing import change, rows_of, rows_of_lines, slot_range, split_text
from ..model import FileSlots
from ..ports import LogRepository, SearchIndex, UnitOfWork

ENTRY_PAGE = 1000  # entries read at once while a log is indexed


def index_file(
    index: SearchIndex,
    agent_id: str,
    file_id: int,
    version: int,
    content: str,
    record: FileSlots | None = None,
    previous: str | None = None,
) -> None:
    """Make the index reflect `content` as the file's `version`. With the file's index record and the content of
    the version it reflects (`previous`), only the lines that changed are re-indexed."""
    if record is not None and previous is not None:
        edit = change(previous, content)
        start, stop = slot_range(record.slots, edit.first, edit.old_stop)
        rows = rows_of_lines(index.analyzer, edit.lines)
    else:
        start, stop = 0, len(record.slots) if record is not None else 0
        rows = rows_of_lines(index.analyzer, split_text(content))
    index.splice(agent_id, file_id, version, start, stop, rows, record)


def index_entries(
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
        return
    if indexed is not None and indexed[0] < first:
        index.drop_entries(log_id, below=first)
    after = first - 1 if indexed is None else indexed[1]
    while after < last:
        page = logs.entries(log_id, after, ENTRY_PAGE)
        if not page:
            break
        index_entries(index, agent_id, log_id, [(e.id, e.entry) for e in page])
        after = page[-1].id


def catch_up(uow: UnitOfWork, agent_id: str) -> None:
    """Re-index the agent's files and logs that a writer of an earlier release changed without the index."""
    files, logs = uow.index.lagging(agent_id)
    # Every row locked first, in path order (one lock order: files, then logs, then the index's counters).
    file_rows = {path: uow.files.lock(agent_id, path) for _, path in sorted(files, key=_by_path) if path is not None}
    log_rows = {path: uow.logs.lock(agent_id, path) for _, path in sorted(logs, key=_by_path) if path is not None}
    for file_id, path in files:
        record = file_rows.get(path) if path is not None else None
        if record is None or record.id != file_id or record.current_version == 0:
            uow.index.drop_file(file_id)
            continue
        head = uow.files.get_version(record.id, record.current_version)
        if head is not None:
            index_file(uow.index, agent_id, record.id, record.current_version, head.content,
                       uow.index.file_slots(record.id))  # fmt: skip
    for log_id, path in logs:
        log = log_rows.get(path) if path is not None else None
        if log is None or log.id != log_id:
            uow.index.drop_entries(log_id)
            continue
        index_log(uow.index, uow.logs, agent_id, log_id, log.last_entry_id - log.entries + 1, log.last_entry_id)


def _by_path(found: tuple[int, str | None]) -> str:
    return found[1] or ""
