"""Expiring files (scratchpad_core.retention.rules, a files rule): an expired file reads as deleted everywhere (a
reader filters it out), and a write that meets it deletes it first, as delete_file does, so its path remembers
its number and the next version carries on; `prune` deletes the rest, a bounded batch at a time.

Until then the agent's counters still hold it, and it counts nowhere: usage readers take the expired files
not yet pruned off the counters (visible_usage), and a write that a quota would refuse while the agent has
some deletes them first and runs again (Room). Both find them by a range scan of the files' last writes under
each rule (FileRepository.written_before), whatever the number of files the agent holds."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from ..limits import Limits
from ..model import FileRecord, LogRecord, Usage, UsageDelta
from ..ports import UnitOfWork
from ..retention.rules import FILES, RetentionRule, age_threshold, expired, nested, rule_for
from .aging import aged_logs, drop

Visible = Callable[[str, int], bool]  # (path, updated_at) -> not expired


def every_file(path: str, updated_at: int) -> bool:
    """What visible() gives for an agent with no files rule: every file is there (a listing need not ask)."""
    return True


def visible(uow: UnitOfWork, agent_id: str, now: int) -> Visible:
    """Whether a file of the agent, by its path and last write, is still there (the agent's rules read once)."""
    rules = uow.retention.rules(agent_id, FILES)
    if not rules:
        return every_file
    return lambda path, updated_at: not expired(rule_for(rules, path), updated_at, now)


def live(uow: UnitOfWork, record: FileRecord | None, now: int) -> FileRecord | None:
    """The record, or None when its file has expired (a reader treats it as deleted)."""
    if record is None or record.current_version <= 0:
        return record
    return record if visible(uow, record.agent_id, now)(record.path, record.updated_at) else None


def expire(uow: UnitOfWork, records: list[FileRecord], now: int, limits: Limits) -> int:
    """Delete expired files of one agent, as delete_file does (their rows locked by the caller, before the
    counters: one lock order), and take them off the agent's counters; returns the bytes freed."""
    delta = _delete(uow, records, now, limits)
    if records:
        breach = uow.usage.apply(records[0].agent_id, delta, limits)
        assert breach is None, "a change that only lowers counters passes every quota"
    return -delta.bytes


def _delete(uow: UnitOfWork, records: list[FileRecord], now: int, limits: Limits) -> UsageDelta:
    """Delete the files, as delete_file does; returns the change to the agent's counters (not applied)."""
    freed = 0
    for record in records:
        uow.index.drop_file(record.id)
        freed += uow.files.delete(record.id, now, limits.remembered_deletions)[1]
    return UsageDelta(files=-len(records), bytes=-freed, operations=0)


def expire_if_due(uow: UnitOfWork, agent_id: str, path: str, now: int, limits: Limits) -> None:
    """Before a write to `path`: delete the file there if it has expired (lazily, in the write's transaction)."""
    if not uow.retention.rules(agent_id, FILES):
        return
    record = uow.files.lock(agent_id, path)
    if record is not None and record.current_version > 0 and live(uow, record, now) is None:
        expire(uow, [record], now, limits)


def expired_paths(uow: UnitOfWork, agent_id: str, now: int) -> frozenset[str]:
    """The paths of the agent's live files that have expired (not yet pruned), for a search to leave out."""
    rules = uow.retention.rules(agent_id, FILES)
    found: set[str] = set()
    for rule in rules:
        for record in uow.files.list(agent_id, rule.prefix, None, None):
            if expired(rule_for(rules, record.path), record.updated_at, now):
                found.add(record.path)
    return frozenset(found)


def due(uow: UnitOfWork, rule: RetentionRule, now: int, limit: int | None) -> list[str]:
    """The paths of the expired files that `rule` governs (no longer prefix of the agent's takes them), sorted
    (the first `limit`)."""
    since = age_threshold(rule, now)
    if since is None:
        return []
    others = nested(uow.retention.rules(rule.agent_id, FILES), rule)
    return [r.path for r in uow.files.written_before(rule.agent_id, rule.prefix, since, others, limit)]


FREED = frozenset({"files", "bytes", "log_entries"})  # the counters (quotas) an expired file or an aged entry
# still holds until it is deleted


def visible_usage(uow: UnitOfWork, usage: Usage, now: int, rules: list[RetentionRule] | None = None) -> Usage:
    """The agent's counters as list_files counts: less the files that have expired and are not yet pruned (and
    the bytes of their retained versions). `rules`: the agent's files rules, when the caller has read them."""
    rules = uow.retention.rules(usage.agent_id, FILES) if rules is None else rules
    files = size = 0
    for rule in rules:
        since = age_threshold(rule, now)
        if since is not None:
            found = uow.files.stored_written_before(usage.agent_id, rule.prefix, since, nested(rules, rule))
            files, size = files + found[0], size + found[1]
    return dataclasses.replace(usage, files=usage.files - files, bytes=usage.bytes - size) if files else usage


def has_expired(uow: UnitOfWork, agent_id: str, now: int) -> bool:
    """Whether any file of the agent has expired, or any entry of its logs has aged, and is not yet pruned."""
    return any(due(uow, rule, now, 1) for rule in uow.retention.rules(agent_id, FILES)) or bool(
        aged_logs(uow, agent_id, now)
    )


@dataclasses.dataclass
class Room:
    """The agent's expired files and its logs' entries past their age, for a call that a quota would have refused
    while they were counted: their rows are locked when its transaction starts, and they are deleted (with their
    index rows, then the counters: one lock order, files, logs, then the agent's counters) just before the call's
    own change to the counters (settle). A write to one of them deletes it itself first, as it always does."""

    agent_id: str
    expired: list[FileRecord]
    now: int
    aged: list[tuple[LogRecord, LogRecord]] = dataclasses.field(default_factory=list)
    settled: bool = False

    @classmethod
    def made(cls, uow: UnitOfWork, agent_id: str, now: int) -> Room:
        """Lock the agent's expired files, by path."""
        rules = uow.retention.rules(agent_id, FILES)
        paths = sorted({path for rule in rules for path in due(uow, rule, now, None)})
        locked = [uow.files.lock(agent_id, path) for path in paths]
        there = visible(uow, agent_id, now)
        return cls(
            agent_id,
            [r for r in locked if r is not None and r.current_version > 0 and not there(r.path, r.updated_at)],
            now,
            aged_logs(uow, agent_id, now, lock=True),
        )

    def settle(self, uow: UnitOfWork, limits: Limits) -> None:
        """Delete those the call left as they were, and take them off the counters (once)."""
        if self.settled:
            return
        self.settled = True
        unchanged = [r for r in self.expired if uow.files.get(r.agent_id, r.path) == r]
        expire(uow, unchanged, self.now, limits)
        drop(uow, self.aged, self.now, limits)
