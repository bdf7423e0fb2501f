"""Repositories: rows in, domain dataclasses out. The SQL stays visible."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import Connection, and_, delete, select, update

from scratchpad_core.limits import Limits
from scratchpad_core.model import FileRecord, LogEntry, LogRecord, Usage, UsageDelta, Version, VersionInfo

from .dialect import insert_ignore, upsert
from .tables import agents, file_versions, files, log_entries, logs, summaries

_STREAM_BATCH = 50


def prefix_range(column: Any, prefix: str) -> Any:
    """A literal, case-sensitive prefix match that can use the (agent_id, path) index."""
    if not prefix:
        return and_(True)
    upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    return and_(column >= prefix, column < upper)


class SqlFileRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def _select(self, agent_id: str, path: str) -> Any:
        return select(files).where(files.c.agent_id == agent_id, files.c.path == path)

    def get(self, agent_id: str, path: str) -> FileRecord | None:
        row = self._c.execute(self._select(agent_id, path)).first()
        return None if row is None else FileRecord(**row._mapping)

    def lock(self, agent_id: str, path: str) -> FileRecord | None:
        row = self._c.execute(self._select(agent_id, path).with_for_update()).first()
        return None if row is None else FileRecord(**row._mapping)

    def lock_or_create(self, agent_id: str, path: str, now: int) -> FileRecord:
        fresh = dict(
            agent_id=agent_id, path=path, current_version=0, bytes=0, sha256="", created_at=now, updated_at=now
        )
        self._c.execute(insert_ignore(self._c, files, fresh, ["agent_id", "path"]))
        record = self.lock(agent_id, path)
        assert record is not None, "inserted or already present"
        return record

    def bump_version(self, file_id: int, expected: int, head: Version) -> bool:
        result = self._c.execute(
            update(files)
            .where(files.c.id == file_id, files.c.current_version == expected)
            .values(current_version=head.version, bytes=head.bytes, sha256=head.sha256, updated_at=head.created_at)
        )
        return result.rowcount == 1

    def add_version(self, file_id: int, version: Version) -> None:
        self._c.execute(
            file_versions.insert().values(
                file_id=file_id,
                version=version.version,
                content=version.content,
                bytes=version.bytes,
                lines=version.lines,
                sha256=version.sha256,
                created_at=version.created_at,
            )
        )

    def prune(self, file_id: int, keep_from: int) -> tuple[int, int]:
        gone = (
            self._c.execute(
                delete(file_versions)
                .where(file_versions.c.file_id == file_id, file_versions.c.version < keep_from)
                .returning(file_versions.c.bytes)
            )
            .scalars()
            .all()
        )
        return len(gone), sum(gone)

    def get_version(self, file_id: int, version: int) -> Version | None:
        row = self._c.execute(
            select(file_versions).where(file_versions.c.file_id == file_id, file_versions.c.version == version)
        ).first()
        if row is None:
            return None
        values = dict(row._mapping)
        del values["file_id"]
        return Version(**values)

    def list_versions(self, file_id: int) -> list[VersionInfo]:
        c = file_versions.c
        rows = self._c.execute(
            select(c.version, c.bytes, c.lines, c.sha256, c.created_at).where(c.file_id == file_id).order_by(c.version)
        )
        return [VersionInfo(**row._mapping) for row in rows]

    def list(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileRecord]:
        query = select(files).where(files.c.agent_id == agent_id, prefix_range(files.c.path, prefix))
        if after is not None:
            query = query.where(files.c.path > after)
        rows = self._c.execute(query.order_by(files.c.path).limit(limit))
        return [FileRecord(**row._mapping) for row in rows]

    def iter_current(self, agent_id: str, prefix: str) -> Iterator[tuple[str, str]]:
        query = (
            select(files.c.path, file_versions.c.content)
            .join(
                file_versions,
                and_(file_versions.c.file_id == files.c.id, file_versions.c.version == files.c.current_version),
            )
            .where(files.c.agent_id == agent_id, prefix_range(files.c.path, prefix))
            .order_by(files.c.path)
            .execution_options(yield_per=_STREAM_BATCH)
        )
        for row in self._c.execute(query):
            yield row.path, row.content

    def delete(self, file_id: int) -> tuple[int, int]:
        gone = (
            self._c.execute(
                delete(file_versions).where(file_versions.c.file_id == file_id).returning(file_versions.c.bytes)
            )
            .scalars()
            .all()
        )
        self._c.execute(delete(summaries).where(summaries.c.file_id == file_id))
        self._c.execute(delete(files).where(files.c.id == file_id))
        return len(gone), sum(gone)


class SqlLogRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def _select(self, agent_id: str, path: str) -> Any:
        return select(logs).where(logs.c.agent_id == agent_id, logs.c.path == path)

    def get(self, agent_id: str, path: str) -> LogRecord | None:
        row = self._c.execute(self._select(agent_id, path)).first()
        return None if row is None else LogRecord(**row._mapping)

    def lock(self, agent_id: str, path: str) -> LogRecord | None:
        row = self._c.execute(self._select(agent_id, path).with_for_update()).first()
        return None if row is None else LogRecord(**row._mapping)

    def lock_or_create(self, agent_id: str, path: str, now: int) -> LogRecord:
        fresh = dict(agent_id=agent_id, path=path, last_entry_id=0, entries=0, bytes=0, created_at=now, updated_at=now)
        self._c.execute(insert_ignore(self._c, logs, fresh, ["agent_id", "path"]))
        record = self.lock(agent_id, path)
        assert record is not None, "inserted or already present"
        return record

    def append(self, log_id: int, entry: str, size: int, now: int) -> int:
        entry_id: int = self._c.execute(
            update(logs)
            .where(logs.c.id == log_id)
            .values(
                last_entry_id=logs.c.last_entry_id + 1,
                entries=logs.c.entries + 1,
                bytes=logs.c.bytes + size,
                updated_at=now,
            )
            .returning(logs.c.last_entry_id)
        ).scalar_one()
        self._c.execute(
            log_entries.insert().values(log_id=log_id, entry_id=entry_id, entry=entry, bytes=size, created_at=now)
        )
        return entry_id

    def entries(self, log_id: int, after: int, limit: int) -> list[LogEntry]:
        c = log_entries.c
        rows = self._c.execute(
            select(c.entry_id, c.entry, c.created_at)
            .where(c.log_id == log_id, c.entry_id > after)
            .order_by(c.entry_id)
            .limit(limit)
        )
        return [LogEntry(id=r.entry_id, entry=r.entry, created_at=r.created_at) for r in rows]

    def list(self, agent_id: str, prefix: str) -> list[LogRecord]:
        rows = self._c.execute(
            select(logs).where(logs.c.agent_id == agent_id, prefix_range(logs.c.path, prefix)).order_by(logs.c.path)
        )
        return [LogRecord(**row._mapping) for row in rows]

    def delete(self, log_id: int) -> tuple[int, int]:
        self._c.execute(delete(log_entries).where(log_entries.c.log_id == log_id))
        row = self._c.execute(delete(logs).where(logs.c.id == log_id).returning(logs.c.entries, logs.c.bytes)).one()
        return row.entries, row.bytes


class SqlSummaryRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, file_id: int, version: int) -> str | None:
        found: str | None = self._c.execute(
            select(summaries.c.summary).where(summaries.c.file_id == file_id, summaries.c.version == version)
        ).scalar()
        return found

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None:
        values = dict(file_id=file_id, version=version, summary=summary, model=model, created_at=now)
        self._c.execute(upsert(self._c, summaries, values, ["file_id"]))


class SqlUsageRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, agent_id: str) -> Usage:
        row = self._c.execute(select(agents).where(agents.c.agent_id == agent_id)).first()
        if row is None:
            return Usage(agent_id)
        return Usage(**row._mapping)

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> bool:
        c = agents.c
        stmt = update(agents).where(c.agent_id == agent_id)
        for column, change, quota in (
            (c.files, delta.files, limits.quota_files),
            (c.log_entries, delta.log_entries, limits.quota_log_entries),
            (c.bytes, delta.bytes, limits.quota_bytes),
        ):
            if change > 0:
                stmt = stmt.where(column + change <= quota)
        stmt = stmt.values(
            files=c.files + delta.files,
            logs=c.logs + delta.logs,
            log_entries=c.log_entries + delta.log_entries,
            bytes=c.bytes + delta.bytes,
            operations=c.operations + delta.operations,
            bytes_saved=c.bytes_saved + delta.bytes_saved,
        )
        if self._c.execute(stmt).rowcount == 1:
            return True
        zero = dict(agent_id=agent_id, files=0, logs=0, log_entries=0, bytes=0, operations=0, bytes_saved=0)
        created = self._c.execute(insert_ignore(self._c, agents, zero, ["agent_id"]).returning(agents.c.agent_id))
        if created.first() is None:
            return False  # the row exists, so the update was refused by a quota
        return self._c.execute(stmt).rowcount == 1
