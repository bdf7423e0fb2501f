"""`db check`'s rules on counts: each log's entries against its row, each agent's counters against a recount.

Stated as integrity_rules states the file rules: one flag column a rule, only breaking rows returned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy import Connection, and_, case, func, or_, select, union

from scratchpad_core.limits import Limits

from ..schema.tables import agents, file_versions, files, log_entries, logs
from .rules import Rule, Violation, a, e, f, flags, g, per_owner, scoped, size_rule, v, violations


def log_rules(connection: Connection, agent: str | None) -> Iterator[Violation]:
    """Per log row: its entries against its counters and last id, and what a tombstone may hold."""
    count, total = func.count(e.entry_id), func.coalesce(func.sum(e.bytes), 0)
    lo, hi = func.min(e.entry_id), func.max(e.entry_id)
    live, dead = g.entries > 0, g.entries == 0
    rules: list[Rule] = [
        ("log-state", g.entries < 0, lambda r: f"a log row with {r.entries} entries"),
        ("log-counters", and_(live, or_(count != g.entries, total != g.bytes)),
         lambda r: f"the row says {r.entries} entries of {r.bytes} bytes; there are {r.n} of {r.total}"),
        ("entry-gap", and_(count > 0, or_(lo < 1, hi - lo + 1 != count)),
         lambda r: f"entry ids {r.lo}..{r.hi} held as {r.n} rows: not contiguous from 1 or more"),
        ("entry-head", and_(live, hi != g.last_entry_id),
         lambda r: f"the last entry id is {r.last_entry_id}, but the newest entry is {r.hi}"),
        ("tombstone-entries", and_(dead, or_(count > 0, g.bytes != 0)),
         lambda r: f"deleted but still holds {r.n} entries and counts {r.bytes} bytes"),
        ("tombstone-log-id", and_(dead, g.last_entry_id < 1),
         lambda r: f"deleted, remembering last entry id {r.last_entry_id} (a deleted log had at least 1)"),
    ]  # fmt: skip
    yield from per_owner(connection, agent, logs, log_entries, rules, n=count, total=total, lo=lo, hi=hi)
    yield from size_rule(connection, agent, "entry", e.entry, e.entry_id, logs)


def _counter_differs(name: str) -> Callable[[Any], str]:
    return lambda r: (
        f"the agent's {name} counter is {getattr(r, 'stored_' + name)}, a recount gives "
        + str(getattr(r, "re_" + name))
    )


def _remembers_too_many(name: str, limit: int) -> Callable[[Any], str]:
    return lambda r: (
        f"{getattr(r, 'dead_' + name)} deleted {name} remembered; the limit is {limit} "
        "(SCRATCHPAD_REMEMBERED_DELETIONS)"
    )


def counter_rules(connection: Connection, agent: str | None, limits: Limits) -> Iterator[Violation]:
    """Each agent's counters equal a recount of its rows, and it remembers no more deletions than its limit."""
    ids = union(select(a.agent_id), select(f.agent_id), select(g.agent_id)).subquery("ids")
    live_files = _per_agent(files, f.agent_id, n=func.sum(case((f.current_version > 0, 1), else_=0)),
                            dead=func.sum(case((f.current_version < 0, 1), else_=0)))  # fmt: skip
    live_logs = _per_agent(logs, g.agent_id, n=func.sum(case((g.entries > 0, 1), else_=0)),
                           dead=func.sum(case((g.entries == 0, 1), else_=0)))  # fmt: skip
    version_bytes = _per_agent(file_versions.join(files, v.file_id == f.id), f.agent_id, total=func.sum(v.bytes))
    entries = _per_agent(log_entries.join(logs, e.log_id == g.id), g.agent_id, n=func.count(), total=func.sum(e.bytes))
    recount = {
        "files": func.coalesce(live_files.c.n, 0),
        "bytes": func.coalesce(version_bytes.c.total, 0) + func.coalesce(entries.c.total, 0),
        "logs": func.coalesce(live_logs.c.n, 0),
        "log_entries": func.coalesce(entries.c.n, 0),
    }
    stored = {name: func.coalesce(a[name], 0) for name in recount}
    remembered = {"files": func.coalesce(live_files.c.dead, 0), "logs": func.coalesce(live_logs.c.dead, 0)}
    rules: list[Rule] = [
        (f"counter-{name.replace('_', '-')}", stored[name] != recount[name], _counter_differs(name))
        for name in recount
    ] + [
        (f"remembered-{name}", remembered[name] > limits.remembered_deletions,
         _remembers_too_many(name, limits.remembered_deletions))
        for name in remembered
    ]  # fmt: skip
    columns = [*(c.label(f"stored_{n}") for n, c in stored.items()), *(c.label(f"re_{n}") for n, c in recount.items())]
    query = (
        select(ids.c.agent_id, *columns, *(c.label(f"dead_{n}") for n, c in remembered.items()), *flags(rules))
        .select_from(
            ids.outerjoin(agents, a.agent_id == ids.c.agent_id)
            .outerjoin(live_files, live_files.c.agent_id == ids.c.agent_id)
            .outerjoin(live_logs, live_logs.c.agent_id == ids.c.agent_id)
            .outerjoin(version_bytes, version_bytes.c.agent_id == ids.c.agent_id)
            .outerjoin(entries, entries.c.agent_id == ids.c.agent_id)
        )
        .where(scoped(ids.c.agent_id, agent), or_(*(broken for _, broken, _ in rules)))
        .order_by(ids.c.agent_id)
    )
    yield from violations(connection, query, rules, lambda r: "counters")


def _per_agent(source: Any, agent_column: Any, **aggregates: Any) -> Any:
    return (
        select(agent_column.label("agent_id"), *(c.label(n) for n, c in aggregates.items()))
        .select_from(source)
        .group_by(agent_column)
        .subquery()
    )
