"""Ports: what the use cases need from the outside world, as typing.Protocols.

Methods name the atomic operation they perform. Repositories take and return the
dataclasses of `model`; every call runs inside the unit of work's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Protocol

from .limits import Limits
from .model import (
    Advance,
    ApiKey,
    FileInfo,
    FileRecord,
    LogEntry,
    LogRecord,
    StoredRequest,
    Usage,
    UsageDelta,
    Version,
    VersionInfo,
)

if TYPE_CHECKING:
    from .quotas import Breach


class FileRepository(Protocol):
    def get(self, agent_id: str, path: str) -> FileRecord | None: ...

    def lock(self, agent_id: str, path: str) -> FileRecord | None:
        """The file's head row, locked until the transaction ends."""

    def lock_or_create(self, agent_id: str, path: str, now: int) -> FileRecord:
        """The locked head row, created at version 0 if absent."""

    def advance(self, agent_id: str, path: str, head: Version, expected: int | None) -> Advance:
        """Make `head` the file's next version: bump the head counter and take head's size and hash.

        `expected` None: the file must exist; 0: it must not (a new file, or a deleted path, whose number
        carries on: numbering.next_number); N: it must be at version N. Returns the file id and new
        number, or (nothing changed) why not: missing, conflict or unchanged. The row stays locked.
        """

    def add_version(self, file_id: int, version: Version) -> None: ...

    def prune(self, file_id: int, keep_from: int) -> tuple[int, int]:
        """Delete versions below `keep_from`; returns (versions, bytes) removed."""

    def get_version(self, file_id: int, version: int) -> Version | None: ...

    def list_versions(self, file_id: int) -> list[VersionInfo]: ...

    def list_all(self, after: tuple[str, str] | None, limit: int) -> list[FileRecord]:
        """Every agent's files, sorted by (agent_id, path), after the cursor (an (agent_id, path) pair)."""

    def listing(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileInfo]:
        """What list() finds, as a listing shows it (a listing of thousands builds each row once)."""

    def list(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileRecord]:
        """Files whose path starts with `prefix` (literally), sorted by path, after the cursor."""

    def iter_current(self, agent_id: str, prefix: str) -> Iterator[tuple[str, str]]:
        """(path, content) of each file's current version, sorted by path."""

    def delete(self, file_id: int, now: int, remember: int) -> tuple[int, int]:
        """Delete the file's versions and summary; returns (versions, bytes) removed.

        The path remembers its last version number (see `numbering`): a file written there again
        continues from it (until then, get and lock show it at version 0, as if it had never existed).
        Of the agent's deleted file paths, the `remember` most recent keep their numbers.
        """

    def move(self, moves: Sequence[tuple[int, int]], now: int, remember: int) -> Sequence[int]:
        """Move each (file_id, to_id): a live file's versions and summary onto its destination's row (one that
        lock_or_create returned at version 0: new, or a deleted path's), which takes the file's head; the
        source row is left as a deleted path. Returns each file's current version at its destination.

        Numbers follow `numbering.move_shift`: at a destination that remembers a last number N the retained
        versions (and the summary) carry on from N + 1 (oldest retained -> N + 1); a fresh one keeps them.
        The source path remembers the file's last number, as after `delete`. Deleted paths beyond the
        `remember` most recent are forgotten once, after every move (a destination is never forgotten before
        its move).
        """


class LogRepository(Protocol):
    def get(self, agent_id: str, path: str) -> LogRecord | None: ...

    def lock(self, agent_id: str, path: str) -> LogRecord | None: ...

    def append(self, agent_id: str, path: str, entry: str, size: int, now: int, by: str) -> tuple[int, bool]:
        """Bump the head counter of the log at `path` (made, with no entries, if it has no row) and store the entry
        under it; returns the entry id, and whether the log had no entries before (new, or deleted)."""

    def entries(self, log_id: int, after: int, limit: int, *, with_by: bool = False) -> list[LogEntry]:
        """Up to `limit` entries after id `after`, in id order; each says who appended it if `with_by`."""

    def list(self, agent_id: str, prefix: str) -> list[LogRecord]: ...

    def delete(self, log_id: int, now: int, remember: int) -> tuple[int, int]:
        """Delete the log's entries; returns (entries, bytes) removed.

        The path remembers the last entry id: a log appended to there again continues from it, so a
        reader's since_entry cursor never skips new entries (until then the log reads as empty, 0 entries).
        Of the agent's deleted log paths, the `remember` most recent keep their numbers.
        """


class SummaryRepository(Protocol):
    def get(self, file_id: int, version: int) -> str | None: ...

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None: ...


class RequestRepository(Protocol):
    """The agent's recent request_ids (retries.py), with what each call returned."""

    def get(self, agent_id: str, request_id: str) -> StoredRequest | None: ...

    def forget(self, agent_id: str, request_id: str) -> None:
        """Drop one id (one past its retention, before it is used again)."""

    def add(self, request: StoredRequest, keep: int, expire_before: int) -> None:
        """Store a new id (a concurrent call storing the same one makes the later commit fail, retryable), then
        forget, among the agent's PRUNE_BATCH oldest, those beyond its `keep` newest or made before expire_before."""


class UsageRepository(Protocol):
    def get(self, agent_id: str) -> Usage: ...

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> Breach | None:
        """Apply the delta unless it would pass a quota (quotas.QUOTAS); None when applied, otherwise the
        quota it would pass and the usage it met (nothing changed)."""


class UnitOfWork(Protocol):
    """One transaction: leaving the block without commit() rolls back."""

    @property
    def files(self) -> FileRepository: ...

    @property
    def logs(self) -> LogRepository: ...

    @property
    def summaries(self) -> SummaryRepository: ...

    @property
    def usage(self) -> UsageRepository: ...

    @property
    def requests(self) -> RequestRepository: ...

    def __enter__(self) -> UnitOfWork: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def commit(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self, *, read_only: bool = False) -> UnitOfWork:
        """A new unit of work; a read-only one reads a consistent snapshot that blocks no writer."""


class KeyStore(Protocol):
    def add(self, key: ApiKey, key_hash: str) -> None: ...

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        """The key with this hash (revoked ones too); records the use of an active key."""

    def list(self) -> list[ApiKey]: ...

    def revoke(self, key_id: str, now: int) -> bool:
        """End the key; False if there is no such (unrevoked) key."""


class RateLimiter(Protocol):
    def acquire(self, agent_id: str) -> float:
        """Take one call from the agent's budget: 0.0 if allowed, else the seconds to wait (nothing taken)."""


class Summarizer(Protocol):
    model: str

    def summarize(self, path: str, content: str) -> str:
        """A concise summary; raises SummaryUnavailable when it cannot run."""


class Matcher(Protocol):
    def __call__(self, line: str) -> int | None:
        """Where the first match in `line` starts, or None."""


class RegexEngine(Protocol):
    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        """A bounded-time matcher; raises InvalidInput for a bad or too costly pattern."""


Clock = Callable[[], int]
