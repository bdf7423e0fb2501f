"""The background index pass: every `every` seconds, the search index's backlog (what writes left for it) caught
up, BATCH files and logs a round (Scratchpad.catch_up_index: a transaction an agent), while the server is quiet:
no call ended in the last QUIET seconds (the pass observes the calls, `after`), checked before each round. So a
burst of calls does not share the interpreter and the write lock with it: a write costs what it did before the
index, and the pass runs in the pauses between an agent's calls (its thinking). A search catches up whatever is
left first (it never depends on this pass to be exact); the pass keeps that catch-up small. On PostgreSQL
replicas take turns per agent (an advisory lock each catch-up transaction tries; one that finds it taken skips
the agent)."""

from __future__ import annotations

import logging
import threading
import time

from scratchpad_core.service import Scratchpad

log = logging.getLogger("scratchpad")

BATCH = 2  # files and logs a round: a 1 MiB file indexed whole takes a good part of a second, a call waits that long
QUIET = 0.1  # seconds with no call ended before a round


class IndexPass:
    def __init__(self, store: Scratchpad, every: float) -> None:
        self._store = store
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_call = 0.0  # time.monotonic() when the last call ended

    def after(self, record: object) -> None:
        """A call ended (the server's call runner tells its observers)."""
        self._last_call = time.monotonic()

    def start(self) -> None:
        """Run in a daemon thread, the first time one period after start-up (0: never)."""
        if self._every <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="scratchpad-index", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def run_once(self) -> int:
        """Rounds until the backlog is caught up (or the pass is stopped); returns how many files and logs."""
        done = 0
        while not self._stop.is_set() and time.monotonic() - self._last_call >= QUIET:
            step = self._store.catch_up_index(BATCH)
            done += step
            if step < BATCH:
                break
        return done

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                self.run_once()
            except Exception:  # a pass that fails is logged; the next period tries again (a search catches up)
                log.exception("background index pass failed", extra={"event": "index_pass_failed"})
