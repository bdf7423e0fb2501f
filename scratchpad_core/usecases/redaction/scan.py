"""What a redaction would change (usecases.redaction.redacting): the agent's files and logs it looks through
(all, or the one at a path; their rows locked first, files then logs, unless it only reads for a dry run), and for
each the versions or entries whose content changes, with what they become."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...errors import NotFound
from ...limits import utf8_len
from ...model import FileRecord, LogRecord
from ...ports import UnitOfWork
from ...redaction.rules import Removal, Shape
from ...results import Redacted
from ..base import require_file
from ..expiry import live, visible
from ..search.indexer import ENTRY_PAGE

Remove = Callable[[str, Shape], "Removal | None"]  # (content, shape) -> what it becomes, or None: unchanged


@dataclass(frozen=True)
class FilePlan:
    """A file's versions that change (number -> what each becomes); alive False: it has expired."""

    record: FileRecord
    alive: bool
    changes: dict[int, Removal]
    shape: Shape

    @property
    def next_version(self) -> int | None:
        """The version a redaction of the current one makes (None: it makes none)."""
        current = self.record.current_version
        return current + 1 if self.alive and current in self.changes else None

    limit = "file size limit"

    def what(self, number: int) -> str:
        return f"version {number} of {self.record.path}"

    def sorted(self) -> list[tuple[int, Removal]]:
        return sorted(self.changes.items())

    def rows(self, made: int | None) -> list[Redacted]:
        return [
            Redacted(path=self.record.path, version=number, occurrences=removal.occurrences, whole=removal.whole,
                     new_version=made if number == self.record.current_version else None, pruned=not self.alive)
            for number, removal in self.sorted()
        ]  # fmt: skip


@dataclass(frozen=True)
class LogPlan:
    """A log's entries that change: entry id -> (its size now, what it becomes)."""

    record: LogRecord
    changes: dict[int, tuple[int, Removal]]
    shape: Shape

    limit = "log entry size limit"

    def what(self, number: int) -> str:
        return f"entry {number} of {self.record.path}"

    def sorted(self) -> list[tuple[int, Removal]]:
        return [(number, removal) for number, (_, removal) in sorted(self.changes.items())]

    def rows(self) -> list[Redacted]:
        return [
            Redacted(path=self.record.path, entry=number, occurrences=removal.occurrences, whole=removal.whole)
            for number, removal in self.sorted()
        ]


class Scan:
    """The agent's files and logs a redaction looks through (path None: all of them), and what changes in each;
    number: only that version (entry) is looked at. grab: lock the rows (False: a dry run's read)."""

    def __init__(self, uow: UnitOfWork, agent_id: str, path: str | None, number: int | None, now: int, *,
                 grab: bool) -> None:  # fmt: skip
        self._uow, self._agent, self._path, self._number, self._now, self._grab = uow, agent_id, path, number, now, grab

    def require(self, *, files: bool) -> None:
        """Refuse (NotFound) the file (files) or the log at the scan's path when the agent has none there."""
        self._file_records() if files else self._log_records()

    def files(self, shape: Shape, remove: Remove) -> list[FilePlan]:
        uow, plans = self._uow, []
        alive = visible(uow, self._agent, self._now)
        for record in self._file_records():
            changes = {}
            for info in uow.files.list_versions(record.id):
                if self._number is not None and info.version != self._number:
                    continue
                old = uow.files.get_version(record.id, info.version)
                assert old is not None, "a listed version is retained"
                removal = remove(old.content, shape)
                if removal is not None and removal.content != old.content:
                    changes[info.version] = removal
            if changes:
                plans.append(FilePlan(record, alive(record.path, record.updated_at), changes, shape))
        return plans

    def logs(self, shape: Shape, remove: Remove) -> list[LogPlan]:
        plans = []
        for log in self._log_records():
            changes = {}
            for entry_id, text in self._entries(log):
                removal = remove(text, shape)
                if removal is not None and removal.content != text:
                    changes[entry_id] = (utf8_len(text), removal)
            if changes:
                plans.append(LogPlan(log, changes, shape))
        return plans

    def _file_records(self) -> list[FileRecord]:
        uow, agent_id, path = self._uow, self._agent, self._path
        grab = uow.files.lock if self._grab else uow.files.get
        if path is not None:
            record = require_file(grab(agent_id, path), agent_id, path)
            if live(uow, record, self._now) is None:  # as if deleted: a new version would bring it back
                raise NotFound(
                    f"File not found: {path} has expired under a retention rule; nothing was changed. A prune "
                    "(`scratchpad-mcp db prune`) removes it with every version for good."
                )
            return [record]
        listed = uow.files.list(agent_id, "", None, None)  # in path order: the order rows are locked in
        found = [grab(agent_id, record.path) for record in listed] if self._grab else listed
        return [record for record in found if record is not None and record.current_version > 0]

    def _log_records(self) -> list[LogRecord]:
        uow, agent_id, path = self._uow, self._agent, self._path
        grab = uow.logs.lock if self._grab else uow.logs.get
        if path is not None:
            log = grab(agent_id, path)
            if log is None or log.entries == 0:
                raise NotFound.said("Log not found: {path}. {do.see_logs}", path=path, agent_id=agent_id)
            return [log]
        listed = uow.logs.list(agent_id, "")
        found = [grab(agent_id, log.path) for log in listed] if self._grab else listed
        return [log for log in found if log is not None and log.entries > 0]

    def _entries(self, log: LogRecord) -> Iterator[tuple[int, str]]:
        """The log's kept entries (id, text) to look at: every one, or the one numbered."""
        first, last = log.last_entry_id - log.entries + 1, log.last_entry_id
        if self._number is not None:
            wanted = self._number
            found = self._uow.logs.entries(log.id, wanted - 1, 1) if first <= wanted <= last else []
            if not found or found[0].id != wanted:
                raise NotFound(
                    f"nothing to redact: entry {wanted} of {log.path} is not kept (it keeps {first}..{last})."
                )
            yield wanted, found[0].entry
            return
        after = first - 1
        while after < last:
            page = self._uow.logs.entries(log.id, after, ENTRY_PAGE)
            if not page:
                break
            yield from ((entry.id, entry.entry) for entry in page)
            after = page[-1].id
