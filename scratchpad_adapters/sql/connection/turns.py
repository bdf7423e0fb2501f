"""SQLite writes one transaction at a time: a server's units of work on a SQLite file wait their turn on a lock of
the store's own, and the next one starts as soon as the one before ends. Waiting in SQLite instead (its busy
timeout) sleeps 1, 2, 5, 10, ... ms between tries, whatever the writer it waits for takes (about 0.2 ms): with 8
HTTP sessions writing at once, most of a call's p99 (bench.speed, issue 9). The HTTP server takes turns; a library
store does not (threads handing the turn on to each other cost a third of 8 threads' throughput in process, where
SQLite's sleeping lets one thread run several transactions in a row). Another process on the file, or another
store, is waited for by SQLite, for what is left of the same lock timeout."""

from __future__ import annotations

import threading
import time

from sqlalchemy import Connection, RootTransaction

from scratchpad_core.errors import StorageBusy

from .errors import BUSY


class WriterTurns:
    def __init__(self, timeout_ms: int) -> None:
        self._lock = threading.Lock()
        self._timeout_s = timeout_ms / 1000

    def begin(self, connection: Connection) -> RootTransaction:
        """Wait for this unit of work's turn, then begin its transaction, both within one lock timeout (StorageBusy
        past it): SQLite waits for another process only for what is left of it."""
        started = time.monotonic()
        if not self._lock.acquire(timeout=self._timeout_s):
            raise StorageBusy(BUSY)
        try:
            waited = time.monotonic() - started
            if waited < 0.001:
                return connection.begin()
            raw = connection.connection.dbapi_connection
            assert raw is not None, "a live connection"
            raw.execute(f"PRAGMA busy_timeout={max(0, round((self._timeout_s - waited) * 1000))}")
            try:
                return connection.begin()
            finally:
                raw.execute(f"PRAGMA busy_timeout={round(self._timeout_s * 1000)}")
        except BaseException:
            self._lock.release()
            raise

    def end(self) -> None:
        self._lock.release()
