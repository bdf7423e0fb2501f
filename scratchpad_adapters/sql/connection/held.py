"""One SQLite connection kept out of the pool, for the units of work that find it free (over stdio all of them:
calls run one at a time; over HTTP one worker thread's at a time, the others' go through the pool as before).

A checkout and a checkin through the pool, with the Connection built around them, were about 9 µs of a unit of
work's 27 µs in process, and several times that in a server answering one call after another (a 1 KiB read_file
took 45 µs less of its server CPU, issue 9). Only SQLite files: a PostgreSQL connection has the pool's checks and
the watchdog to go through, and an in-memory database has one connection, which the pool hands to one unit of work
at a time.

The pool's listeners (the SQLite change feed installs its triggers at a checkout and tells what was committed at
a checkin) are told of a checkout and a checkin around each unit of work on the held connection, and a transaction
left open is rolled back at the end of one, as the pool would do.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from sqlalchemy import Connection, Engine, exc


class HeldConnection:
    """The connection units of work use without the pool while it is free (see the module's docstring)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Connection | None = None
        self._busy = False
        self._closed = False
        self._lock = threading.Lock()

    def take(self) -> Connection | None:
        """The held connection for the caller's unit of work, or None: take one from the pool (it is in use, or
        the store is closing). May raise what connecting raises."""
        with self._lock:
            if self._busy or self._closed:
                return None
            self._busy = True
        try:
            connection = self._connection
            if connection is not None and (connection.closed or connection.invalidated):
                self._drop()
                connection = None
            if connection is None:
                connection = self._connection = self._engine.connect()  # the pool tells its listeners itself
            else:
                fairy = connection.connection
                self._engine.pool.dispatch.checkout(fairy.dbapi_connection, _record(fairy), fairy)
        except BaseException:
            self._busy = False
            raise
        return connection

    def give_back(self) -> None:
        """The unit of work on the held connection is over (its transaction committed or rolled back)."""
        connection = self._connection
        gone = connection is None or connection.closed or connection.invalidated
        if connection is not None and not gone:
            fairy = connection.connection
            raw = fairy.dbapi_connection
            if raw is not None and raw.in_transaction:  # a COMMIT that failed: as the pool resets a connection
                with contextlib.suppress(Exception):
                    raw.rollback()
            self._engine.pool.dispatch.checkin(raw, _record(fairy))
        with self._lock:  # one step with close(): one of the two lets the connection go
            self._busy = False
            gone = gone or self._closed
        if gone:
            self._drop()

    def close(self) -> None:
        """Later units of work use the pool; the connection goes back to it now, or, if a unit of work is still
        running on it (another thread's), when that one ends."""
        with self._lock:
            self._closed = True
            busy = self._busy
        if not busy:
            self._drop()

    def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(exc.SQLAlchemyError):
                connection.close()


def _record(fairy: Any) -> Any:
    """The pool's record of a checked-out connection, which pool listeners are given (SQLAlchemy keeps it on
    the proxy it hands out, under a private name)."""
    return fairy._connection_record
