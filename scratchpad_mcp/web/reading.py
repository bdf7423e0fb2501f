"""What the pages show, read through the library's use cases: one bounded read per piece, never a whole store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from markupsafe import Markup

from scratchpad_core import quotas
from scratchpad_core.bounds import LOG_PAGE_SIZE
from scratchpad_core.errors import InvalidInput
from scratchpad_core.model import Usage, VersionInfo
from scratchpad_core.results import FileInfo, LogEntryOut, LogPage
from scratchpad_core.service import Scratchpad
from scratchpad_core.text import split_keepends

from .diffs import DiffView, diff_view
from .highlight import coloured_lines

FILE_PAGE_LINES = 500  # lines of a file one page shows and colours (Pygments takes ~0.1 ms a line here)
FILES_PAGE = 500  # files of one listing page
LOG_PAGE = 50  # entries of one log page
AGENTS_PAGE = 200


class AgentDirectory(Protocol):
    """The agents a store holds, with their counters (a read that counts no operation)."""

    def agents(self, after: str | None, limit: int) -> Sequence[Usage]:
        """The next `limit` agents after the agent id `after`, by agent id."""

    def agent(self, agent_id: str) -> Usage:
        """One agent's counters (all zero for an agent with nothing stored)."""

    def found(self, agent_id: str) -> Usage | None:
        """One agent's counters, or None for an agent the store has never heard of (no call of it counted)."""


@dataclass(frozen=True)
class QuotaUse:
    title: str
    used: int
    quota: int

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.quota if self.quota else 0.0


def quota_use(usage: Usage, store: Scratchpad) -> list[QuotaUse]:
    return [QuotaUse(r.unit, getattr(usage, r.counter), r.quota(store.limits)) for r in quotas.QUOTAS]


@dataclass(frozen=True)
class TreeRow:
    """A listing row: a folder heading (file None) or a file, indented by its depth."""

    depth: int
    name: str
    file: FileInfo | None = None


def tree(files: Sequence[FileInfo]) -> list[TreeRow]:
    """Files sorted by path as an indented tree: each folder once, before its files."""
    rows: list[TreeRow] = []
    shown: tuple[str, ...] = ()
    for info in files:
        *folders, name = info.path.split("/")
        common = 0
        while common < min(len(shown), len(folders)) and shown[common] == folders[common]:
            common += 1
        rows += [TreeRow(depth, folders[depth] + "/") for depth in range(common, len(folders))]
        shown = tuple(folders)
        rows.append(TreeRow(len(folders), name, info))
    return rows


@dataclass(frozen=True)
class FileWindow:
    """Lines first..last of one version, coloured, and where the neighbouring windows start."""

    version: int
    current_version: int
    first: int
    last: int
    total: int
    lines: list[Markup]
    previous_start: int | None
    next_start: int | None


def file_window(store: Scratchpad, agent_id: str, path: str, version: int | None, start: int) -> FileWindow:
    if start < 1:
        raise InvalidInput("Invalid start: lines are numbered from 1.")
    read = store.read_file(agent_id, path, version=version, start_line=start, max_lines=FILE_PAGE_LINES)
    if read.start_line is None:  # an empty file
        lines: list[str] = []
        first, last, total = 1, 0, 0
    else:
        lines = split_keepends(read.content or "")
        first, last, total = read.start_line, read.end_line or 0, read.total_lines or 0
    return FileWindow(
        version=version or read.current_version,
        current_version=read.current_version,
        first=first,
        last=last,
        total=total,
        lines=coloured_lines(path, lines),
        previous_start=max(1, first - FILE_PAGE_LINES) if first > 1 else None,
        next_start=last + 1 if last < total else None,
    )


def version_diff(store: Scratchpad, agent_id: str, path: str, old: int, new: int) -> DiffView:
    """The diff from version `old` to version `new` (any two retained versions, either order)."""
    before = store.read_file(agent_id, path, version=old).content or ""
    after = store.read_file(agent_id, path, version=new).content or ""
    return diff_view(before, after)


def version_by(info: VersionInfo) -> str | None:
    """Who made a version, where the store records it."""
    by = getattr(info, "by", None)
    return None if by is None else str(by)


@dataclass(frozen=True)
class LogView:
    """A page of entries, newest first, with the cursor of the next older page."""

    entries: list[LogEntryOut]
    total: int
    last_entry_id: int
    older: int | None  # the `before` cursor of the next page


def log_page(store: Scratchpad, agent_id: str, path: str, before: int | None) -> LogView:
    """LOG_PAGE entries before entry `before` (None: the newest), newest first. Ids are contiguous from the
    log's first retained entry, so a page is one ranged read."""
    if before is not None and before < 1:
        raise InvalidInput("Invalid before: use an entry id from the page's 'older' link.")
    head = store.read_log(agent_id, path, tail=1)
    newest = head.entries[-1].id if head.entries else 0
    total = store.read_log(agent_id, path, since_entry=0, limit=1).total
    first = newest - total + 1
    end = newest if before is None else min(before - 1, newest)
    start = max(first, end - LOG_PAGE + 1)
    entries: list[LogEntryOut] = []
    if end >= start:
        entries = store.read_log(agent_id, path, since_entry=start - 1, limit=end - start + 1, show_by=True).entries
    entries.sort(key=lambda e: -e.id)
    return LogView(entries, total, newest, start if entries and start > first else None)


def new_entries(store: Scratchpad, agent_id: str, path: str, after: int) -> LogPage:
    """Entries after `after`, oldest first, each with who appended it (what a live page adds on top)."""
    if after < 0:
        raise InvalidInput("Invalid after: use 0 or the last entry id the page shows.")
    return store.read_log(agent_id, path, since_entry=after, limit=LOG_PAGE_SIZE, show_by=True)
