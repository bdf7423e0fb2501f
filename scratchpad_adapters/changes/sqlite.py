"""SQLite: each connection of the engine gets temporary triggers on its files table that note what a transaction
changes; what a committed transaction noted is told when its connection goes back to the pool (after the commit),
what a rolled-back one noted is dropped. Only this process's own writes are seen (SQLite has no notices). The
hooks stay on the engine once set, shared by its feeds; with no feed open they note nothing."""

from __future__ import annotations

import sqlite3
import threading
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, Engine, event

from scratchpad_core.changes import FileChange, Listener, change_of

from .listeners import Listeners

_FUNCTION = "scratchpad_file_changed"
_NOTED, _COMMITTED, _INSTALLED = "scratchpad_noted", "scratchpad_committed", "scratchpad_triggers"
_SAME_ROW = "OLD.agent_id IS NEW.agent_id AND OLD.path IS NEW.path"

# (agent_id, path, was_live, is_live) per changed row; a row holds a live file when current_version > 0 (a deleted
# file's row keeps minus its last version). A row moved to another path is a file gone here and one made there.
_TRIGGERS = (
    f"""CREATE TEMP TRIGGER IF NOT EXISTS scratchpad_file_inserted AFTER INSERT ON main.files
    BEGIN SELECT {_FUNCTION}(NEW.agent_id, NEW.path, 0, NEW.current_version > 0); END""",
    f"""CREATE TEMP TRIGGER IF NOT EXISTS scratchpad_file_updated AFTER UPDATE ON main.files
    WHEN NOT ({_SAME_ROW}) OR OLD.current_version IS NOT NEW.current_version OR OLD.sha256 IS NOT NEW.sha256
    BEGIN
        SELECT {_FUNCTION}(OLD.agent_id, OLD.path, OLD.current_version > 0, 0) WHERE NOT ({_SAME_ROW});
        SELECT {_FUNCTION}(NEW.agent_id, NEW.path, ({_SAME_ROW}) AND OLD.current_version > 0, NEW.current_version > 0);
    END""",
    f"""CREATE TEMP TRIGGER IF NOT EXISTS scratchpad_file_deleted AFTER DELETE ON main.files
    BEGIN SELECT {_FUNCTION}(OLD.agent_id, OLD.path, OLD.current_version > 0, 0); END""",
    # a log's entries changed (appended, dropped, deleted, redacted): path "", heard by the agent's changes resource
    f"""CREATE TEMP TRIGGER IF NOT EXISTS scratchpad_log_updated AFTER UPDATE ON main.logs
    WHEN OLD.last_entry_id IS NOT NEW.last_entry_id OR OLD.entries IS NOT NEW.entries OR OLD.bytes IS NOT NEW.bytes
    BEGIN SELECT {_FUNCTION}(NEW.agent_id, '', 1, 1); END""",
)


class SqliteChangeFeed:
    """The changes an engine's connections commit, from the moment the feed is made until it is closed."""

    def __init__(self, engine: Engine) -> None:
        self._listeners = Listeners()
        self._watch = _watch_of(engine)
        self._watch.feeds.add(self)
        self.closed = False

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    def close(self) -> None:
        self.closed = True
        self._watch.feeds.discard(self)
        self._listeners.clear()

    def tell(self, changes: list[FileChange]) -> None:
        self._listeners.tell(changes)


class _EngineWatch:
    """The engine's hooks, set once and shared by its feeds: while no feed is open, nothing is noted."""

    def __init__(self, engine: Engine) -> None:
        self.feeds: weakref.WeakSet[SqliteChangeFeed] = weakref.WeakSet()
        event.listen(engine, "checkout", self._checkout)
        event.listen(engine, "commit", self._commit)
        event.listen(engine, "rollback", self._rollback)
        event.listen(engine, "checkin", self._checkin)

    def _checkout(self, dbapi_connection: sqlite3.Connection, record: Any, _proxy: Any) -> None:
        """Install the triggers on a connection the first time it is used once the files table exists."""
        if record.info.get(_INSTALLED) or not self.feeds:
            return
        exists = dbapi_connection.execute(
            "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'files'"
        ).fetchone()
        if exists is None:
            return  # a database not yet migrated: try again at the next checkout
        noted: list[FileChange] = record.info.setdefault(_NOTED, [])

        def note(agent_id: str, path: str, was_live: int, is_live: int) -> None:
            change = change_of(agent_id, path, bool(was_live), bool(is_live))
            if change is not None and self.feeds:
                noted.append(change)

        dbapi_connection.create_function(_FUNCTION, 4, note, deterministic=False)
        for trigger in _TRIGGERS:
            dbapi_connection.execute(trigger)
        record.info[_INSTALLED] = True

    def _commit(self, connection: Connection) -> None:
        info = connection.connection.info
        noted = info.get(_NOTED)
        if noted:
            info.setdefault(_COMMITTED, []).extend(noted)
            noted.clear()

    def _rollback(self, connection: Connection) -> None:
        noted = connection.connection.info.get(_NOTED)
        if noted:
            noted.clear()

    def _checkin(self, _dbapi_connection: Any, record: Any) -> None:
        if record is None:
            return
        committed = record.info.pop(_COMMITTED, None)
        if committed:
            for feed in list(self.feeds):
                feed.tell(committed)


_watches: weakref.WeakKeyDictionary[Engine, _EngineWatch] = weakref.WeakKeyDictionary()
_watches_lock = threading.Lock()


def _watch_of(engine: Engine) -> _EngineWatch:
    with _watches_lock:
        watch = _watches.get(engine)
        if watch is None:
            watch = _watches[engine] = _EngineWatch(engine)
        return watch
