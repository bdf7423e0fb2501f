"""The retention rules (scratchpad_core.retention): one row per agent, kind and prefix."""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, ScalarSelect, bindparam, delete, func, select

from scratchpad_core.retention import RetentionRule

from .execution import run
from .tables import retention_rules
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


def rule_count(agent_id: ColumnElement[str], kind: str) -> ScalarSelect[int]:
    """How many rules of `kind` the agent has, as a scalar subquery for another statement to return (NoRules)."""
    return select(func.count()).where(r.agent_id == agent_id, r.kind == kind).scalar_subquery()


class NoRules:
    """The (agent, kind) pairs a transaction found without retention rules, counted by a statement it ran anyway
    (rule_count: an append's insert returns its agent's logs rules), so that rules() need not ask again. The count
    comes from the statement's own snapshot, later than any lock the transaction waited for, as a query of its own
    would have; a change to the rules in the same transaction forgets them."""

    def __init__(self) -> None:
        self._none: set[tuple[str, str]] = set()

    def saw(self, agent_id: str, kind: str, count: int) -> None:
        if count == 0:
            self._none.add((agent_id, kind))

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._none

    def forget(self) -> None:
        self._none.clear()


class SqlRetentionRepository:
    def __init__(self, connection: Connection, none: NoRules | None = None) -> None:
        self._c = connection
        self._none = NoRules() if none is None else none

    def rules(self, agent_id: str, kind: str) -> list[RetentionRule]:
        if (agent_id, kind) in self._none:
            return []
        return [RetentionRule(**row) for row in run(self._c, _OF_AGENT, {"agent_id": agent_id, "kind": kind})]

    def all(self, agent_id: str | None = None) -> list[RetentionRule]:
        query = _ALL if agent_id is None else _ALL.where(r.agent_id == agent_id)
        return [RetentionRule(**row._mapping) for row in self._c.execute(query)]

    def lock(self, agent_id: str, kind: str, prefix: str) -> RetentionRule | None:
        row = run(self._c, _LOCK, {"agent_id": agent_id, "kind": kind, "prefix": prefix}).first()
        return None if row is None else RetentionRule(**row)

    def set(self, rule: RetentionRule, now: int) -> None:
        self._none.forget()
        stmt = upsert(
            self._c, retention_rules, ["agent_id", "kind", "prefix"], ["keep_entries", "max_age", "updated_at"]
        )
        run(self._c, stmt, {**vars(rule), "updated_at": now})

    def clear(self, agent_id: str, kind: str, prefix: str) -> bool:
        self._none.forget()
        params = {"agent_id": agent_id, "kind": kind, "prefix": prefix}
        return bool(run(self._c, _CLEAR, params).scalars())
