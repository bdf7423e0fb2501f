"""The log repository: a head row per log whose counter numbers the entries."""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy import Connection, bindparam, case, delete, func, select, update

from scratchpad_core.model import LogEntry, LogRecord
from scratchpad_core.retention.rules import LOGS

from ..connection.execution import run
from ..schema.tables import log_entries, logs
from .queries import forgetting, prefix_bounds, under_prefix
from .retention_repository import NoRules, rule_count
from .stamps import SqlStamp
from .upserts import insert_ignore

g, e = logs.c, log_entries.c

_HEAD_ROW = [logs.c[field.name] for field in dataclasses.fields(LogRecord)]  # not the index's marker
_BY_PATH = select(*_HEAD_ROW).where(g.agent_id == bindparam("agent_id"), g.path == bindparam("path"))
_LOCK_BY_PATH = _BY_PATH.with_for_update()
_BUMP = (
    update(logs)
    .where(g.agent_id == bindparam("agent"), g.path == bindparam("log_path"))
    .values(
        last_entry_id=g.last_entry_id + 1,
        entries=g.entries + 1,
        created_at=case((g.entries == 0, bindparam("now")), else_=g.created_at),  # a deleted log coming back
        bytes=g.bytes + bindparam("size"),
        updated_at=bindparam("now"),
        changed=bindparam("change"),
        born=case((g.entries == 0, bindparam("change")), else_=g.born),
    )
    .returning(g.id, g.last_entry_id, g.entries)
)
_ADD_ENTRY = log_entries.insert().returning(rule_count(bindparam("rules_of"), LOGS))  # the append's next question
_ENTRIES = (
    select(e.entry_id, e.entry, e.created_at, e.actor)
    .where(e.log_id == bindparam("log_id"), e.entry_id > bindparam("after"))
    .order_by(e.entry_id)
    .limit(bindparam("limit"))
)
_LIVE = g.entries > 0  # a deleted log keeps its row, with no entries, so that its ids carry on if it comes back
_LIST = select(*_HEAD_ROW).where(g.agent_id == bindparam("agent_id"), _LIVE).order_by(g.path)
_LIST_UNDER_PREFIX = (
    select(*_HEAD_ROW).where(g.agent_id == bindparam("agent_id"), _LIVE, under_prefix(g.path, True)).order_by(g.path)
)
_DELETE_ENTRIES = delete(log_entries).where(e.log_id == bindparam("log_id")).returning(e.bytes)
_FORGET_LOGS = forgetting(logs, g.entries == 0, select(g.agent_id).where(g.id == bindparam("log_id")).scalar_subquery())
_YOUNG_FROM = (
    select(e.entry_id)
    .where(e.log_id == bindparam("log_id"), e.entry_id < bindparam("below"), e.created_at >= bindparam("since"))
    .order_by(e.entry_id)
    .limit(1)
)
_TRIM_ENTRIES = (
    delete(log_entries)
    .where(e.log_id == bindparam("log_id"), e.entry_id < bindparam("below"))
    .returning(e.bytes, e.change)
)
_STORED_BELOW = select(func.count(), func.coalesce(func.sum(e.bytes), 0)).where(
    e.log_id == bindparam("log_id"), e.entry_id < bindparam("below")
)
_TRIM_LOG = (  # dropped: the newest change of an entry retention dropped (a reader behind it is too old)
    update(logs)
    .where(g.id == bindparam("log_id"))
    .values(
        entries=g.entries - bindparam("gone"),
        bytes=g.bytes - bindparam("freed"),
        dropped=case((g.dropped > bindparam("newest"), g.dropped), else_=bindparam("newest")),
    )
)
_REPLACE_ENTRY = (
    update(log_entries)
    .where(e.log_id == bindparam("the_log"), e.entry_id == bindparam("the_entry"))
    .values(entry=bindparam("text"), bytes=bindparam("size"), change=bindparam("stamp"))
)
_RESIZE_LOG = (
    update(logs)
    .where(g.id == bindparam("log_id"))
    .values(bytes=g.bytes + bindparam("grown"), changed=bindparam("stamp"))
)
_BURY_LOG = (
    update(logs)
    .where(g.id == bindparam("log_id"))
    .values(entries=0, bytes=0, updated_at=bindparam("now"), changed=bindparam("stamp"))
)


class SqlLogRepository:
    def __init__(self, connection: Connection, stamp: SqlStamp, none: NoRules | None = None) -> None:
        self._c = connection
        self._stamp = stamp
        self._none = NoRules() if none is None else none

    def get(self, agent_id: str, path: str) -> LogRecord | None:
        row = run(self._c, _BY_PATH, {"agent_id": agent_id, "path": path}).first()
        return self._owned(row)

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> LogRecord | None:
        if writes:
            self._stamp.number(agent_id)  # the agent's row first (stamps.py: one lock order)
        return self._owned(run(self._c, _LOCK_BY_PATH, {"agent_id": agent_id, "path": path}).first())

    def _owned(self, row: Any) -> LogRecord | None:
        if row is None:
            return None
        self._stamp.owners["log", row.id] = row.agent_id
        return LogRecord(**row)

    def append(self, agent_id: str, path: str, entry: str, size: int, now: int, by: str) -> tuple[int, int, int]:
        change = self._stamp.number(agent_id)
        params = {"agent": agent_id, "log_path": path, "size": size, "now": now, "change": change}
        bumped = run(self._c, _BUMP, params).first()
        if bumped is None:  # no row yet: make one (a concurrent first append may have just done so), then bump it
            fresh = {"agent_id": agent_id, "path": path, "last_entry_id": 0, "entries": 0, "bytes": 0}
            run(
                self._c,
                insert_ignore(self._c, logs, ["agent_id", "path"]),
                {**fresh, "created_at": now, "updated_at": now},
            )
            bumped = run(self._c, _BUMP, params).one()
        row = {"log_id": bumped.id, "entry_id": bumped.last_entry_id, "entry": entry, "bytes": size}
        self._stamp.owners["log", bumped.id] = agent_id
        params = {**row, "created_at": now, "actor": by, "change": change, "rules_of": agent_id}
        rules = run(self._c, _ADD_ENTRY, params).scalar()
        self._none.saw(agent_id, LOGS, rules)
        return bumped.id, bumped.last_entry_id, bumped.entries

    def entries(self, log_id: int, after: int, limit: int, *, with_by: bool = False) -> list[LogEntry]:
        rows = run(self._c, _ENTRIES, {"log_id": log_id, "after": after, "limit": limit}).values
        if with_by:
            return [LogEntry(*row) for row in rows]  # selected in LogEntry's order: id, entry, created_at, by
        return [LogEntry(entry_id, entry, created_at) for entry_id, entry, created_at, _ in rows]

    def list(self, agent_id: str, prefix: str) -> list[LogRecord]:
        query = _LIST_UNDER_PREFIX if prefix else _LIST
        return [LogRecord(**row) for row in run(self._c, query, {"agent_id": agent_id, **prefix_bounds(prefix)})]

    def delete(self, log_id: int, now: int, remember: int) -> tuple[int, int]:
        gone = run(self._c, _DELETE_ENTRIES, {"log_id": log_id}).scalars()
        run(self._c, _BURY_LOG, {"log_id": log_id, "now": now, "stamp": self._stamp.of_log(log_id)})
        run(self._c, _FORGET_LOGS, {"log_id": log_id, "keep": remember})
        return len(gone), sum(gone)

    def young_from(self, log_id: int, below: int, since: int) -> int | None:
        found: int | None = run(self._c, _YOUNG_FROM, {"log_id": log_id, "below": below, "since": since}).scalar()
        return found

    def stored_below(self, log_id: int, below: int) -> tuple[int, int]:
        count, size = run(self._c, _STORED_BELOW, {"log_id": log_id, "below": below}).values[0]
        return int(count), int(size)

    def trim(self, log_id: int, below: int) -> tuple[int, int]:
        rows = run(self._c, _TRIM_ENTRIES, {"log_id": log_id, "below": below}).values
        freed = sum(size for size, _ in rows)
        if rows:
            newest = max(change for _, change in rows)
            run(self._c, _TRIM_LOG, {"log_id": log_id, "gone": len(rows), "freed": freed, "newest": newest})
        return len(rows), freed

    def replace_entry(self, log_id: int, entry_id: int, text: str, size: int, old_size: int) -> None:
        stamp = self._stamp.of_log(log_id)
        params = {"the_log": log_id, "the_entry": entry_id, "text": text, "size": size, "stamp": stamp}
        run(self._c, _REPLACE_ENTRY, params)
        run(self._c, _RESIZE_LOG, {"log_id": log_id, "grown": size - old_size, "stamp": stamp})
