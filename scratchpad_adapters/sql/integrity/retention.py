"""What `db check` says of retention (scratchpad_core.retention.rules): logs still past a rule (an append drops a batch,
`db prune` the rest) and expired files not yet pruned are no violation, so a note names them. A log kept by a
rule holds ids contiguous from its oldest kept entry, which the entry-gap rule already accepts."""

from __future__ import annotations

import time

from sqlalchemy import Connection, and_, select

from scratchpad_core.retention.rules import FILES, LOGS, RetentionRule, expired, rule_for

from ..schema.tables import files, logs, retention_rules

r, f, g = retention_rules.c, files.c, logs.c


def retention_note(connection: Connection, agent: str | None, now: int | None = None) -> str | None:
    query = select(r.agent_id, r.kind, r.prefix, r.keep_entries, r.max_age)
    if agent is not None:
        query = query.where(r.agent_id == agent)
    rules: dict[tuple[str, str], list[RetentionRule]] = {}
    for row in connection.execute(query):
        rules.setdefault((row.agent_id, row.kind), []).append(RetentionRule(**row._mapping))
    if not rules:
        return None
    now = time.time_ns() // 1_000_000 if now is None else now
    over, due = 0, 0
    for (agent_id, kind), own in rules.items():
        table, live = (logs, g.entries > 0) if kind == LOGS else (files, f.current_version > 0)
        rows = connection.execute(select(table).where(and_(table.c.agent_id == agent_id, live)))
        for row in rows:
            rule = rule_for(own, row.path)
            if rule is None:
                continue
            if kind == FILES:
                due += expired(rule, row.updated_at, now)
            elif rule.keep_entries is not None and row.entries > rule.keep_entries:
                over += 1
    count = sum(len(own) for own in rules.values())
    return (
        f"note: {count:,} retention rule{'s' * (count != 1)}; {over:,} log{'s' * (over != 1)} past its keep-entries "
        f"and {due:,} expired file{'s' * (due != 1)} not yet pruned (`db prune` removes them). Not a violation."
    )
