"""Use cases for append-only logs."""

from __future__ import annotations

from ..actors import LIBRARY, check_actor
from ..bounds import LOG_PAGE_SIZE, check_range
from ..errors import InvalidInput
from ..limits import check_entry_size
from ..model import UsageDelta
from ..paths import check_agent_id, check_prefix
from ..ports import UnitOfWork
from ..results import AppendResult, DeleteLogResult, LogInfo, LogListing, LogPage
from ..retention.rules import LOGS, rule_for
from ..retries import Request
from .aging import seen, seen_logs
from .base import UseCaseBase, checked
from .retention import NOTHING, trim_log


class Logs(UseCaseBase):
    def append_log(
        self, agent_id: str, path: str, entry: str, *, request_id: str | None = None, actor: str = LIBRARY
    ) -> AppendResult:
        """Append one entry; entry ids increase within a log, in commit order. `actor` says who appends it."""
        agent_id, path = checked(agent_id, path)
        size = check_entry_size(entry, self.limits)
        check_actor(actor)
        request = Request.of(agent_id, request_id, "append_log", AppendResult, actor=actor, path=path, entry=entry)

        def work(uow: UnitOfWork) -> AppendResult:
            now = self._clock()
            log_id, entry_id, held = uow.logs.append(agent_id, path, entry, size, now, actor)
            created = held == 1  # a new log, or a deleted one back
            rule = rule_for(uow.retention.rules(agent_id, LOGS), path)
            cut = (
                NOTHING
                if rule is None
                else trim_log(uow, rule, log_id, entry_id - held + 1, entry_id, now, index=False)
            )
            # The index is not touched: the log's row now says more than the index holds (usecases.indexer).
            delta = UsageDelta(logs=int(created), log_entries=1 - cut.entries, bytes=size - cut.bytes)
            self._count(uow, agent_id, delta)  # what retention dropped is given back in the same change
            return AppendResult(path, entry_id, size)

        return self._transact(work, request=request)

    def read_log(
        self,
        agent_id: str,
        path: str,
        since_entry: int | None = None,
        *,
        limit: int | None = None,
        tail: int | None = None,
        show_by: bool = False,
    ) -> LogPage:
        """A page of entries after since_entry in id order, or the newest `tail` entries (with show_by, each
        says who appended it).

        A log with no entries (never written, or deleted) reads as an empty page whose last_entry_id
        echoes since_entry, so a reader can poll a log before its first entry.
        """
        agent_id, path = checked(agent_id, path)
        if since_entry is not None and since_entry < 0:
            raise InvalidInput("Invalid since_entry: use 0 (or omit it) to read from the start, or a last_entry_id.")
        check_range("limit", limit, LOG_PAGE_SIZE)
        check_range("tail", tail, LOG_PAGE_SIZE)
        if tail is not None and (since_entry is not None or limit is not None):
            raise InvalidInput(
                "Invalid read_log: tail returns the newest entries; it cannot be combined with since_entry or limit."
            )

        def work(uow: UnitOfWork) -> LogPage:
            log = uow.logs.get(agent_id, path)
            if log is not None:  # entries past the rule's max_age read as dropped
                log = seen(uow, log, self._clock())
            if log is None or log.entries == 0:  # never written, deleted, all past its age: an empty page for a poller
                self._count(uow, agent_id)
                return LogPage([], 0, since_entry or 0, False)
            first = log.last_entry_id - log.entries + 1  # ids are contiguous; a log that came back starts later
            if tail is not None:
                rows = uow.logs.entries(log.id, max(first - 1, log.last_entry_id - tail), tail, with_by=show_by)
                page, more, total = rows, False, len(rows)
                cursor = rows[-1].id if rows else log.last_entry_id
            else:
                after, size = since_entry or 0, limit or LOG_PAGE_SIZE
                start = min(max(after, first - 1), log.last_entry_id)
                rows = uow.logs.entries(log.id, start, size + 1, with_by=show_by)
                page, more = rows[:size], len(rows) > size
                total = max(0, log.last_entry_id - max(after, first - 1))
                cursor = page[-1].id if page else after
                if after < first - 1:  # entries after since_entry were dropped (retention) or deleted
                    self._count(uow, agent_id)
                    return LogPage(page, total, cursor, more, first_entry_id=first)
            self._count(uow, agent_id)
            return LogPage(page, total, cursor, more)

        return self._transact(work)

    def list_logs(self, agent_id: str, prefix: str | None = None) -> LogListing:
        """Metadata of the agent's logs whose path starts with `prefix`, sorted by path."""
        agent_id = check_agent_id(agent_id)
        prefix = check_prefix(prefix)

        def work(uow: UnitOfWork) -> LogListing:
            logs = seen_logs(uow, agent_id, prefix, self._clock())  # entries past their age: not there
            self._count(uow, agent_id)
            infos = [LogInfo(g.path, g.entries, g.bytes, g.last_entry_id, g.updated_at) for g in logs]
            return LogListing(infos, len(infos))

        return self._transact(work)

    def delete_log(
        self, agent_id: str, path: str, *, request_id: str | None = None, actor: str = LIBRARY
    ) -> DeleteLogResult:
        """Delete a whole log and give its entries and bytes back to the quota."""
        agent_id, path = checked(agent_id, path)
        request = Request.of(agent_id, request_id, "delete_log", DeleteLogResult, actor=actor, path=path)

        def work(uow: UnitOfWork) -> DeleteLogResult:
            log = uow.logs.lock(agent_id, path)
            if log is None or log.entries == 0:
                self._count(uow, agent_id)
                return DeleteLogResult(path, deleted=False, entries_removed=0, bytes_freed=0)
            entries, freed = uow.logs.delete(log.id, self._clock(), self.limits.remembered_deletions)
            uow.index.drop_entries(log.id)
            self._count(uow, agent_id, UsageDelta(logs=-1, log_entries=-entries, bytes=-freed))
            return DeleteLogResult(path, deleted=True, entries_removed=entries, bytes_freed=freed)

        return self._transact(work, request=request)
