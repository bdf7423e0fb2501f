"""What every use case shares: one transaction per call, bounded retries, counters."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

from ..errors import NotFound, ScratchpadError, StorageBusy, StorageError
from ..limits import Limits
from ..model import FileRecord, UsageDelta
from ..paths import check_agent_id, check_path
from ..ports import Clock, RegexEngine, Summarizer, UnitOfWork, UnitOfWorkFactory
from ..quotas import lifted
from ..retries import Request
from .expiry import FREED, Room, has_expired

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
        attempt, room_for = 1, None
        while True:
            try:
                with self._open(read_only) as uow:
                    room = None if room_for is None else Room.made(uow, room_for, self._clock())
                    token = _ROOM.set(room)
                    try:
                        result = work(uow) if request is None else self._once(uow, request, work)
                        if room is not None:
                            room.settle(uow, self.limits)
                    finally:
                        _ROOM.reset(token)
                    uow.commit()
                    return result
            except _NeedsRoom as need:  # once: the next run deletes what expired first, and _count refuses there
                room_for = need.agent_id
            except StorageBusy:
                if attempt == self._attempts:
                    raise
                time.sleep(0.005 * 2**attempt)
                attempt += 1
            except StorageError:
                raise
            except ScratchpadError:
                first = None if request is None else self._first_result(request)
                if first is None:
                    raise
                return first

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

    def _count(self, uow: UnitOfWork, agent_id: str, delta: UsageDelta | None = None, *, quotas: bool = True) -> None:
        """Apply a counter change in the caller's transaction, or refuse it with the quota it passes (quotas=False:
        counted, never refused; quotas.lifted).

        Expired files count nowhere: a change that a quota would refuse while the agent has some not yet pruned
        runs again from the start, with them deleted first (expiry.Room), so that a refusal counts only what
        list_files shows."""
        delta = delta or UsageDelta()
        room = _ROOM.get()
        if room is not None and room.agent_id == agent_id:
            room.settle(uow, self.limits)
        breach = uow.usage.apply(agent_id, delta, self.limits if quotas else lifted(self.limits))
        if breach is None:
            return
        if room is None and breach.rule.counter in FREED and has_expired(uow, agent_id, self._clock()):
            raise _NeedsRoom(agent_id)
        raise breach.error(delta, self.limits)


class _NeedsRoom(Exception):
    """A quota met an agent whose expired files, not yet pruned, still count: run the call again without them."""

    def __init__(self, agent_id: str) -> None:
        super().__init__(agent_id)
        self.agent_id = agent_id


_ROOM: ContextVar[Room | None] = ContextVar("scratchpad_room", default=None)  # the running call's, if it made room


def checked(agent_id: str, path: str) -> tuple[str, str]:
    return check_agent_id(agent_id), check_path(path)


def require_file(record: FileRecord | None, agent_id: str, path: str) -> FileRecord:
    if record is None or record.current_version == 0:
        raise not_found(agent_id, path)
    return record


def not_found(agent_id: str, path: str) -> NotFound:
    return NotFound.said("File not found: {path}. {do.see_files}", agent_id=agent_id, path=path)
