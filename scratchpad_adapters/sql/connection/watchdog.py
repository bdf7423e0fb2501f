"""Bounds how long a Postgres call may wait on the network.

A database that stops answering without closing the connection (a frozen host, a stalled proxy,
a partition that TCP does not notice) would leave a call waiting forever: libpq has no per-query
client timeout, and the server's statement_timeout never runs for a query it never received.
The watchdog shuts down the socket of a connection that has waited past its deadline; the
blocked call then fails like a dropped connection ("unreachable ... retry"), the pool discards
the connection, and the next call connects afresh.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, Engine

CALL_TIMEOUT_OPTION = "scratchpad_call_timeout_s"  # an engine execution option; only Postgres engines set it
CHECK_INTERVAL_S = 0.25


class Watchdog:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watched: dict[int, tuple[float, Any]] = {}  # token -> (deadline, DBAPI connection)
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def watching(self, dbapi_connection: Any, seconds: float) -> Iterator[None]:
        """Shut the connection's socket down if the block is still running after `seconds`."""
        token = next(self._tokens)
        with self._lock:
            self._watched[token] = (time.monotonic() + seconds, dbapi_connection)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="scratchpad-db-watchdog", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                self._watched.pop(token, None)  # gone already if it expired

    def _run(self) -> None:
        while True:
            time.sleep(CHECK_INTERVAL_S)
            now = time.monotonic()
            with self._lock:  # held while shutting down: a block that ends meanwhile waits to stop watching
                for token, (deadline, connection) in list(self._watched.items()):
                    if now >= deadline:
                        del self._watched[token]
                        _shut_down(connection)


def _shut_down(dbapi_connection: Any) -> None:
    """Wake whoever waits on this connection: reads and writes on its socket fail from now on."""
    with contextlib.suppress(Exception):
        if dbapi_connection.closed:
            return
        duplicate = socket.socket(fileno=os.dup(dbapi_connection.fileno()))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()


WATCHDOG = Watchdog()


@contextlib.contextmanager
def watched(connection: Connection) -> Iterator[None]:
    """Bound the block's waits on the database by the engine's call timeout (Postgres; SQLite is local)."""
    seconds: float | None = connection.get_execution_options().get(CALL_TIMEOUT_OPTION)
    if seconds is None:
        yield
        return
    with WATCHDOG.watching(connection.connection.dbapi_connection, seconds):
        yield


def watch_pings(engine: Engine, seconds: float) -> None:
    """The pool's pre-ping waits on the network too: bound it like a transaction."""
    ping = engine.dialect.do_ping

    def bounded_ping(dbapi_connection: Any) -> bool:
        with WATCHDOG.watching(dbapi_connection, seconds):
            return ping(dbapi_connection)

    engine.dialect.do_ping = bounded_ping  # type: ignore[method-assign]
