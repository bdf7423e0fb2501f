"""The summary repository on the in-memory tables: one cached summary per file, for one version."""

from __future__ import annotations

from .database import SummaryRow, Transaction


class MemorySummaryRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def get(self, file_id: int, version: int) -> str | None:
        row = self._tx.tables.summaries.get(file_id)
        return row.summary if row is not None and row.version == version else None

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None:
        self._tx.change().summaries[file_id] = SummaryRow(version, summary, model, now)

    def drop(self, file_id: int) -> None:
        if file_id in self._tx.tables.summaries:
            del self._tx.change().summaries[file_id]
