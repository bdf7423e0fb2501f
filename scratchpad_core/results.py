"""What each use case returns. Fields left as None are absent from a reply."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import model
from .diffing import Chunk
from .hunks import Hunk
from .model import VersionInfo

# A listing's row and a log page's entry are model's: a repository builds them, once a row.
FileInfo = model.FileInfo
LogEntryOut = model.LogEntry


@dataclass(frozen=True)
class WriteResult:
    path: str
    version: int
    bytes_written: int
    unchanged: bool | None = None


@dataclass(frozen=True)
class EditResult:
    """The new version and where the change landed: lines start_line..end_line of the new text
    (end_line = start_line - 1 when lines were only removed); the numbered lines only when asked."""

    path: str
    version: int
    bytes_written: int
    start_line: int
    end_line: int
    replacements: int | None = None
    snippet: str | None = None


@dataclass(frozen=True, kw_only=True)
class ReadResult:
    path: str | None = None  # left out of a compact diff: the reader sent it
    current_version: int
    content: str | None = None
    version: int | None = None
    since_version: int | None = None
    version_too_old: bool | None = None
    unchanged: bool | None = None
    diff: list[Chunk] | list[Hunk] | str | None = None
    start_line: int | None = None
    end_line: int | None = None
    total_lines: int | None = None
    truncated: bool | None = None  # a full read past its bound: the first lines that fit, total_lines and
    next_start_line: int | None = None  # the start_line to read on from
    redacted: bool | None = None  # a diff from a version whose content was (partly) redacted: from its marker


@dataclass(frozen=True)
class FileListing:
    files: list[FileInfo]
    count: int
    next_cursor: str | None = None


@dataclass(frozen=True)
class VersionList:
    path: str
    current_version: int
    versions: list[VersionInfo]


@dataclass(frozen=True)
class DeleteResult:
    path: str
    deleted: bool
    versions_removed: int


@dataclass(frozen=True)
class RenameResult:
    """A file moved to new_path with its retained versions; `version` is its current version there."""

    path: str
    new_path: str
    version: int


@dataclass(frozen=True)
class RenamePrefixResult:
    prefix: str
    new_prefix: str
    files: list[RenameResult]


@dataclass(frozen=True)
class DeletePrefixResult:
    prefix: str
    files_deleted: int
    versions_removed: int


@dataclass(frozen=True)
class AppendResult:
    path: str
    entry_id: int
    bytes_written: int


@dataclass(frozen=True)
class LogPage:
    entries: list[LogEntryOut]
    total: int
    last_entry_id: int
    has_more: bool
    first_entry_id: int | None = None  # the oldest kept entry, when entries after since_entry were dropped


@dataclass(frozen=True)
class LogInfo:
    path: str
    entries: int
    bytes: int
    last_entry_id: int
    updated_at: int


@dataclass(frozen=True)
class LogListing:
    logs: list[LogInfo]
    count: int


@dataclass(frozen=True)
class DeleteLogResult:
    path: str
    deleted: bool
    entries_removed: int
    bytes_freed: int


@dataclass(frozen=True, kw_only=True)
class SearchMatch:
    """A file's passage (lines line..end_line; an exact search's line has no end_line) or a log's entry."""

    path: str
    line: int | None = None
    end_line: int | None = None
    entry: int | None = None
    text: str


@dataclass(frozen=True)
class SearchResult:
    matches: list[SearchMatch]
    count: int
    has_more: bool
    files_searched: int | None = None  # an exact search's: files read


@dataclass(frozen=True)
class SummaryResult:
    path: str
    current_version: int
    summary: str
    cached: bool
    estimated_tokens: int


@dataclass(frozen=True)
class Quota:
    bytes: int
    files: int
    log_entries: int


@dataclass(frozen=True)
class Space:
    """An agent a key may use, and how: read or write (grants.py)."""

    agent: str
    access: str


@dataclass(frozen=True)
class UsageStats:
    agent_id: str
    total_bytes: int
    file_count: int
    log_count: int
    total_operations: int
    bytes_saved: int
    logs: int
    quota: Quota = field(default_factory=lambda: Quota(0, 0, 0))
    spaces: list[Space] | None = None  # with API keys, for the key's own agent: every agent the key may use


@dataclass(frozen=True)
class PruneResult:
    """What a prune dropped: entries (and their bytes) of how many logs, logs emptied (every entry past
    its age: the log is gone, as after delete_log), and expired files deleted (and their versions' bytes)."""

    logs_trimmed: int
    entries_dropped: int
    bytes_freed: int
    logs_emptied: int = 0
    files_expired: int = 0
    file_bytes_freed: int = 0


@dataclass(frozen=True, kw_only=True)
class Redacted:
    """A file's version or a log's entry that a redaction changed (or would change, in a dry run)."""

    path: str
    version: int | None = None  # a file's version
    entry: int | None = None  # or a log's entry
    occurrences: int | None = None  # of the text removed (None: the whole content was asked for)
    whole: bool = False  # its whole content became one marker (asked for, or each marker would pass the size limit)
    new_version: int | None = None  # the version made with the current one's redacted content (readers see it)
    pruned: bool = False  # the file had expired: deleted with every version, as a prune would


@dataclass(frozen=True)
class RedactResult:
    """What a redaction changed (or, in a dry run, would change), per version and log entry, in path order
    (files, then logs); and how many kept request_ids it forgot (redaction.could_confirm)."""

    redacted: list[Redacted]
    dry_run: bool = False
    requests_forgotten: int = 0
