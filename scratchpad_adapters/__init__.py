"""Adapters for scratchpad_core: SQL storage (SQLite, Postgres), in-memory storage, the Anthropic summarizer,
bounded regex."""

from .factory import Backend, MemoryBackend, SqlBackend, default_database_path, open_backend, open_store, sqlite_url
from .memory import (
    MemoryDatabase,
    MemoryFileRepository,
    MemoryLogRepository,
    MemorySummaryRepository,
    MemoryUnitOfWork,
    MemoryUsageRepository,
)

__all__ = [
    "Backend",
    "MemoryBackend",
    "MemoryDatabase",
    "MemoryFileRepository",
    "MemoryLogRepository",
    "MemorySummaryRepository",
    "MemoryUnitOfWork",
    "MemoryUsageRepository",
    "SqlBackend",
    "default_database_path",
    "open_backend",
    "open_store",
    "sqlite_url",
]
