"""Adapters for scratchpad_core: SQL storage (SQLite, Postgres), in-memory storage, the Anthropic summarizer,
Claude's memory tool, bounded regex."""

from typing import TYPE_CHECKING, Any

from .factory import Backend, MemoryBackend, SqlBackend, default_database_path, open_backend, open_store, sqlite_url
from .memory import (
    MemoryDatabase,
    MemoryFileRepository,
    MemoryLogRepository,
    MemorySummaryRepository,
    MemoryUnitOfWork,
    MemoryUsageRepository,
)

if TYPE_CHECKING:
    from .memory_tool import AsyncScratchpadMemoryTool, ScratchpadMemoryTool

__all__ = [
    "AsyncScratchpadMemoryTool",
    "Backend",
    "MemoryBackend",
    "MemoryDatabase",
    "MemoryFileRepository",
    "MemoryLogRepository",
    "MemorySummaryRepository",
    "MemoryUnitOfWork",
    "MemoryUsageRepository",
    "ScratchpadMemoryTool",
    "SqlBackend",
    "default_database_path",
    "open_backend",
    "open_store",
    "sqlite_url",
]

_MEMORY_TOOL = ("AsyncScratchpadMemoryTool", "ScratchpadMemoryTool")  # loaded when asked for: the SDK takes ~1 s


def __getattr__(name: str) -> Any:
    if name in _MEMORY_TOOL:
        from . import memory_tool

        return getattr(memory_tool, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
