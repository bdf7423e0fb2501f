"""PostgreSQL: a trigger on the files table notifies channel scratchpad_files in the writing transaction (so the
notice goes out with the commit, to every process) while some process is listed in change_listeners. Each feed
holds one connection that LISTENs, on a thread of its own, keeps its row there fresh, and reconnects when that
connection is lost (notices sent meanwhile are missed: a subscriber reads a resource again when it reconnects,
as the protocol asks)."""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from scratchpad_core.changes import Listener, change_of

from .listeners import Listeners

CHANNEL = "scratchpad_files"  # the migration's trigger notifies it with [agent_id, path, was_live, is_live]
POLL_S = 0.5
SEEN_EVERY_S = 30.0  # the trigger counts a listener seen within the last 90 s (migration 0005)
MAX_BACKOFF_S = 5.0

log = logging.getLogger("scratchpad")


class PostgresChangeFeed:
    """The changes every process commits to the database, from the moment the feed is listening."""

    def __init__(self, engine: Engine, *, ready_timeout_s: float = 5.0) -> None:
        self._engine = engine
        self._listeners = Listeners()
        self._id = uuid.uuid4().hex
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread = threading.Thread(target=self._run, name="scratchpad-changes", daemon=True)
        self._thread.start()
        self._listening.wait(ready_timeout_s)  # a change made once the server answers is heard

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._listeners.subscribe(listener)

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    def close(self) -> None:
        self._stop.set()
        self._listeners.clear()
        self._thread.join(timeout=POLL_S * 4)

    def _run(self) -> None:
        backoff = 0.1
        while not self._stop.is_set():
            try:
                self._listen()
                backoff = 0.1
            except Exception as error:  # the connection was lost or refused: try again, a little later each time
                self._listening.clear()
                log.warning("change notices: %s; listening again in %.1f s", type(error).__name__, backoff)
                self._stop.wait(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF_S)

    def _listen(self) -> None:
        pooled = self._engine.raw_connection()  # with the engine's connect options (timeouts, keepalives)
        connection: Any = pooled.dbapi_connection
        pooled.detach()  # a connection of its own, outside the pool, for as long as the feed listens
        try:
            connection.autocommit = True
            connection.execute(f"LISTEN {CHANNEL}")
            seen = 0.0
            while not self._stop.is_set():
                if time.monotonic() - seen > SEEN_EVERY_S:
                    self._seen(connection)
                    seen = time.monotonic()
                    self._listening.set()
                for notice in connection.notifies(timeout=POLL_S):
                    self._heard(notice.payload)
            connection.execute("DELETE FROM change_listeners WHERE listener_id = %s", (self._id,))
        finally:
            connection.close()

    def _seen(self, connection: Any) -> None:
        """List this feed as listening now (writers notify only while one is)."""
        connection.execute(  # the database's clock, which the trigger reads too
            "INSERT INTO change_listeners (listener_id, seen_at) "
            "VALUES (%s, (extract(epoch FROM clock_timestamp()) * 1000)::bigint) "
            "ON CONFLICT (listener_id) DO UPDATE SET seen_at = EXCLUDED.seen_at",
            (self._id,),
        )

    def _heard(self, payload: str) -> None:
        try:
            agent_id, path, was_live, is_live = json.loads(payload)
        except (ValueError, TypeError):
            log.warning("change notices: ignored a notice that is not [agent_id, path, was_live, is_live]")
            return
        change = change_of(str(agent_id), str(path), bool(was_live), bool(is_live))
        if change is not None:
            self._listeners.tell([change])
