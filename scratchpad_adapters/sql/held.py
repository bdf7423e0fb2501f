"""One SQLite connection kept out of the pool for the thread that runs units of work most: the first to run one.

Over stdio every call runs on the event loop's thread, so all of them get it; over HTTP one worker thread does
and the others share the pool as before. A checkout and a checkin through the pool, with the Connection built
around them, were about 9 µs of a unit of work's 27 µs in process, and several times that in a server answering
one call after another (a 1 KiB read_file took 45 µs less of its server CPU, issue 9). Only SQLite files: a
PostgreSQL connection has the pool's checks and the watchdog to go through, and an in-memory database has one
connection, which the pool hands to one unit of work at a time.

The pool's listeners (the SQLite change feed installs its triggers at a checkout and tells what was committed at
a checkin) are told of a checkout and a checkin around each unit of work on the held connection, as if it had
gone through the pool.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from sqlalchemy import Connection, Engine, exc


class HeldConnection:
    """The connection one thread's units of work use without the pool (see the module's docstring)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._owner: int | None = None
        self._connection: Connection | None = None
        self._busy = False
        self._closed = False
        self._lock = threading.Lock()

    def take(self) -> Connection | None:
        """The held connection, for this thread's next unit of work, or None: take one from the pool (another
        thread's unit of work, one within another, or after close). May raise what connecting raises."""
        me = threading.get_ident()
        if self._owner != me:
            with self._lock:
                if self._owner is None and not self._closed:
                    self._owner = me
            if self._owner != me:
                return None
        if self._busy or self._closed:
            return None
        connection = self._connection
        if connection is not None and (connection.closed or connection.invalidated):
            self._drop()
            connection = None
        if connection is None:
            connection = self._connection = self._engine.connect()  # the pool tells its listeners itself
        else:
            fairy = connection.connection
            self._engine.pool.dispatch.checkout(fairy.dbapi_connection, _record(fairy), fairy)
        self._busy = True
        return connection

    def give_back(self) -> None:
        """The unit of work on the held connection is over (its transaction committed or rolled back)."""
        self._busy = False
        connection = self._connection
        if connection is None:
            return
        if connection.closed or connection.invalidated:
            self._drop()
            return
        fairy = connection.connection
        self._engine.pool.dispatch.checkin(fairy.dbapi_connection, _record(fairy))

    def close(self) -> None:
        """Return the connection to the pool (before the engine is disposed); later units of work use the pool."""
        with self._lock:
            self._closed = True
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
