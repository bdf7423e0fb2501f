"""The file repository: head rows and versions in, domain dataclasses out.

Statements are built once, with bind parameters, so a call only binds values and reuses
SQLAlchemy's compiled form. The SQL stays visible here.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Sequence
from typing import Any

from sqlalchemy import (
    Connection,
    Select,
    and_,
    bindparam,
    delete,
    func,
    literal_column,
    or_,
    select,
    update,
)

from scratchpad_core.model import Advance, Advanced, FileInfo, FileRecord, NotAdvanced, Version, VersionInfo

from ..connection.execution import run
from ..schema.tables import file_versions, files, summaries
from .file_ages import RECORD_COLUMNS, written_before, written_before_params
from .file_moves import move_heads
from .queries import forgetting, prefix_bounds, under_prefix
from .stamps import SqlStamp
from .upserts import insert_ignore

_STREAM_BATCH = 4  # versions in memory at once while a search streams them: memory that does not grow with a store
f, v, s = files.c, file_versions.c, summaries.c

_HEAD_ROW = RECORD_COLUMNS
_BY_PATH = select(*_HEAD_ROW).where(f.agent_id == bindparam("agent_id"), f.path == bindparam("path"))
_LOCK_BY_PATH = _BY_PATH.with_for_update()
# A deleted file keeps its row as a tombstone: current_version holds minus its last version, so that a
# file written there again continues the numbering (scratchpad_core.numbering: next_number(last) is
# abs(current_version) + 1 here) and a version number never names two contents.
_NEXT = (
    update(files)
    .where(f.agent_id == bindparam("agent"), f.path == bindparam("file_path"), f.sha256 != bindparam("new_sha256"))
    .values(
        current_version=func.abs(f.current_version) + 1,
        bytes=bindparam("new_bytes"),
        sha256=bindparam("new_sha256"),
        updated_at=bindparam("now"),
        changed=bindparam("change"),
    )
    .returning(f.id, f.current_version)
)
_ADVANCE = _NEXT.where(f.current_version > 0)  # a live file
_ADVANCE_FROM = _ADVANCE.where(f.current_version == bindparam("expected"))
_START = _NEXT.where(f.current_version <= 0).values(  # a new row, or a tombstone: a new life from this change
    created_at=bindparam("now"), born=bindparam("change"), moved_from=None
)
_ADD_VERSION = file_versions.insert()
_PRUNE = (
    delete(file_versions)
    .where(v.file_id == bindparam("file_id"), v.version < bindparam("keep_from"))
    .returning(v.bytes)
)
_PRUNE_SUMMARY = delete(summaries).where(s.file_id == bindparam("file_id"), s.version < bindparam("keep_from"))
_VERSION_INFO = (v.version, v.bytes, v.lines, v.sha256, v.created_at, v.actor.label("by"))
_REPLACE_VERSION = (
    update(file_versions)
    .where(v.file_id == bindparam("the_file"), v.version == bindparam("the_version"))
    .values(content=bindparam("content"), bytes=bindparam("size"), lines=bindparam("lines"), sha256=bindparam("sha"))
)
_REDACTED = (
    update(files).where(f.id == bindparam("file_id")).values(redacted=bindparam("change"), changed=bindparam("change"))
)
_VERSION = select(*_VERSION_INFO, v.content).where(v.file_id == bindparam("file_id"), v.version == bindparam("version"))
_VERSIONS = select(*_VERSION_INFO).where(v.file_id == bindparam("file_id")).order_by(v.version)


_DELETE_VERSIONS = delete(file_versions).where(v.file_id == bindparam("file_id")).returning(v.bytes)
_DELETE_SUMMARY = delete(summaries).where(s.file_id == bindparam("file_id"))
_BURY_FILE = (
    update(files)
    .where(f.id == bindparam("file_id"))
    .values(
        current_version=-f.current_version, bytes=0, sha256="", updated_at=bindparam("now"), changed=bindparam("change")
    )
)
_FORGET_FILES = forgetting(  # a literal 0: the tombstones' partial index (tables.TOMBSTONE) holds them all
    files,
    f.current_version < literal_column("0"),
    select(f.agent_id).where(f.id == bindparam("file_id")).scalar_subquery(),
)


_INFO = (f.path, f.current_version, f.bytes, f.created_at, f.updated_at)  # FileInfo's fields, in its order


@functools.cache
def _listing(info: bool, prefixed: bool, after: bool, limited: bool) -> Select[Any]:
    query = select(*_INFO) if info else select(*_HEAD_ROW)
    query = query.where(f.agent_id == bindparam("agent_id"), f.current_version > 0, under_prefix(f.path, prefixed))
    if after:
        query = query.where(f.path > bindparam("after"))
    query = query.order_by(f.path)
    return query.limit(bindparam("limit")) if limited else query


_EVERY_AGENTS_FILES = (
    select(*_HEAD_ROW).where(f.current_version > 0).order_by(f.agent_id, f.path).limit(bindparam("limit"))
)
_EVERY_AGENTS_FILES_AFTER = _EVERY_AGENTS_FILES.where(
    or_(f.agent_id > bindparam("agent_id"), and_(f.agent_id == bindparam("agent_id"), f.path > bindparam("path")))
)


def _record(row: Any) -> FileRecord | None:
    """The domain's view of a file row: a tombstone reads as a file at version 0, one that does not exist."""
    if row is None:
        return None
    record = FileRecord(**row)
    return record if record.current_version >= 0 else dataclasses.replace(record, current_version=0)


class SqlFileRepository:
    def __init__(self, connection: Connection, stamp: SqlStamp) -> None:
        self._c = connection
        self._stamp = stamp

    def get(self, agent_id: str, path: str) -> FileRecord | None:
        return self._owned(_record(run(self._c, _BY_PATH, {"agent_id": agent_id, "path": path}).first()))

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> FileRecord | None:
        if writes:
            self._stamp.number(agent_id)  # the agent's row first (stamps.py: one lock order)
        return self._owned(_record(run(self._c, _LOCK_BY_PATH, {"agent_id": agent_id, "path": path}).first()))

    def _owned(self, record: FileRecord | None) -> FileRecord | None:
        if record is not None:
            self._stamp.owners["file", record.id] = record.agent_id
        return record

    def lock_or_create(self, agent_id: str, path: str, now: int) -> FileRecord:
        self._stamp.number(agent_id)
        # Insert first: the callers come here for a path that advance() just found missing, or for a move's
        # destination, so the row is usually absent and a lock first would be a query for nothing.
        fresh = {"agent_id": agent_id, "path": path, "current_version": 0, "bytes": 0, "sha256": ""}
        run(
            self._c,
            insert_ignore(self._c, files, ["agent_id", "path"]),
            {**fresh, "created_at": now, "updated_at": now},
        )
        record = self.lock(agent_id, path)
        assert record is not None, "inserted, or inserted meanwhile by a concurrent writer"
        return record

    def advance(self, agent_id: str, path: str, head: Version, expected: int | None) -> Advance:
        params = {"agent": agent_id, "file_path": path, "new_sha256": head.sha256, "new_bytes": head.bytes,
                  "now": head.created_at, "expected": expected, "change": self._stamp.number(agent_id)}  # fmt: skip
        if expected is None:
            del params["expected"]
        statement = _ADVANCE if expected is None else _START if expected == 0 else _ADVANCE_FROM
        row = run(self._c, statement, params).first()
        if row is None:
            # Refused, or another writer committed in between (READ COMMITTED): decide on the locked row.
            refusal = NotAdvanced.of(self.lock(agent_id, path), head, expected)
            if refusal is not None:
                return refusal
            row = run(self._c, statement, params).first()  # the row is locked now: this one decides
            assert row is not None, "a locked row that may advance does"
        self._stamp.owners["file", row.id] = agent_id
        return Advanced(row.id, row.current_version, created=expected == 0)

    def add_version(self, file_id: int, version: Version) -> None:
        values = {**vars(version), "file_id": file_id, "change": self._stamp.of_file(file_id)}
        values["actor"] = values.pop("by")
        run(self._c, _ADD_VERSION, values)

    def prune(self, file_id: int, keep_from: int) -> tuple[int, int]:
        if keep_from <= 1:
            return 0, 0
        params = {"file_id": file_id, "keep_from": keep_from}
        gone = run(self._c, _PRUNE, params).scalars()
        run(self._c, _PRUNE_SUMMARY, params)  # a summary is of a retained version (db check's summary-version)
        return len(gone), sum(gone)

    def get_version(self, file_id: int, version: int) -> Version | None:
        row = run(self._c, _VERSION, {"file_id": file_id, "version": version}).first()
        return None if row is None else Version(**row)

    def list_versions(self, file_id: int) -> list[VersionInfo]:
        return [VersionInfo(**row) for row in run(self._c, _VERSIONS, {"file_id": file_id})]

    def replace_content(self, file_id: int, version: Version) -> None:
        params = {"the_file": file_id, "the_version": version.version, "content": version.content}
        run(self._c, _REPLACE_VERSION, {**params, "size": version.bytes, "lines": version.lines, "sha": version.sha256})
        run(self._c, _REDACTED, {"file_id": file_id, "change": self._stamp.of_file(file_id)})

    def list_all(self, after: tuple[str, str] | None, limit: int) -> list[FileRecord]:
        query = _EVERY_AGENTS_FILES if after is None else _EVERY_AGENTS_FILES_AFTER
        agent_id, path = after or ("", "")
        return [FileRecord(**row) for row in run(self._c, query, {"agent_id": agent_id, "path": path, "limit": limit})]

    def written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str], limit: int | None
    ) -> list[FileRecord]:
        params = written_before_params(agent_id, prefix, before, excluding)
        if limit is not None:
            params["limit"] = limit
        query = written_before(False, bool(prefix), len(excluding), limit is not None)
        return [FileRecord(**row) for row in run(self._c, query, params)]

    def stored_written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str]
    ) -> tuple[int, int]:
        params = written_before_params(agent_id, prefix, before, excluding)
        count, size = run(self._c, written_before(True, bool(prefix), len(excluding), False), params).values[0]
        return int(count), int(size)

    def listing(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileInfo]:
        return [FileInfo(*row) for row in self._listed(True, agent_id, prefix, after, limit)]  # in its order

    def _listed(self, info: bool, agent_id: str, prefix: str, after: str | None, limit: int | None) -> Sequence[Any]:
        params: dict[str, Any] = {"agent_id": agent_id, **prefix_bounds(prefix)}
        if after is not None:
            params["after"] = after
        if limit is not None:
            params["limit"] = limit
        return run(self._c, _listing(info, bool(prefix), after is not None, limit is not None), params).values

    def list(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileRecord]:
        return [FileRecord(*row) for row in self._listed(False, agent_id, prefix, after, limit)]  # in its order

    def iter_current(self, agent_id: str, prefix: str) -> Iterator[tuple[str, str]]:
        query = (
            select(f.path, v.content)
            .join(file_versions, and_(v.file_id == f.id, v.version == f.current_version))
            .where(f.agent_id == agent_id, under_prefix(f.path, bool(prefix)))
            .order_by(f.path)
            .execution_options(yield_per=_STREAM_BATCH)
        )
        # Streamed through SQLAlchemy (a server-side cursor on Postgres): an agent may store 100 MiB.
        for row in self._c.execute(query, prefix_bounds(prefix)):
            yield row.path, row.content

    def delete(self, file_id: int, now: int, remember: int) -> tuple[int, int]:
        params = {"file_id": file_id}
        gone = run(self._c, _DELETE_VERSIONS, params).scalars()
        run(self._c, _DELETE_SUMMARY, params)
        run(self._c, _BURY_FILE, {**params, "now": now, "change": self._stamp.of_file(file_id)})
        run(self._c, _FORGET_FILES, {**params, "keep": remember})
        return len(gone), sum(gone)

    def move(self, moves: Sequence[tuple[int, int]], now: int, remember: int) -> Sequence[int]:
        change = self._stamp.of_file(moves[0][0]) if moves else 0
        numbers = move_heads(self._c, moves, now, change)
        for from_id, _ in moves:
            run(self._c, _BURY_FILE, {"file_id": from_id, "now": now, "change": change})
        if moves:
            run(self._c, _FORGET_FILES, {"file_id": moves[0][0], "keep": remember})
        return numbers
