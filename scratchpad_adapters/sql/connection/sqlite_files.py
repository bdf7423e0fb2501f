"""Where a SQLite database file may live: its directory made on first use, and why a path cannot hold one.

SQLite itself only says "unable to open database file"; the cause is one of: a part of the path is a file,
the directory is missing and cannot be made, the directory or the file is not writable (WAL mode writes
`-wal` and `-shm` files beside the database), or the file system is read-only.
"""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError


class SqliteFileError(OSError):
    """A SQLite database cannot be opened or created at `path`, for `cause` (meant for an operator: it names
    a path on the server, so it never reaches an agent)."""

    def __init__(self, path: Path, cause: str) -> None:
        super().__init__(f"cannot use {path} as a SQLite database: {cause}")
        self.path = path
        self.cause = cause


def file_of(url: str | URL) -> Path | None:
    """The file a SQLite URL names; None for another database, an in-memory one or a URL that does not parse."""
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        return None
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:") or "mode=memory" in str(parsed):
        return None
    return Path(database).expanduser()


def prepare(path: Path, *, writable: bool = True) -> None:
    """Make the database's directory if it is missing; SqliteFileError naming the cause if that fails, or if
    the path already shows why SQLite could not write a database there (unless writable=False: a read-only
    URI such as ?mode=ro&uri=true)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SqliteFileError(path, problem(path) or error.strerror or type(error).__name__) from None
    found = problem(path) if writable else None
    if found is not None:
        raise SqliteFileError(path, found)


def problem(path: Path) -> str | None:
    """Why SQLite cannot open (and write) a database at `path`, or None when nothing stands in its way."""
    directory = path.parent
    existing = directory
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return f"{existing} is a file, not a directory"
    if existing != directory:
        blocked = _blocked(existing)
        return f"the directory {directory} does not exist" + (f" and cannot be made: {blocked}" if blocked else "")
    if path.is_dir():
        return f"{path} is a directory"
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        return _blocked(path, "the file") or f"the file {path} is not readable and writable"
    return _blocked(directory)


def _blocked(place: Path, kind: str = "the directory") -> str | None:
    """Why nothing can be written at `place` (a directory, or the file itself), or None if it can."""
    if _read_only_file_system(place):
        return f"{place} is on a read-only file system"
    wanted = os.W_OK | os.X_OK if kind == "the directory" else os.W_OK
    return None if os.access(place, wanted) else f"{kind} {place} is not writable by this user"


def _read_only_file_system(place: Path) -> bool:
    if not hasattr(os, "statvfs"):  # Windows: the error from opening the file says it
        return False
    try:
        return bool(os.statvfs(place).f_flag & os.ST_RDONLY)
    except OSError:
        return False
