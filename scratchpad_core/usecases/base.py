"""What every use case shares: one transaction per call, bounded retries, counters."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from ..errors import NotFound, ScratchpadError, StorageBusy, StorageError
from ..limits import Limits
from ..model import FileRecord, UsageDelta
from ..paths import check_agent_id, check_path
from ..ports import Clock, RegexEngine, Summarizer, UnitOfWork, UnitOfWorkFactory
from ..retries import Request

T = TypeVar("T")

DEFAULT_ATTEMPTS = 5


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class UseCaseBase:
    def __init__(
        self,
        unit_of_work: UnitOfWorkFactory,
        limits: Limits | None = None,
        *,
        summarizer: Summarizer | None = None,
        regex_engine: RegexEngine | None = None,
        clock: Clock = wall_clock_ms,
        attempts: int = DEFAULT_ATTEMPTS,
        on_close: Callable[[], None] | None = None,
        writes_index: bool = True,
    ) -> None:
        self._uow = unit_of_work
        self.limits = limits or Limits()
        self._summarizer = summarizer
        self._regex = regex_engine
        self._clock = clock
        self._attempts = attempts
        self._on_close = on_close
        self._writes_index = writes_index  # False: a viewer's store, which searches through an overlay of the index

    def close(self) -> None:
        """Release what the store holds (its database connections)."""
        if self._on_close is not None:
            self._on_close()

    def _open(self, read_only: bool) -> UnitOfWork:
        return self._uow(read_only=True) if read_only else self._uow()

    def _transact(
        self, work: Callable[[UnitOfWork], T], *, read_only: bool = False, request: Request[T] | None = None
    ) -> T:
        """Run `work` in one transaction; retry it when the database says the clash was transient.

        With a request (the call carries a request_id), a repeat of a call already made returns its result, also
        when the call it repeats committed while this one ran: a repeat sent before the first call answered can
        meet it mid-transaction (Postgres, READ COMMITTED) and be refused by its change (the version moved on,
        the file is gone) though the request_id was not stored yet when it looked.
        """
        for attempt in range(1, self._attempts + 1):
            try:
                with self._open(read_only) as uow:
                    result = work(uow) if request is None else self._once(uow, request, work)
                    uow.commit()
                    return result
            except StorageBusy:
                if attempt == self._attempts:
                    raise
                time.sleep(0.005 * 2**attempt)
            except StorageError:
                raise
            except ScratchpadError:
                first = None if request is None else self._first_result(request)
                if first is None:
                    raise
                return first
        raise AssertionError("unreachable")

    def _once(self, uow: UnitOfWork, request: Request[T], work: Callable[[UnitOfWork], T]) -> T:
        """The stored result of the call this request_id names, or `work`'s, stored with it in this transaction."""
        now, retention = self._clock(), self.limits.request_id_retention
        expire_before = now - retention * 1000
        stored = uow.requests.get(request.agent_id, request.caller, request.request_id)
        if stored is not None and stored.created_at >= expire_before:
            return request.replay(stored, retention)
        if stored is not None:
            uow.requests.forget(request.agent_id, request.caller, request.request_id)
        result = work(uow)
        uow.requests.add(request.stored(result, now), self.limits.request_ids_kept, expire_before)
        return result

    def _first_result(self, request: Request[T]) -> T | None:
        """The result stored under the request_id by now (a fresh read, after a refusal), or None."""
        retention = self.limits.request_id_retention
        with self._open(read_only=True) as uow:
            stored = uow.requests.get(request.agent_id, request.caller, request.request_id)
        if stored is None or stored.created_at < self._clock() - retention * 1000:
            return None
        return request.replay(stored, retention)

    def _count(self, uow: UnitOfWork, agent_id: str, delta: UsageDelta | None = None) -> None:
        """Apply a counter change in the caller's transaction, or refuse it with the quota it passes."""
        delta = delta or UsageDelta()
        breach = uow.usage.apply(agent_id, delta, self.limits)
        if breach is not None:
            raise breach.error(delta, self.limits)


def checked(agent_id: str, path: str) -> tuple[str, str]:
    return check_agent_id(agent_id), check_path(path)


def require_file(record: FileRecord | None, path: str) -> FileRecord:
    if record is None or record.current_version == 0:
        raise not_found(path)
    return record


def not_found(path: str) -> NotFound:
    return NotFound(f"File not found: {path}. Use list_files to see this agent's files.")
