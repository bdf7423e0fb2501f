"""Driver errors translated into the domain's, in one place: busy (retry), read-only, or unreachable (retry)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import exc

from scratchpad_core.errors import StorageBusy, StorageError, StorageUnavailable

_PG_READ_ONLY = "25006"  # read_only_sql_transaction
_PG_BUSY_STATES = {"40001", "40P01", "55P03"}  # serialization failure, deadlock, lock not available
_PG_GONE_CLASSES = ("08", "57P01", "57P02", "57P03")  # connection exceptions, admin/crash shutdown
_GONE_WORDS = ("connection", "server closed", "could not connect", "terminating")


@contextlib.contextmanager
def classified() -> Iterator[None]:
    """Driver errors raised in the block become the domain's (busy or unavailable: retry) where they can."""
    try:
        yield
    except exc.DBAPIError as error:
        raise (classify(error) or error) from error


BUSY = "The database is busy with other writers; nothing was changed. Retry the call."


def classify(error: exc.DBAPIError) -> StorageError | None:
    """The domain's error for this driver error, or None for one that means none of these (let it show)."""
    original = error.orig
    state = getattr(original, "sqlstate", None) or ""
    message = str(original).lower()
    if state in _PG_BUSY_STATES or "database is locked" in message or "database is busy" in message:
        return StorageBusy(BUSY)
    if state == _PG_READ_ONLY or "readonly database" in message:
        return StorageError(
            "The database is read-only (an administrator set it so, or it is a replica); nothing was changed. "
            "Every call records its use, so calls fail until the database accepts writes again; retry then."
        )
    if isinstance(error, exc.IntegrityError):
        return StorageBusy("A concurrent change collided with this one; nothing was changed. Retry the call.")
    gone = error.connection_invalidated or state.startswith(_PG_GONE_CLASSES) or isinstance(error, exc.InterfaceError)
    if gone or (isinstance(error, exc.OperationalError) and any(word in message for word in _GONE_WORDS)):
        return StorageUnavailable(
            "The database is unreachable or dropped the connection; nothing was committed. Retry in a moment."
        )
    return None
