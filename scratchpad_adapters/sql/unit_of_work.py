"""One database transaction per use case, with driver errors translated on the way out."""

from __future__ import annotations

import contextlib
from types import TracebackType

from sqlalchemy import Connection, Engine, RootTransaction, exc

from scratchpad_core.search.words import Analyzer

from ..stemming import default_analyzer
from .connection.engine import snapshot
from .connection.errors import classify
from .connection.held import HeldConnection
from .connection.turns import WriterTurns
from .connection.watchdog import watched
from .repositories.change_reader import SqlChangeReader
from .repositories.file_repository import SqlFileRepository
from .repositories.log_repository import SqlLogRepository
from .repositories.request_repository import SqlRequestRepository
from .repositories.retention_repository import KnownRules, NoRules, SqlRetentionRepository
from .repositories.stamps import SqlStamp
from .repositories.summary_repository import SqlSummaryRepository
from .repositories.usage_repository import SqlUsageRepository
from .search.index import SqlSearchIndex


class SqlUnitOfWork:
    files: SqlFileRepository
    logs: SqlLogRepository
    summaries: SqlSummaryRepository
    usage: SqlUsageRepository
    requests: SqlRequestRepository
    retention: SqlRetentionRepository
    index: SqlSearchIndex
    changes: SqlChangeReader

    def __init__(
        self,
        engine: Engine,
        *,
        read_only: bool = False,
        held: HeldConnection | None = None,
        turns: WriterTurns | None = None,
        analyzer: Analyzer | None = None,
        known: KnownRules | None = None,
    ) -> None:
        self._engine = engine
        self._known = KnownRules() if known is None else known  # the store's: agents without files rules
        self._analyzer = analyzer or default_analyzer()
        self._read_only = read_only
        self._held = None if read_only else held  # a snapshot's options would stay on the held connection
        self._turns = None if read_only else turns  # a snapshot writes nothing, and SQLite lets it read meanwhile
        self._watch = contextlib.ExitStack()
        self._connection: Connection | None = None
        self._transaction: RootTransaction | None = None
        self._from_held = False

    def __enter__(self) -> SqlUnitOfWork:
        try:
            connection = self._held.take() if self._held is not None else None
            self._from_held = connection is not None
            if connection is None:
                connection = self._engine.connect()
        except exc.DBAPIError as error:
            raise (classify(error) or error) from error
        try:
            if self._read_only:
                connection = snapshot(connection)
            if not self._from_held:  # a held connection is SQLite's, which no watchdog bounds
                self._watch.enter_context(watched(connection))
            if self._turns is None:
                self._transaction = connection.begin()
            else:
                self._transaction = self._turns.begin(connection)  # the turn is this unit of work's until release
        except BaseException as error:
            self._release(connection)
            if isinstance(error, exc.DBAPIError):
                raise (classify(error) or error) from error
            raise
        self._connection = connection
        stamp = SqlStamp(connection)
        none = NoRules(self._known)  # what the transaction knows of its agents' rules (retention_repository)
        self.files = SqlFileRepository(connection, stamp)
        self.logs = SqlLogRepository(connection, stamp, none)
        self.summaries = SqlSummaryRepository(connection)
        self.usage = SqlUsageRepository(connection, none)
        self.requests = SqlRequestRepository(connection)
        self.index = SqlSearchIndex(connection, self._analyzer)
        self.retention = SqlRetentionRepository(connection, none)
        self.changes = SqlChangeReader(connection)
        return self

    def commit(self) -> None:
        assert self._transaction is not None, "commit() outside the unit of work"
        self.retention.check_assumed()  # rules taken from the process are checked before anything is kept
        self._transaction.commit()

    def __exit__(
        self, exc_type: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        connection, self._connection = self._connection, None
        try:
            if self._transaction is not None and self._transaction.is_active:
                self._transaction.rollback()
        except exc.SQLAlchemyError:
            pass  # the connection is gone (or was invalidated): the pool discards it, and the transaction with it
        finally:
            if connection is not None:
                self._release(connection)
        if isinstance(error, exc.DBAPIError):
            mapped = classify(error)
            if mapped is not None:
                raise mapped from error

    def _release(self, connection: Connection) -> None:
        if self._turns is not None and self._transaction is not None:  # begun: its turn taken
            self._turns.end()
        if self._from_held:
            assert self._held is not None
            self._held.give_back()
            return
        # Stop watching before the connection goes back to the pool, where another call may take it.
        self._watch.close()
        connection.close()
