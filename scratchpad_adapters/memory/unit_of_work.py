"""One in-memory transaction per use case: a writer holds the store's lock; leaving without commit drops its work."""

from __future__ import annotations

from types import TracebackType

from scratchpad_core.errors import StorageBusy
from scratchpad_core.search.words import Analyzer

from ..stemming import default_analyzer
from ..timeouts import LOCK_TIMEOUT_MS
from .change_reader import MemoryChangeReader
from .database import MemoryDatabase, Transaction
from .file_repository import MemoryFileRepository
from .log_repository import MemoryLogRepository
from .request_repository import MemoryRequestRepository
from .retention_repository import MemoryRetentionRepository
from .search_index import MemorySearchIndex
from .summary_repository import MemorySummaryRepository
from .usage_repository import MemoryUsageRepository


class MemoryUnitOfWork:
    """A unit of work on a MemoryDatabase, e.g. `Scratchpad(functools.partial(MemoryUnitOfWork, MemoryDatabase()))`.

    A writing one waits up to lock_timeout_ms for the store's writer before it fails busy (and the use case
    retries); a read-only one reads the tables committed when it began, and waits for nothing.
    """

    files: MemoryFileRepository
    logs: MemoryLogRepository
    summaries: MemorySummaryRepository
    usage: MemoryUsageRepository
    requests: MemoryRequestRepository
    retention: MemoryRetentionRepository
    index: MemorySearchIndex
    changes: MemoryChangeReader

    def __init__(
        self,
        database: MemoryDatabase,
        *,
        read_only: bool = False,
        lock_timeout_ms: int = LOCK_TIMEOUT_MS,
        analyzer: Analyzer | None = None,
    ) -> None:
        self._database = database
        self._analyzer = analyzer or default_analyzer()
        self._read_only = read_only
        self._lock_timeout_s = lock_timeout_ms / 1000
        self._transaction: Transaction | None = None

    def __enter__(self) -> MemoryUnitOfWork:
        if not self._read_only and not self._database.write_lock.acquire(timeout=self._lock_timeout_s):
            raise StorageBusy("The store is busy with another writer; nothing was changed. Retry the call.")
        transaction = self._transaction = Transaction(self._database.tables, writable=not self._read_only)
        self.files = MemoryFileRepository(transaction)
        self.logs = MemoryLogRepository(transaction)
        self.summaries = MemorySummaryRepository(transaction)
        self.usage = MemoryUsageRepository(transaction)
        self.requests = MemoryRequestRepository(transaction)
        self.index = MemorySearchIndex(transaction, self._analyzer)
        self.retention = MemoryRetentionRepository(transaction)
        self.changes = MemoryChangeReader(transaction)
        return self

    def commit(self) -> None:
        assert self._transaction is not None, "commit() outside the unit of work"
        published = self._transaction.commit()
        if published is not None:
            self._database.publish(published)

    def __exit__(
        self, exc_type: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._transaction = None  # what was not committed goes with it
        if not self._read_only:
            self._database.write_lock.release()
