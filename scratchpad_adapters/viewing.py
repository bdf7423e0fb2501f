"""A store for people looking at one (the web view): the library's read use cases, run in read-only snapshots
that count nothing. An agent's own reads count as its operations; a person reading its files or polling its log
changes none of its counters, and takes no write lock from it."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from scratchpad_core.limits import Limits
from scratchpad_core.model import Usage, UsageDelta
from scratchpad_core.ports import (
    ChangeReader,
    FileRepository,
    LogRepository,
    RetentionRepository,
    SearchIndex,
    SummaryRepository,
    UnitOfWork,
    UnitOfWorkFactory,
)
from scratchpad_core.quotas import Breach
from scratchpad_core.service import Scratchpad

from .factory import Backend
from .regex_engine import BoundedRegexEngine


class UncountedUsage:
    """Reads the agent's counters; changes none (every change is taken as applied)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def get(self, agent_id: str) -> Usage:
        usage: Usage = self._inner.get(agent_id)
        return usage

    def find(self, agent_id: str) -> Usage | None:
        found: Usage | None = self._inner.find(agent_id)
        return found

    def page(self, after: str | None, limit: int) -> list[Usage]:
        rows: list[Usage] = self._inner.page(after, limit)
        return rows

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> Breach | None:
        return None


class ViewingUnitOfWork:
    """A read-only unit of work whose counters stay as they are."""

    def __init__(self, inner: UnitOfWork) -> None:
        self._inner = inner

    @property
    def files(self) -> FileRepository:
        return self._inner.files

    @property
    def logs(self) -> LogRepository:
        return self._inner.logs

    @property
    def summaries(self) -> SummaryRepository:
        return self._inner.summaries

    @property
    def usage(self) -> UncountedUsage:
        return UncountedUsage(self._inner.usage)

    @property
    def index(self) -> SearchIndex:
        return self._inner.index

    @property
    def retention(self) -> RetentionRepository:
        return self._inner.retention

    @property
    def changes(self) -> ChangeReader:
        return self._inner.changes

    @property
    def requests(self) -> Any:
        return getattr(self._inner, "requests")  # noqa: B009 - not every store version has them

    def __enter__(self) -> ViewingUnitOfWork:
        self._inner.__enter__()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._inner.__exit__(exc_type, exc, tb)

    def commit(self) -> None:
        self._inner.commit()


def viewing(unit_of_work: UnitOfWorkFactory) -> UnitOfWorkFactory:
    """Units of work that only read: a snapshot each, whatever the use case asks for."""

    def make(*, read_only: bool = False) -> UnitOfWork:
        return ViewingUnitOfWork(unit_of_work(read_only=True))

    return make


def viewing_store(backend: Backend) -> Scratchpad:
    """The backend's store as a viewer reads it (closing it leaves the backend open)."""
    return Scratchpad(
        viewing(backend.unit_of_work), backend.store.limits, regex_engine=BoundedRegexEngine(), writes_index=False
    )
