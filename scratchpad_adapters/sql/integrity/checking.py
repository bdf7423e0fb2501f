"""`db check`: verify every invariant of a store in one consistent, read-only snapshot, in bounded memory.

The rules are in integrity_rules (each a query returning only the rows that break it). The check
reads in one transaction (SQLite: one deferred read transaction, so one WAL snapshot; Postgres:
REPEATABLE READ, READ ONLY), writes nothing, and keeps at most EXAMPLES violations of each rule
(the rest are counted), so a badly broken store of any size is reported in bounded memory.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, Engine, func, select, union

from scratchpad_core.errors import NotFound
from scratchpad_core.limits import Limits

from ..connection.engine import snapshot
from ..schema.tables import agents, file_versions, files, log_entries, logs, summaries
from . import content, counts, rules, search
from .retention import retention_note
from .rules import Violation

EXAMPLES = 20  # violations of one rule shown in the report; the others are counted
PLURALS = {"agent": "agents", "file row": "file rows", "version": "versions", "summary": "summaries",
           "log row": "log rows", "entry": "entries"}  # fmt: skip

__all__ = ["EXAMPLES", "Report", "Violation", "check"]


@dataclass
class Report:
    """What a check found: a sample of each rule's violations, how many there were, and what was read."""

    agent: str | None
    checked: dict[str, int] = field(default_factory=dict)  # rows read, by kind (singular)
    examples: list[Violation] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    notes: list[str] = field(default_factory=list)  # what holds but an operator may want to know; not failures

    @property
    def ok(self) -> bool:
        return not self.counts

    @property
    def rules_broken(self) -> list[str]:
        return sorted(self.counts)

    def add(self, violation: Violation) -> None:
        self.counts[violation.rule] += 1
        if self.counts[violation.rule] <= EXAMPLES:
            self.examples.append(violation)

    def summary(self) -> str:
        scope = f"agent {self.agent!r}" if self.agent is not None else "every agent"
        read = ", ".join(f"{count:,} {name if count == 1 else PLURALS[name]}" for name, count in self.checked.items())
        if self.ok:
            return f"OK: {scope}: {read}; every invariant holds."
        total = sum(self.counts.values())
        return (
            f"FAILED: {scope}: {total:,} violation{'s' if total != 1 else ''} of {len(self.counts)} "
            f"rule{'s' if len(self.counts) != 1 else ''} ({', '.join(self.rules_broken)}) in {read}."
        )

    def lines(self) -> Iterator[str]:
        """The report: one line a violation shown, a line for each rule with more than were shown, the notes,
        the summary."""
        for violation in self.examples:
            owner = f"agent {violation.agent_id!r}" if violation.agent_id is not None else "no agent"
            yield f"{violation.rule}: {owner}, {violation.where}: {violation.detail}"
        for rule, count in sorted(self.counts.items()):
            if count > EXAMPLES:
                yield f"{rule}: {count - EXAMPLES:,} more not shown"
        yield from self.notes
        yield self.summary()


def check(engine: Engine, limits: Limits, agent: str | None = None) -> Report:
    """Check the store (or one agent's part of it, plus rows that belong to no agent) against its limits.
    An agent with no rows at all is refused (NotFound): a typo would otherwise pass."""
    report = Report(agent)
    with engine.connect() as connection, snapshot(connection).begin():
        report.checked = _sizes(connection, agent)
        if agent is not None and not report.checked["agent"]:
            raise NotFound(f"Agent {agent!r} has no data in this database; nothing was checked. Check the agent id.")
        for violation in _all(connection, agent, limits):
            report.add(violation)
        note = rules.retention_note(connection, agent, limits)
        report.notes.extend([note] if note else [])
        kept = retention_note(connection, agent)
        report.notes.extend([kept] if kept else [])
        backlog = search.backlog_note(connection, agent)
        report.notes.extend([backlog] if backlog else [])
    return report


def _all(connection: Connection, agent: str | None, limits: Limits) -> Iterator[Violation]:
    yield from rules.file_rules(connection, agent, limits)
    yield from rules.head_rules(connection, agent)
    yield from content.content_rules(connection, agent)
    yield from rules.summary_rules(connection, agent)
    yield from counts.log_rules(connection, agent)
    yield from counts.counter_rules(connection, agent, limits)
    yield from rules.orphan_rules(connection)
    yield from search.search_rules(connection, agent)


def _sizes(connection: Connection, agent: str | None) -> dict[str, int]:
    """How much the check reads: rows of each kind (in scope), counted by the database."""
    f, g = files.c, logs.c

    def count(source: Any, agent_column: Any) -> int:
        query = select(func.count()).select_from(source)
        if agent is not None:
            query = query.where(agent_column == agent)
        return int(connection.execute(query).scalar_one())

    union_ids = union(select(agents.c.agent_id), select(f.agent_id), select(g.agent_id)).subquery()
    return {
        "agent": count(union_ids, union_ids.c.agent_id),
        "file row": count(files, f.agent_id),
        "version": count(file_versions.join(files, file_versions.c.file_id == f.id), f.agent_id),
        "summary": count(summaries.join(files, summaries.c.file_id == f.id), f.agent_id),
        "log row": count(logs, g.agent_id),
        "entry": count(log_entries.join(logs, log_entries.c.log_id == g.id), g.agent_id),
    }
