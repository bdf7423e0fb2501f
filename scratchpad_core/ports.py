"""Ports: what the use cases need from the outside world, as typing.Protocols.

Methods name the atomic operation they perform. Repositories take and return the
dataclasses of `model`; every call runs inside the unit of work's transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .changes.catchup import ChangedFile, ChangedLog
from .limits import Limits
from .model import (
    Advance,
    ApiKey,
    FileInfo,
    FileRecord,
    FileSlots,
    Grant,
    LogEntry,
    LogRecord,
    Posting,
    StoredRequest,
    Usage,
    UsageDelta,
    Version,
    VersionInfo,
)
from .search.indexing import IndexRow, Part, Statistics

if TYPE_CHECKING:
    from .quotas import Breach
    from .retention.rules import RetentionRule
    from .search.words import Analyzer


class FileRepository(Protocol):
    def get(self, agent_id: str, path: str) -> FileRecord | None: ...

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> FileRecord | None:
        """The file's head row, locked until the transaction ends. A write takes the agent's change number first
        (catchup.py; one lock order: the agent's counters, then its files); writes=False: a lock that leaves the
        content as it is (the index's catch-up) takes none."""

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

    def replace_content(self, file_id: int, version: Version) -> None:
        """Give a retained version other content (its size, lines and hash with it); its number, time and
        actor stay (a redaction)."""

    def list_versions(self, file_id: int) -> list[VersionInfo]: ...

    def list_all(self, after: tuple[str, str] | None, limit: int) -> list[FileRecord]:
        """Every agent's files, sorted by (agent_id, path), after the cursor (an (agent_id, path) pair)."""

    def written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str], limit: int | None
    ) -> list[FileRecord]:
        """The agent's live files under `prefix` but under none of `excluding` (prefixes too), last written before
        `before` (ms), sorted by path (the first `limit`): a range scan of the files' last writes (or paths), not
        of every file."""

    def stored_written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str]
    ) -> tuple[int, int]:
        """How many files written_before finds, and the bytes of their retained versions (what the counters hold
        of them)."""

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

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> LogRecord | None:
        """The log's head row, locked until the transaction ends (writes: as FileRepository.lock)."""

    def append(self, agent_id: str, path: str, entry: str, size: int, now: int, by: str) -> tuple[int, int, int]:
        """Bump the head counter of the log at `path` (made, with no entries, if it has no row) and store the entry
        under it; returns the log's id, the entry id, and how many entries it holds now (1: it had none before,
        new or deleted)."""

    def young_from(self, log_id: int, below: int, since: int) -> int | None:
        """The oldest entry id below `below` made at or after `since` (ms); None: none is."""

    def stored_below(self, log_id: int, below: int) -> tuple[int, int]:
        """(entries, bytes) of the log's stored entries below id `below` (those past a max_age, not yet dropped)."""

    def trim(self, log_id: int, below: int) -> tuple[int, int]:
        """Drop the log's entries below id `below` (retention: the oldest, so the kept ids stay contiguous) and
        take them off its row; returns (entries, bytes) dropped."""

    def entries(self, log_id: int, after: int, limit: int, *, with_by: bool = False) -> list[LogEntry]:
        """Up to `limit` entries after id `after`, in id order; each says who appended it if `with_by`."""

    def list(self, agent_id: str, prefix: str) -> list[LogRecord]: ...

    def replace_entry(self, log_id: int, entry_id: int, text: str, size: int, old_size: int) -> None:
        """Give an entry other text (of `size` bytes, it had old_size), the log's bytes with it (a redaction)."""

    def delete(self, log_id: int, now: int, remember: int) -> tuple[int, int]:
        """Delete the log's entries; returns (entries, bytes) removed.

        The path remembers the last entry id: a log appended to there again continues from it, so a
        reader's since_entry cursor never skips new entries (until then the log reads as empty, 0 entries).
        Of the agent's deleted log paths, the `remember` most recent keep their numbers.
        """


class ChangeReader(Protocol):
    """What read_changes reads (catchup.py): an agent's change number and the rows changed after a cursor, each
    found by an index on (agent, last change), so that the cost is what changed, not what the agent holds."""

    def head(self, agent_id: str) -> int:
        """The agent's last change number (0: none)."""

    def files(self, agent_id: str, prefix: str, after: int) -> list[ChangedFile]:
        """The agent's file rows under `prefix` (deleted paths too) whose last change is after `after`."""

    def logs(self, agent_id: str, prefix: str, after: int) -> list[ChangedLog]:
        """The agent's log rows under `prefix` (deleted logs too) whose last change is after `after`."""

    def version_at(self, file_id: int, change: int) -> tuple[int, int] | None:
        """(number, change) of the file's newest retained version made by a change up to `change`; None: none."""

    def entries(self, log_id: int, after: int, upto: int) -> list[tuple[int, LogEntry]]:
        """(change, entry with `by`) of the log's entries made or redacted by a change in (after, upto], by id."""


class RetentionRepository(Protocol):
    """The retention rules (retention.py), read per call so that a change applies from the next one everywhere."""

    def rules(self, agent_id: str, kind: str) -> list[RetentionRule]:
        """The agent's rules on its logs or its files (kind)."""

    def all(self, agent_id: str | None = None) -> list[RetentionRule]:
        """Every rule (of one agent), sorted by agent, kind and prefix."""

    def lock(self, agent_id: str, kind: str, prefix: str) -> RetentionRule | None:
        """The rule on the agent's logs or files (kind) under exactly this prefix, locked until the transaction
        ends (None: there is none)."""

    def set(self, rule: RetentionRule, now: int) -> None:
        """Add the rule, or replace the one on the same agent, kind and prefix."""

    def clear(self, agent_id: str, kind: str, prefix: str) -> bool:
        """Remove the rule; False if there was none."""


class SummaryRepository(Protocol):
    def get(self, file_id: int, version: int) -> str | None: ...

    def put(self, file_id: int, version: int, summary: str, model: str, now: int) -> None: ...

    def drop(self, file_id: int) -> None:
        """Forget the file's cached summary (a redaction)."""


class RequestRepository(Protocol):
    """The agent's recent request_ids (retries.py), each its caller's, with what each call returned."""

    def get(self, agent_id: str, caller: str, request_id: str) -> StoredRequest | None: ...

    def forget(self, agent_id: str, caller: str, request_id: str) -> None:
        """Drop one id (one past its retention, before it is used again)."""

    def kept(self, agent_id: str) -> list[StoredRequest]:
        """Every id the agent's callers have kept (at most Limits.request_ids_kept each; a redaction looks
        through them for the ones to forget: redaction.could_confirm)."""

    def add(self, request: StoredRequest, keep: int, expire_before: int) -> None:
        """Store a new id (a concurrent call storing the same one makes the later commit fail, retryable), then
        forget, among the agent's PRUNE_BATCH oldest, those beyond its `keep` newest or made before expire_before."""


class UsageRepository(Protocol):
    def get(self, agent_id: str) -> Usage: ...

    def find(self, agent_id: str) -> Usage | None:
        """The agent's counters; None when no call of it was ever counted (the store has never heard of it)."""

    def page(self, after: str | None, limit: int) -> list[Usage]:
        """The counters of the first `limit` agents after the agent id `after`, by agent id."""

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> Breach | None:
        """Apply the delta unless it would pass a quota (quotas.QUOTAS); None when applied, otherwise the
        quota it would pass and the usage it met (nothing changed)."""


class SearchReader(Protocol):
    """What a word search reads of the index (usecases.passages): the index itself, or usecases.overlay's view
    of it with the backlog applied."""

    @property
    def analyzer(self) -> Analyzer:
        """How texts become terms in this store (words.Analyzer, with the composition root's stemmer)."""

    def statistics(self, agent_id: str) -> Statistics: ...

    def frequency(self, agent_id: str, term: str) -> int:
        """In how many of the agent's documents the term is."""

    def postings(self, agent_id: str, term: str) -> list[Posting]:
        """Every document of the agent holding the term."""

    def owners(self, agent_id: str, owners: Sequence[int]) -> dict[int, tuple[str, int]]:
        """The path and last write (ms; 0 for a log) of each of these owners of the agent's rows (a file's record,
        or minus a log's id) that is a live file's or log's; the others are left out."""

    def owner_slots(self, owner: int) -> Sequence[int]:
        """A file record's slots, by its owner id."""

    def texts(self, row_ids: Sequence[int]) -> dict[int, str]:
        """The text of each of these rows."""

    def entry_texts(self, owner: int, entries: Sequence[int]) -> dict[int, str]:
        """The text of each of these entries of a log (owner: minus its id), its pieces joined."""


class SearchIndex(SearchReader, Protocol):
    """The word-search index (scratchpad_core.search.indexing): its rows, each file's slots and version, each log's
    indexed entries, and each agent's Statistics; and on each file and log, a marker of what the index holds of
    it, kept by every change here, so that a write that changes content leaves it in the agent's backlog
    (`lagging`: files whose indexed version is not their current one; logs whose indexed entries are not their
    live ones), which usecases.indexer.catch_up brings up to date.

    Owners: a file's rows belong to its index record (an id that stays when the file moves), a log's to minus
    the log's id."""

    def file_slots(self, file_id: int) -> FileSlots | None:
        """The file's index record: the version it reflects and its slots (None: nothing indexed)."""

    def splice(
        self,
        agent_id: str,
        file_id: int,
        version: int,
        start: int,
        stop: int,
        rows: Sequence[Part],
        record: FileSlots | None,
    ) -> None:
        """Replace the file's slots start..stop with `rows` (indexing.Part: a slot kept, a new row, or None for
        an empty line; the rows of the replaced slots not kept are deleted), and record that the index reflects
        `version`; `record` is the file's, as file_slots gave it (None: it has none yet, and gets one)."""

    def drop_file(self, file_id: int) -> None:
        """Delete the file's rows and record (nothing when it has none)."""

    def move_file(self, from_id: int, to_id: int, version: int) -> None:
        """The record (and rows) of file from_id become to_id's, at `version` (a rename)."""

    def log_entries(self, log_id: int) -> tuple[int, int] | None:
        """The first and last entry ids indexed of the log (None: none)."""

    def add_entries(
        self, agent_id: str, log_id: int, entries: Sequence[tuple[int, Sequence[IndexRow]]], *, below: int = 0
    ) -> None:
        """Index entries (id, rows) after the last one indexed; with `below`, the rows of entries below it (that
        retention dropped in this transaction) go in the same change. No entries: the log's marker is set to what
        its record holds (an earlier release indexed them)."""

    def drop_entries(self, log_id: int, below: int | None = None) -> None:
        """Delete the log's rows of entries below `below` (None: all of them, and its record)."""

    def behind(self, limit: int) -> list[str]:
        """Some of the agents whose index has a backlog (at most `limit`; the background pass's)."""

    def claim(self, agent_id: str) -> bool:
        """Whether this transaction may catch the agent's backlog up alone (PostgreSQL: an advisory lock held
        to its end; False: another replica's background pass is at it). A search does not ask: it waits."""

    def batch(self, agent_id: str) -> AbstractContextManager[None]:
        """A block of changes to the agent's index whose statistics are read and saved once (a catch-up)."""

    def lagging(
        self, agent_id: str, limit: int = 1
    ) -> tuple[list[tuple[int, str | None]], list[tuple[int, str | None]]]:
        """Up to `limit` each of the agent's files and logs, (id, path), whose index does not reflect their
        content (the backlog: its cost is the backlog's, not the namespace's); path None for a record of a file
        or log that is gone."""


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

    @property
    def index(self) -> SearchIndex: ...

    @property
    def retention(self) -> RetentionRepository: ...

    @property
    def changes(self) -> ChangeReader: ...

    def __enter__(self) -> UnitOfWork: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...

    def commit(self) -> None: ...


class UnitOfWorkFactory(Protocol):
    def __call__(self, *, read_only: bool = False) -> UnitOfWork:
        """A new unit of work; a read-only one reads a consistent snapshot that blocks no writer."""


class KeyStore(Protocol):
    """API keys with their grants (grants.py), read afresh on every request so that any change holds at once."""

    def add(self, key: ApiKey, key_hash: str) -> None:
        """Store the key and its grants, together."""

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        """The key with this hash (revoked ones too) and its grants; records the use of an active key."""

    def get(self, key_id: str) -> ApiKey | None:
        """The key with this id (revoked ones too) and its grants."""

    def list(self) -> list[ApiKey]: ...

    def grant(self, key_id: str, grant: Grant) -> None:
        """Give the key this access to the grant's agent, in place of any it had there."""

    def ungrant(self, key_id: str, agent_id: str) -> bool:
        """Take the key's grant on the agent away; False if it had none."""

    def revoke(self, key_id: str, now: int) -> bool:
        """End the key; False if there is no such (unrevoked) key."""


class RateLimiter(Protocol):
    def acquire(self, agent_id: str) -> float:
        """Take one call from the budget (an agent's, or a key's): 0.0 if allowed, else the seconds to wait (nothing
        taken)."""


class Summarizer(Protocol):
    model: str

    def summarize(self, path: str, content: str) -> str:
        """A concise summary; raises SummaryUnavailable when it cannot run."""


class Matcher(Protocol):
    def __call__(self, line: str) -> int | None:
        """Where the first match in `line` starts, or None."""


@runtime_checkable
class TextMatcher(Matcher, Protocol):
    def lines(self, text: str) -> Iterator[tuple[int, int]]:
        """(number, start) of each line of `text` holding a match, in order, as matching each line would find
        them (lines cut as text.split_keepends does, each matched without its ending); start: where its first
        match starts in the line."""


class RegexEngine(Protocol):
    def compile(self, pattern: str, case_sensitive: bool) -> Matcher:
        """A bounded-time matcher (a TextMatcher where it can match a whole text at once); raises InvalidInput
        for a bad or too costly pattern."""


Clock = Callable[[], int]
