"""The in-memory store: its commits publish new tables; the files whose rows differ between the old and the new
tables are what changed (rows are replaced, never changed in place, so a changed row is another object)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from scratchpad_core.changes import FileChange, Listener, change_of
from scratchpad_core.model import FileRecord

from ..memory.database import MemoryDatabase, Tables
from .listeners import Listeners


class MemoryChangeFeed:
    def __init__(self, database: MemoryDatabase) -> None:
        self._database = database
        self._listeners = Listeners()
        database.watchers.append(self._published)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    @property
    def closed(self) -> bool:
        return self._published not in self._database.watchers

    def close(self) -> None:
        if self._published in self._database.watchers:
            self._database.watchers.remove(self._published)
        self._listeners.clear()

    def _published(self, before: Tables, after: Tables) -> None:
        logs = {new.agent_id for log_id, new in after.logs.by_id.items() if before.logs.by_id.get(log_id) is not new}
        told = [*changes(before.files.by_id, after.files.by_id), *(FileChange(a, "", "updated") for a in sorted(logs))]
        self._listeners.tell(told)


def changes(before: dict[int, FileRecord], after: dict[int, FileRecord]) -> Iterator[FileChange]:
    for row_id in before.keys() | after.keys():
        old, new = before.get(row_id), after.get(row_id)
        if old is new:
            continue
        moved = old is not None and new is not None and (old.agent_id, old.path) != (new.agent_id, new.path)
        if old is not None and (new is None or moved):
            change = change_of(old.agent_id, old.path, live(old), False)
            if change is not None:
                yield change
        if new is not None:
            same_row = old is not None and not moved
            change = change_of(new.agent_id, new.path, same_row and live(old), live(new))
            if change is not None and (old is None or moved or not _same_file(old, new)):
                yield change


def live(row: FileRecord | None) -> bool:
    """A row holds a live file when its current version is above 0 (a deleted file's row keeps minus its last)."""
    return row is not None and row.current_version > 0


def _same_file(old: FileRecord, new: FileRecord) -> bool:
    return old.current_version == new.current_version and old.sha256 == new.sha256
