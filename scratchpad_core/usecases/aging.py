"""Log entries past their rule's max_age read as dropped (scratchpad_core.retention.kept_from), for every reader
(read_log, list_logs, the three kinds of search, the usage counters and the quotas, the recall prompt and the web
view, which read through those, and export), whether or not an append or a prune has dropped them yet. One rule:
`seen`. A write that a quota would refuse while aged entries still count drops them first (expiry.Room, `drop`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..limits import Limits
from ..model import LogRecord, Usage, UsageDelta
from ..ports import UnitOfWork
from ..retention.rules import LOGS, RetentionRule, age_threshold, kept_from, rule_for


def seen(uow: UnitOfWork, log: LogRecord, now: int, rules: Sequence[RetentionRule] | None = None) -> LogRecord:
    """The log as a reader sees it at `now`: `entries` (and `bytes`) count only those its rule (of the agent's
    `rules`, read when not given) keeps by age, the oldest kept being last_entry_id - entries + 1 (0 entries: all
    are past it, and the log reads as empty, as after a drop of all of them)."""
    if log.entries == 0:
        return log
    rule = rule_for(uow.retention.rules(log.agent_id, LOGS) if rules is None else rules, log.path)
    since = None if rule is None else age_threshold(rule, now)
    if since is None:
        return log
    first = log.last_entry_id - log.entries + 1
    start = kept_from(first, log.last_entry_id, uow.logs.young_from(log.id, log.last_entry_id + 1, since))
    if start == first:
        return log
    _, aged_bytes = uow.logs.stored_below(log.id, start)
    return dataclasses.replace(log, entries=log.last_entry_id - start + 1, bytes=log.bytes - aged_bytes)


def aged_logs(uow: UnitOfWork, agent_id: str, now: int, *, lock: bool = False) -> list[tuple[LogRecord, LogRecord]]:
    """The agent's logs some of whose entries are past their rule's max_age: (stored, seen), in path order (lock:
    their rows locked, for dropping them)."""
    rules = uow.retention.rules(agent_id, LOGS)
    governed = sorted({log.path for rule in rules if rule.max_age is not None
                       for log in uow.logs.list(agent_id, rule.prefix)})  # fmt: skip
    found = []
    for path in governed:
        log = (uow.logs.lock if lock else uow.logs.get)(agent_id, path)
        if log is not None and log.entries > 0:
            shown = seen(uow, log, now, rules)
            if shown.entries < log.entries:
                found.append((log, shown))
    return found


def aged_usage(uow: UnitOfWork, usage: Usage, now: int) -> Usage:
    """The agent's counters less its entries past their age (and a log all of whose entries are: as dropped)."""
    aged = aged_logs(uow, usage.agent_id, now)
    if not aged:
        return usage
    return dataclasses.replace(
        usage,
        logs=usage.logs - sum(shown.entries == 0 for _, shown in aged),
        log_entries=usage.log_entries - sum(log.entries - shown.entries for log, shown in aged),
        bytes=usage.bytes - sum(log.bytes - shown.bytes for log, shown in aged),
    )


def drop(uow: UnitOfWork, aged: list[tuple[LogRecord, LogRecord]], now: int, limits: Limits) -> None:
    """Drop the aged entries of logs locked by the caller (aged_logs, lock=True) that have not changed since, as a
    prune does (a log all of whose entries are aged is deleted), and take them off the counters."""
    logs = entries = freed = 0
    for log, shown in aged:
        if uow.logs.get(log.agent_id, log.path) != log:
            continue
        start = shown.last_entry_id - shown.entries + 1
        if shown.entries == 0:
            gone = uow.logs.delete(log.id, now, limits.remembered_deletions)
            uow.index.drop_entries(log.id)
            logs += 1
        else:
            gone = uow.logs.trim(log.id, start)
            uow.index.drop_entries(log.id, below=start)
        entries, freed = entries + gone[0], freed + gone[1]
    if entries:
        delta = UsageDelta(logs=-logs, log_entries=-entries, bytes=-freed, operations=0)
        breach = uow.usage.apply(aged[0][0].agent_id, delta, limits)
        assert breach is None, "a change that only lowers counters passes every quota"


def seen_logs(uow: UnitOfWork, agent_id: str, prefix: str, now: int) -> list[LogRecord]:
    """The agent's logs under `prefix` that hold an entry a reader sees, in path order, as `seen` gives them."""
    rules = uow.retention.rules(agent_id, LOGS)
    logs = (seen(uow, log, now, rules) for log in uow.logs.list(agent_id, prefix))
    return [log for log in logs if log.entries > 0]


def aged_floors(uow: UnitOfWork, agent_id: str, now: int) -> dict[int, int]:
    """For each of the agent's logs some of whose entries are past their rule's max_age: the id of the oldest
    entry a reader sees (past the last: none), keyed by the log's index owner (-log id)."""
    return {-log.id: shown.last_entry_id - shown.entries + 1 for log, shown in aged_logs(uow, agent_id, now)}
