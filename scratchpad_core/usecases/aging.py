"""Log entries past their rule's max_age read as dropped (scratchpad_core.retention.rules.kept_from), for every reader
(read_log, the three kinds of search), whether or not an append or a prune has dropped them yet."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..model import LogRecord
from ..ports import UnitOfWork
from ..retention.rules import LOGS, RetentionRule, age_threshold, kept_from, rule_for


def seen(uow: UnitOfWork, log: LogRecord, now: int, rules: Sequence[RetentionRule] | None = None) -> LogRecord:
    """The log as a reader sees it at `now`: `entries` counts only those its rule (of the agent's `rules`, read
    when not given) keeps by age, the oldest kept being last_entry_id - entries + 1 (0 entries: all are past
    it, and the log reads as empty, as after a drop of all of them). `bytes` stays what is stored."""
    if log.entries == 0:
        return log
    rule = rule_for(uow.retention.rules(log.agent_id, LOGS) if rules is None else rules, log.path)
    since = None if rule is None else age_threshold(rule, now)
    if since is None:
        return log
    first = log.last_entry_id - log.entries + 1
    start = kept_from(first, log.last_entry_id, uow.logs.young_from(log.id, log.last_entry_id + 1, since))
    return log if start == first else dataclasses.replace(log, entries=log.last_entry_id - start + 1)


def seen_logs(uow: UnitOfWork, agent_id: str, prefix: str, now: int) -> list[LogRecord]:
    """The agent's logs under `prefix` that hold an entry a reader sees, in path order, as `seen` gives them."""
    rules = uow.retention.rules(agent_id, LOGS)
    logs = (seen(uow, log, now, rules) for log in uow.logs.list(agent_id, prefix))
    return [log for log in logs if log.entries > 0]


def aged_floors(uow: UnitOfWork, agent_id: str, now: int) -> dict[int, int]:
    """For each of the agent's logs some of whose entries are past their rule's max_age: the id of the oldest
    entry a reader sees (past the last: none), keyed by the log's index owner (-log id)."""
    rules = uow.retention.rules(agent_id, LOGS)
    floors: dict[int, int] = {}
    governed = {
        log.id: log for rule in rules if rule.max_age is not None for log in uow.logs.list(agent_id, rule.prefix)
    }
    for log in governed.values():
        shown = seen(uow, log, now, rules)
        if shown.entries < log.entries:
            floors[-log.id] = shown.last_entry_id - shown.entries + 1
    return floors
