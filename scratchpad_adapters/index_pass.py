"""The background index pass: every `every` seconds, the search index's backlog (what writes left for it) caught
up, BATCH files and logs a round (Scratchpad.catch_up_index: a transaction an agent), with a pause between rounds
so that calls get the interpreter and the write lock between them. A search catches up whatever is left first
(it never depends on this pass to be exact); the pass keeps that catch-up small. On PostgreSQL replicas take
turns per agent (an advisory lock each catch-up transaction tries; one that finds it taken skips the agent)."""

from __future__ import annotations

import logging
import threading

from scratchpad_core.service import Scratchpad

log = logging.getLogger("scratchpad")

BATCH = 50  # files and logs a round
PAUSE = 0.02  # seconds between rounds while a backlog lasts


class IndexPass:
    def __init__(self, store: Scratchpad, every: float) -> None:
        self._store = store
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

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
        while not self._stop.is_set():
            step = self._store.catch_up_index(BATCH)
            done += step
            if step < BATCH:
                break
            self._stop.wait(PAUSE)
        return done

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                self.run_once()
            except Exception:  # a pass that fails is logged; the next period tries again (a search catches up)
                log.exception("background index pass failed", extra={"event": "index_pass_failed"})
