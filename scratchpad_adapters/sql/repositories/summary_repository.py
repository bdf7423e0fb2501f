"""The summary repository: one cached summary per file, for one version."""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, delete, select

from ..connection.execution import run
from ..schema.tables import summaries
from .upserts import upsert

s = summaries.c
_DROP = delete(summaries).where(s.file_id == bindparam("file_id"))
_SUMMARY = select(s.summary).where(s.file_id == bindparam("file_id"), s.version == bindparam("version"))


class SqlSummaryRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, file_id: int, version: int) -> str | None:
        found: str | None = run(self._c, _SUMMARY, {"file_id": file_id, "version": version}).scalar()
        return found

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None:
        values = {"file_id": file_id, "version": version, "summary": summary, "model": model, "created_at": now}
        run(self._c, upsert(self._c, summaries, ["file_id"], list(values)), values)

    def drop(self, file_id: int) -> None:
        run(self._c, _DROP, {"file_id": file_id})
