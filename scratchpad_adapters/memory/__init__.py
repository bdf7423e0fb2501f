"""An in-memory store in plain Python: the same behaviour as the SQL adapters, for tests and short-lived use.

Open one with `scratchpad_adapters.open_store("memory://")` (a store of its own) or `"memory://NAME"`
(the store every opening of NAME in this process shares, while any is open).
"""

from .database import MemoryConnection, MemoryDatabase, connect, is_memory_url
from .file_repository import MemoryFileRepository
from .keys import MemoryKeyStore, MemoryRateLimiter
from .log_repository import MemoryLogRepository
from .summary_repository import MemorySummaryRepository
from .unit_of_work import MemoryUnitOfWork
from .usage_repository import MemoryUsageRepository

__all__ = [
    "MemoryConnection",
    "MemoryDatabase",
    "MemoryFileRepository",
    "MemoryKeyStore",
    "MemoryLogRepository",
    "MemoryRateLimiter",
    "MemorySummaryRepository",
    "MemoryUnitOfWork",
    "MemoryUsageRepository",
    "connect",
    "is_memory_url",
]
