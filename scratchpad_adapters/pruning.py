"""The background prune: every `every` seconds, the store's retention rules applied (Scratchpad.prune: bounded
batches, a transaction each). On PostgreSQL one replica at a time: a run takes a session advisory lock, and a
replica that finds it held skips its turn (the holder is doing the same work)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from sqlalchemy import text

from scratchpad_core.results import PruneResult

from .factory import Backend, SqlBackend

log = logging.getLogger("scratchpad")

ADVISORY_KEY = 0x5C7A_7C4D_0024  # "scratchpad, issue 24": the key every replica's prune takes


class Pruner:
    def __init__(self, backend: Backend, every: float) -> None:
        self._backend = backend
        self._every = every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Prune in a daemon thread, the first time one period after start-up (0: never)."""
        if self._every <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="scratchpad-prune", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def run_once(self) -> PruneResult | None:
        """One prune; None when another replica holds the turn."""
        with self._turn() as mine:
            if not mine:
                return None
            return self._backend.store.prune()

    def _loop(self) -> None:
        while not self._stop.wait(self._every):
            try:
                done = self.run_once()
            except Exception:  # a prune that fails is logged; the next period tries again
                log.exception("background prune failed", extra={"event": "prune_failed"})
                continue
            if done is not None and (done.entries_dropped or done.files_expired):
                log.info(
                    "pruned %d entries of %d logs, %d expired files", done.entries_dropped, done.logs_trimmed,
                    done.files_expired, extra={"event": "prune", "entries": done.entries_dropped,
                                               "logs": done.logs_trimmed, "files": done.files_expired},
                )  # fmt: skip

    @contextlib.contextmanager
    def _turn(self) -> Iterator[bool]:
        backend = self._backend
        if not isinstance(backend, SqlBackend) or backend.engine.dialect.name != "postgresql":
            yield True  # SQLite's writers take turns anyway; memory is one process's
            return
        with backend.engine.connect() as connection:
            taken = connection.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": ADVISORY_KEY}).scalar()
            connection.commit()
            try:
                yield bool(taken)
            finally:
                if taken:
                    connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": ADVISORY_KEY})
                    connection.commit()
