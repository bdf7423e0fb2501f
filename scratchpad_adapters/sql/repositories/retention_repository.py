"""The retention rules (scratchpad_core.retention.rules): one row per agent, kind and prefix."""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, delete, select

from scratchpad_core.retention.rules import RetentionRule

from ..connection.execution import run
from ..schema.tables import retention_rules
from .upserts import upsert

r = retention_rules.c
_COLUMNS = (r.agent_id, r.kind, r.prefix, r.keep_entries, r.max_age)
_OF_AGENT = select(*_COLUMNS).where(r.agent_id == bindparam("agent_id"), r.kind == bindparam("kind"))
_LOCK = _OF_AGENT.where(r.prefix == bindparam("prefix")).with_for_update()
_ALL = select(*_COLUMNS).order_by(r.agent_id, r.kind, r.prefix)
_CLEAR = (
    delete(retention_rules)
    .where(r.agent_id == bindparam("agent_id"), r.kind == bindparam("kind"), r.prefix == bindparam("prefix"))
    .returning(r.prefix)
)


class SqlRetentionRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def rules(self, agent_id: str, kind: str) -> list[RetentionRule]:
        return [RetentionRule(**row) for row in run(self._c, _OF_AGENT, {"agent_id": agent_id, "kind": kind})]

    def all(self, agent_id: str | None = None) -> list[RetentionRule]:
        query = _ALL if agent_id is None else _ALL.where(r.agent_id == agent_id)
        return [RetentionRule(**row._mapping) for row in self._c.execute(query)]

    def lock(self, agent_id: str, kind: str, prefix: str) -> RetentionRule | None:
        row = run(self._c, _LOCK, {"agent_id": agent_id, "kind": kind, "prefix": prefix}).first()
        return None if row is None else RetentionRule(**row)

    def set(self, rule: RetentionRule, now: int) -> None:
        stmt = upsert(
            self._c, retention_rules, ["agent_id", "kind", "prefix"], ["keep_entries", "max_age", "updated_at"]
        )
        run(self._c, stmt, {**vars(rule), "updated_at": now})

    def clear(self, agent_id: str, kind: str, prefix: str) -> bool:
        params = {"agent_id": agent_id, "kind": kind, "prefix": prefix}
        return bool(run(self._c, _CLEAR, params).scalars())
