"""An in-memory store in plain Python: the same behaviour as the SQL adapters, for tests and short-lived use.

Open one with `scratchpad_adapters.open_store("memory://")` (a store of its own) or `"memory://NAME"`
(the store every opening of NAME in this process shares, while any is open).
"""

from .file_repository import MemoryFileRepository
from .keys import MemoryKeyStore, MemoryRateLimiter
from .log_repository import MemoryLogRepository
from .store import MemoryConnection, MemoryStore, connect, is_memory_url
from .summary_repository import MemorySummaryRepository
from .unit_of_work import MemoryUnitOfWork
from .usage_repository import MemoryUsageRepository

__all__ = [
    "MemoryConnection",
    "MemoryFileRepository",
    "MemoryKeyStore",
    "MemoryLogRepository",
    "MemoryRateLimiter",
    "MemoryStore",
    "MemorySummaryRepository",
    "MemoryUnitOfWork",
    "MemoryUsageRepository",
    "connect",
    "is_memory_url",
]
