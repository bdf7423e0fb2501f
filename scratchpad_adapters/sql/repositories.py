"""File and summary repositories: rows in, domain dataclasses out.

Statements are built once, with bind parameters, so a call only binds values and reuses
SQLAlchemy's compiled form. The SQL stays visible here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, and_, bindparam, delete, select, update

from scratchpad_core.model import FileRecord, Version, VersionInfo

from .dialect import insert_ignore, upsert
from .tables import file_versions, files, summaries

_STREAM_BATCH = 50
f, v, s = files.c, file_versions.c, summaries.c

_BY_PATH = select(files).where(f.agent_id == bindparam("agent_id"), f.path == bindparam("path"))
_LOCK_BY_PATH = _BY_PATH.with_for_update()
_ADVANCE = (
    update(files)
    .where(f.agent_id == bindparam("agent"), f.path == bindparam("file_path"), f.sha256 != bindparam("new_sha256"))
    .values(
        current_version=f.current_version + 1,
        bytes=bindparam("new_bytes"),
        sha256=bindparam("new_sha256"),
        updated_at=bindparam("now"),
    )
    .returning(f.id, f.current_version)
)
_ADVANCE_FROM = _ADVANCE.where(f.current_version == bindparam("expected"))
_ADD_VERSION = file_versions.insert()
_PRUNE = (
    delete(file_versions)
    .where(v.file_id == bindparam("file_id"), v.version < bindparam("keep_from"))
    .returning(v.bytes)
)
_VERSION = select(file_versions).where(v.file_id == bindparam("file_id"), v.version == bindparam("version"))
_VERSIONS = select(v.version, v.bytes, v.lines, v.sha256, v.created_at).where(v.file_id == bindparam("file_id"))
_DELETE_VERSIONS = delete(file_versions).where(v.file_id == bindparam("file_id")).returning(v.bytes)
_DELETE_SUMMARY = delete(summaries).where(s.file_id == bindparam("file_id"))
_DELETE_FILE = delete(files).where(f.id == bindparam("file_id"))
_SUMMARY = select(s.summary).where(s.file_id == bindparam("file_id"), s.version == bindparam("version"))


def prefix_range(column: Any, prefix: str) -> Any:
    """A literal, case-sensitive prefix match that can use the (agent_id, path) index."""
    if not prefix:
        return and_(True)
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    return and_(column >= prefix, column < upper)


class SqlFileRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, agent_id: str, path: str) -> FileRecord | None:
        row = self._c.execute(_BY_PATH, {"agent_id": agent_id, "path": path}).first()
        return None if row is None else FileRecord(**row._mapping)

    def lock(self, agent_id: str, path: str) -> FileRecord | None:
        row = self._c.execute(_LOCK_BY_PATH, {"agent_id": agent_id, "path": path}).first()
        return None if row is None else FileRecord(**row._mapping)

    def lock_or_create(self, agent_id: str, path: str, now: int) -> FileRecord:
        record = self.lock(agent_id, path)
        if record is not None:
            return record
        fresh = {"agent_id": agent_id, "path": path, "current_version": 0, "bytes": 0, "sha256": ""}
        self._c.execute(
            insert_ignore(self._c, files, ["agent_id", "path"]), {**fresh, "created_at": now, "updated_at": now}
        )
        record = self.lock(agent_id, path)
        assert record is not None, "inserted, or inserted meanwhile by a concurrent writer"
        return record

    def advance(self, agent_id: str, path: str, head: Version, expected: int | None) -> tuple[int, int] | None:
        params = {"agent": agent_id, "file_path": path, "new_sha256": head.sha256, "new_bytes": head.bytes,
                  "now": head.created_at, "expected": expected}  # fmt: skip
        row = self._c.execute(_ADVANCE if expected is None else _ADVANCE_FROM, params).first()
        return None if row is None else (row.id, row.current_version)

    def add_version(self, file_id: int, version: Version) -> None:
        self._c.execute(_ADD_VERSION, {**vars(version), "file_id": file_id})

    def prune(self, file_id: int, keep_from: int) -> tuple[int, int]:
        if keep_from <= 1:
            return 0, 0
        gone = self._c.execute(_PRUNE, {"file_id": file_id, "keep_from": keep_from}).scalars().all()
        return len(gone), sum(gone)

    def get_version(self, file_id: int, version: int) -> Version | None:
        row = self._c.execute(_VERSION, {"file_id": file_id, "version": version}).first()
        if row is None:
            return None
        values = dict(row._mapping)
        del values["file_id"]
        return Version(**values)

    def list_versions(self, file_id: int) -> list[VersionInfo]:
        rows = self._c.execute(_VERSIONS.order_by(v.version), {"file_id": file_id})
        return [VersionInfo(**row._mapping) for row in rows]

    def list(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileRecord]:
        query = select(files).where(f.agent_id == agent_id, prefix_range(f.path, prefix))
        if after is not None:
            query = query.where(f.path > after)
        rows = self._c.execute(query.order_by(f.path).limit(limit))
        return [FileRecord(**row._mapping) for row in rows]

    def iter_current(self, agent_id: str, prefix: str) -> Iterator[tuple[str, str]]:
        query = (
            select(f.path, v.content)
            .join(file_versions, and_(v.file_id == f.id, v.version == f.current_version))
            .where(f.agent_id == agent_id, prefix_range(f.path, prefix))
            .order_by(f.path)
            .execution_options(yield_per=_STREAM_BATCH)
        )
        for row in self._c.execute(query):
            yield row.path, row.content

    def delete(self, file_id: int) -> tuple[int, int]:
        params = {"file_id": file_id}
        gone = self._c.execute(_DELETE_VERSIONS, params).scalars().all()
        self._c.execute(_DELETE_SUMMARY, params)
        self._c.execute(_DELETE_FILE, params)
        return len(gone), sum(gone)


class SqlSummaryRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, file_id: int, version: int) -> str | None:
        found: str | None = self._c.execute(_SUMMARY, {"file_id": file_id, "version": version}).scalar()
        return found

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None:
        values = {"file_id": file_id, "version": version, "summary": summary, "model": model, "created_at": now}
        self._c.execute(upsert(self._c, summaries, ["file_id"], list(values)), values)
