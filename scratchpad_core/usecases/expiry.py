"""Expiring files (scratchpad_core.retention, a files rule): an expired file reads as deleted everywhere (a
reader filters it out), and a write that meets it deletes it first, as delete_file does, so its path remembers
its number and the next version carries on; `prune` deletes the rest, a bounded batch at a time."""

from __future__ import annotations

from collections.abc import Callable

from ..limits import Limits
from ..model import FileRecord, UsageDelta
from ..ports import UnitOfWork
from ..retention import FILES, RetentionRule, expired, rule_for

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
    freed = 0
    for record in records:
        uow.index.drop_file(record.id)
        freed += uow.files.delete(record.id, now, limits.remembered_deletions)[1]
    if records:
        delta = UsageDelta(files=-len(records), bytes=-freed, operations=0)
        breach = uow.usage.apply(records[0].agent_id, delta, limits)
        assert breach is None, "a change that only lowers counters passes every quota"
    return freed


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


def due(uow: UnitOfWork, rule: RetentionRule, now: int, limit: int) -> list[str]:
    """Up to `limit` paths of the expired files that `rule` governs (no longer prefix of the agent's takes them),
    for a prune."""
    rules = uow.retention.rules(rule.agent_id, FILES)
    paths = []
    for record in uow.files.list(rule.agent_id, rule.prefix, None, None):
        if rule_for(rules, record.path) == rule and expired(rule, record.updated_at, now):
            paths.append(record.path)
            if len(paths) == limit:
                break
    return paths
