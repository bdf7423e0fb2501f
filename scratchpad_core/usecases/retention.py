"""Retention (scratchpad_core.retention.rules): set, list and clear rules; trim a log in the transaction of an append
that goes past its rule; prune what rules by age have left behind (`db prune`)."""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass

from ..model import UsageDelta
from ..paths import check_agent_id
from ..ports import UnitOfWork
from ..results import PruneResult
from ..retention.change import rule_change
from ..retention.rules import (
    DROP_BATCH,
    FILES,
    LOGS,
    RetentionRule,
    age_threshold,
    drop_below,
    drop_window,
    make_rule,
    rule_for,
)
from ..retention.rules import target as rule_target
from .base import UseCaseBase
from .expiry import due, expire, live


@dataclass(frozen=True)
class Trimmed:
    entries: int = 0
    bytes: int = 0
    emptied: bool = False  # every entry was past its age: the log is gone, as after delete_log
    below: int = 0  # the entries below this id went

    def delta(self) -> UsageDelta:
        return UsageDelta(logs=-int(self.emptied), log_entries=-self.entries, bytes=-self.bytes, operations=0)


NOTHING = Trimmed()


def trim_log(
    uow: UnitOfWork, rule: RetentionRule, log_id: int, first: int, last: int, now: int, *, index: bool = True
) -> Trimmed:
    """Drop, in the caller's transaction, the oldest batch of the log first..last that `rule` no longer keeps
    (the log's row locked), with their index rows unless the catch-up drops them (index=False: an append,
    which leaves the log in the index's backlog); the caller counts them (Trimmed.delta)."""
    count_below, end = drop_window(rule, first, last)
    since = age_threshold(rule, now)
    if since is None and count_below <= first:
        return NOTHING
    young = None if since is None else uow.logs.young_from(log_id, end, since)
    below = drop_below(rule, first, last, young)
    if below <= first:
        return NOTHING
    if below > last:  # nothing kept (a prune by age; an append's own entry is young): the log goes
        return NOTHING
    entries, freed = uow.logs.trim(log_id, below)
    if index:
        uow.index.drop_entries(log_id, below=below)
    return Trimmed(entries, freed, below=below)


class Retention(UseCaseBase):
    def set_retention(
        self,
        agent_id: str,
        *,
        logs: str | None = None,
        files: str | None = None,
        keep_entries: int | None = None,
        max_age: str | int | None = None,
    ) -> RetentionRule:
        """Keep the newest keep_entries entries and/or those younger than max_age (90s, 15m, 12h, 30d, or
        seconds) of the agent's logs under the prefix `logs`, or make its files under the prefix `files` expire
        max_age after their last write; replaces a rule on the same prefix. The agent may hold nothing yet. A
        log past the rule catches up over its next appends, or at prune(), which also deletes expired files."""
        rule = make_rule(agent_id, logs=logs, files=files, keep_entries=keep_entries, max_age=max_age)

        def work(uow: UnitOfWork) -> RetentionRule:
            uow.retention.set(rule, self._clock())
            return rule

        return self._transact(work)

    def change_retention(
        self,
        agent_id: str,
        *,
        logs: str | None = None,
        files: str | None = None,
        keep_entries: int | None = None,
        max_age: str | int | None = None,
        remove: Collection[str] = (),
    ) -> RetentionRule:
        """Change only the limits given of the agent's rule on that logs (or files) prefix, and remove those named
        in `remove` ("keep_entries", "max_age"); its other limits stay. A prefix without a rule gets one of the
        limits given. Returns the resulting rule (a rule left with no limit is refused: clear it instead)."""
        change = rule_change(
            agent_id, logs=logs, files=files, keep_entries=keep_entries, max_age=max_age, remove=remove
        )

        def work(uow: UnitOfWork) -> RetentionRule:
            rule = change.applied_to(uow.retention.lock(change.agent_id, change.kind, change.prefix))
            uow.retention.set(rule, self._clock())
            return rule

        return self._transact(work)

    def list_retention(self, agent_id: str | None = None) -> list[RetentionRule]:
        """Every rule (or the agent's), sorted by agent, kind and prefix."""
        agent = None if agent_id is None else check_agent_id(agent_id)
        return self._transact(lambda uow: uow.retention.all(agent), read_only=True)

    def clear_retention(self, agent_id: str, *, logs: str | None = None, files: str | None = None) -> bool:
        """Remove the agent's rule on that logs (or files) prefix; False if there was none."""
        agent_id = check_agent_id(agent_id)
        kind, prefix = rule_target(logs, files)
        return self._transact(lambda uow: uow.retention.clear(agent_id, kind, prefix))

    def prune(self) -> PruneResult:
        """Apply every rule to what it governs, a bounded batch per transaction, until nothing is past its rule:
        logs far past a new rule, entries past their age with no append since, and expired files (deleted as
        delete_file does)."""
        trimmed, entries, freed, emptied, files, file_bytes = set(), 0, 0, 0, 0, 0
        rules = self._transact(lambda uow: uow.retention.all(), read_only=True)
        for rule in (r for r in rules if r.kind == LOGS):
            for path in self._governed(rule):
                while (step := self._trim_step(rule, path)) != NOTHING:
                    trimmed.add((rule.agent_id, path))
                    entries, freed, emptied = entries + step.entries, freed + step.bytes, emptied + step.emptied
                    if step.emptied:
                        break
        for rule in (r for r in rules if r.kind == FILES):
            while batch := self._transact(functools.partial(self._expire_batch, rule=rule)):
                files, file_bytes = files + batch[0], file_bytes + batch[1]
        return PruneResult(len(trimmed), entries, freed, emptied, files, file_bytes)

    def _expire_batch(self, uow: UnitOfWork, rule: RetentionRule) -> tuple[int, int] | None:
        """Delete up to DROP_BATCH of the expired files that `rule` governs; None when there were none."""
        now = self._clock()
        paths = due(uow, rule, now, DROP_BATCH)
        locked = [uow.files.lock(rule.agent_id, path) for path in sorted(paths)]  # every row first, by path
        gone = [r for r in locked if r is not None and r.current_version > 0 and live(uow, r, now) is None]
        freed = expire(uow, gone, now, self.limits)
        return (len(gone), freed) if gone else None

    def _governed(self, rule: RetentionRule) -> list[str]:
        """The paths of the agent's live logs that `rule` governs (no longer prefix takes them)."""

        def work(uow: UnitOfWork) -> list[str]:
            rules = uow.retention.rules(rule.agent_id, LOGS)
            logs = uow.logs.list(rule.agent_id, rule.prefix)
            return [g.path for g in logs if rule_for(rules, g.path) == rule]

        return self._transact(work, read_only=True)

    def _trim_step(self, rule: RetentionRule, path: str) -> Trimmed:
        def work(uow: UnitOfWork) -> Trimmed:
            log = uow.logs.lock(rule.agent_id, path)
            current = rule_for(uow.retention.rules(rule.agent_id, LOGS), path)
            if log is None or log.entries == 0 or current != rule:  # gone, or the rule changed meanwhile
                return NOTHING
            now = self._clock()
            first = log.last_entry_id - log.entries + 1
            step = trim_log(uow, rule, log.id, first, log.last_entry_id, now)
            if step == NOTHING and rule.max_age is not None and _all_old(uow, log.id, log.last_entry_id, now, rule):
                freed = uow.logs.delete(log.id, now, self.limits.remembered_deletions)
                uow.index.drop_entries(log.id)
                step = Trimmed(freed[0], freed[1], emptied=True)
            if step != NOTHING:
                self._count(uow, rule.agent_id, step.delta())
            return step

        return self._transact(work)


def _all_old(uow: UnitOfWork, log_id: int, last: int, now: int, rule: RetentionRule) -> bool:
    since = age_threshold(rule, now)
    return since is not None and uow.logs.young_from(log_id, last + 1, since) is None
