"""SQLite writes one transaction at a time: this process's units of work on a SQLite file wait their turn on a lock
of the process's own, and the next one starts as soon as the one before ends. Waiting in SQLite instead (its busy
timeout) sleeps 1, 2, 5, 10, ... ms between tries, whatever the writer it waits for takes (about 0.2 ms): with 8
HTTP sessions writing at once, most of a call's p99. Other processes on the file are still waited for by SQLite."""

from __future__ import annotations

import threading

from scratchpad_core.errors import StorageBusy

from .errors import BUSY


class WriterTurns:
    def __init__(self, timeout_ms: int) -> None:
        self._lock = threading.Lock()
        self._timeout_s = timeout_ms / 1000

    def take(self) -> None:
        """Wait for this thread's turn (as long as SQLite's busy timeout would); StorageBusy past it."""
        if not self._lock.acquire(timeout=self._timeout_s):
            raise StorageBusy(BUSY)

    def end(self) -> None:
        self._lock.release()
