"""Domain records as frozen dataclasses. Timestamps are integer milliseconds since the epoch."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Literal

from .actors import LIBRARY
from .limits import utf8_len
from .text import count_lines


@dataclass(frozen=True)
class FileInfo:
    """What a listing shows of a file: its head row without the store's bookkeeping (id, hash, agent)."""

    path: str
    current_version: int
    bytes: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class FileRecord:
    """A file's head row: where it stands now."""

    id: int
    agent_id: str
    path: str
    current_version: int
    bytes: int
    sha256: str
    created_at: int
    updated_at: int

    def info(self) -> FileInfo:
        return FileInfo(self.path, self.current_version, self.bytes, self.created_at, self.updated_at)


@dataclass(frozen=True)
class VersionInfo:
    version: int
    bytes: int
    lines: int
    sha256: str
    created_at: int
    by: str  # who made it (actors.py)


@dataclass(frozen=True)
class Version(VersionInfo):
    content: str

    @classmethod
    def of(cls, version: int, content: str, now: int, by: str = LIBRARY) -> Version:
        return cls(
            version=version,
            bytes=utf8_len(content),
            lines=count_lines(content),
            sha256=sha256_hex(content),
            created_at=now,
            by=by,
            content=content,
        )


@dataclass(frozen=True)
class LogRecord:
    id: int
    agent_id: str
    path: str
    last_entry_id: int
    entries: int
    bytes: int
    created_at: int
    updated_at: int


@dataclass(frozen=True)
class LogEntry:
    """An entry of a log, as read_log returns it (results.LogEntryOut is this class)."""

    id: int
    entry: str
    created_at: int
    by: str | None = None  # who appended it (actors.py), when asked for (read_log's show_by)


class Access(StrEnum):
    """What a grant allows on another agent's namespace (grants.py holds the rule): write includes read."""

    READ = "read"
    WRITE = "write"

    def allows(self, *, writes: bool) -> bool:
        return self is Access.WRITE or not writes


@dataclass(frozen=True)
class Grant:
    """Access to another agent's namespace, held by a key."""

    agent_id: str
    access: Access


@dataclass(frozen=True)
class ApiKey:
    """A key's public record; the secret itself is never stored. agent_id None: an admin key, which sees every
    agent in the web view and calls no tools."""

    id: str
    agent_id: str | None
    label: str
    read_only: bool
    created_at: int
    last_used_at: int | None = None
    revoked_at: int | None = None
    grants: tuple[Grant, ...] = ()  # other agents' namespaces it may use (grants.py)


@dataclass(frozen=True)
class StoredRequest:
    """A writing call's request_id with a fingerprint of its arguments and its result (JSON), as first sent."""

    agent_id: str
    request_id: str
    operation: str
    fingerprint: str
    result: str
    created_at: int
    caller: str = ""  # the key that sent it (actors.caller_of); "": stdio and the library


@dataclass(frozen=True)
class Usage:
    """An agent's counters: what it stores and how much it has done."""

    agent_id: str
    files: int = 0
    logs: int = 0
    log_entries: int = 0
    bytes: int = 0
    operations: int = 0
    bytes_saved: int = 0


@dataclass(frozen=True)
class UsageDelta:
    """A change to an agent's counters, applied in the same transaction as the data."""

    files: int = 0
    logs: int = 0
    log_entries: int = 0
    bytes: int = 0
    operations: int = 1
    bytes_saved: int = 0


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


COUNTERS = tuple(f.name for f in fields(UsageDelta))  # the counters Usage holds and a UsageDelta changes


@dataclass(frozen=True)
class Advanced:
    """A file moved to its next version."""

    file_id: int
    version: int
    created: bool  # it started from version 0: a new file, or a deleted path coming back


@dataclass(frozen=True)
class NotAdvanced:
    """Why a file did not move to its next version: nothing changed."""

    reason: Literal["missing", "conflict", "unchanged"]
    current_version: int  # as the file stands (0: it does not exist)

    @classmethod
    def of(cls, record: FileRecord | None, head: Version, expected: int | None) -> NotAdvanced | None:
        """Whether a file as it stands (None, or at version 0: absent) takes `head` as its next version: None if
        it does, else why not. The rule of FileRepository.advance, which each backend applies to its rows."""
        current = 0 if record is None else record.current_version
        if expected is None and current == 0:
            return cls("missing", 0)
        if expected == 0 and record is None:
            return cls("missing", 0)  # no row yet: lock_or_create makes one, from which the file starts
        if expected is not None and expected != current:
            return cls("conflict", current)
        if record is not None and current and record.sha256 == head.sha256:
            return cls("unchanged", current)
        return None


Advance = Advanced | NotAdvanced


@dataclass(frozen=True)
class FileSlots:
    """A file's index record (scratchpad_core.search.indexing): its owner id, the version indexed and the slots."""

    owner: int
    version: int
    slots: tuple[int, ...]


Posting = tuple[int, int, int, int, int]
"""A document holding a term: (row, owner (a file's index record, or minus a log's id), entry id (0 for a file's
line), how often the term is in it, how many terms it has). A plain tuple: a search reads thousands."""
