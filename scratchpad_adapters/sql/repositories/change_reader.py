"""What read_changes reads (scratchpad_core.changes.catchup): rows by their last change, through (agent_id, changed)."""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import Connection, Select, bindparam, select

from scratchpad_core.changes.catchup import ChangedFile, ChangedLog
from scratchpad_core.model import LogEntry

from ..connection.execution import run
from ..schema.tables import agents, file_versions, files, log_entries, logs
from .queries import prefix_bounds, under_prefix

f, v, g, e = files.c, file_versions.c, logs.c, log_entries.c
_HEAD = select(agents.c.changes).where(agents.c.agent_id == bindparam("agent_id"))
_FILE = (f.id, f.path, f.current_version, f.changed, f.born, f.redacted, f.moved_from, f.updated_at)
_LOG = (g.id, g.path, g.last_entry_id, g.entries, g.changed, g.born, g.dropped)
_VERSION_AT = (
    select(v.version, v.change)
    .where(v.file_id == bindparam("file_id"), v.change <= bindparam("upto"))
    .order_by(v.version.desc())
    .limit(1)
)
_ENTRIES = (
    select(e.change, e.entry_id, e.entry, e.created_at, e.actor)
    .where(e.log_id == bindparam("log_id"), e.change > bindparam("after"), e.change <= bindparam("upto"))
    .order_by(e.entry_id)
)


@functools.cache
def _changed(columns: tuple[Any, ...], prefixed: bool) -> Select[Any]:
    table = columns[0].table
    return (
        select(*columns)
        .where(
            table.c.agent_id == bindparam("agent_id"),
            table.c.changed > bindparam("after"),
            under_prefix(table.c.path, prefixed),
        )
        .order_by(table.c.changed)
    )


class SqlChangeReader:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def head(self, agent_id: str) -> int:
        return int(run(self._c, _HEAD, {"agent_id": agent_id}).scalar() or 0)

    def files(self, agent_id: str, prefix: str, after: int) -> list[ChangedFile]:
        params = {"agent_id": agent_id, "after": after, **prefix_bounds(prefix)}
        return [ChangedFile(*row) for row in run(self._c, _changed(_FILE, bool(prefix)), params).values]

    def logs(self, agent_id: str, prefix: str, after: int) -> list[ChangedLog]:
        params = {"agent_id": agent_id, "after": after, **prefix_bounds(prefix)}
        return [ChangedLog(*row) for row in run(self._c, _changed(_LOG, bool(prefix)), params).values]

    def version_at(self, file_id: int, change: int) -> tuple[int, int] | None:
        row = run(self._c, _VERSION_AT, {"file_id": file_id, "upto": change}).first()
        return None if row is None else (row.version, row.change)

    def entries(self, log_id: int, after: int, upto: int) -> list[tuple[int, LogEntry]]:
        rows = run(self._c, _ENTRIES, {"log_id": log_id, "after": after, "upto": upto}).values
        return [(int(change), LogEntry(*entry)) for change, *entry in rows]
