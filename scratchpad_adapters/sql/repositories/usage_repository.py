"""The agent's counters: one row, changed by one conditional UPDATE in the data's own transaction."""

from __future__ import annotations

import functools

from sqlalchemy import Connection, Update, bindparam, select, update

from scratchpad_core import quotas
from scratchpad_core.limits import Limits
from scratchpad_core.model import COUNTERS, Usage, UsageDelta
from scratchpad_core.quotas import Breach
from scratchpad_core.retention.rules import FILES

from ..connection.execution import run
from ..schema.tables import agents
from .retention_repository import NoRules, rule_count
from .upserts import insert_ignore

a = agents.c
_GET = select(a.agent_id, *(a[name] for name in COUNTERS)).where(a.agent_id == bindparam("agent_id"))
_LOCK = _GET.with_for_update()
_PAGE = select(a.agent_id, *(a[name] for name in COUNTERS)).order_by(a.agent_id).limit(bindparam("limit"))
_PAGE_AFTER = _PAGE.where(a.agent_id > bindparam("after"))


@functools.cache
def _apply(growing: tuple[str, ...]) -> Update:
    """UPDATE agents SET each counter += its delta WHERE agent_id = ? AND each growing counter stays in quota,
    returning how many files rules the agent has (NoRules.checked: a transaction that assumed none checks here)."""
    stmt = update(agents).where(a.agent_id == bindparam("agent"))
    for name in growing:
        stmt = stmt.where(a[name] + bindparam(f"d_{name}") <= bindparam(f"q_{name}"))
    values = stmt.values({name: a[name] + bindparam(f"d_{name}") for name in COUNTERS})
    return values.returning(rule_count(a.agent_id, FILES))


class SqlUsageRepository:
    def __init__(self, connection: Connection, none: NoRules | None = None) -> None:
        self._c = connection
        self._none = NoRules() if none is None else none

    def get(self, agent_id: str) -> Usage:
        return self.find(agent_id) or Usage(agent_id)

    def find(self, agent_id: str) -> Usage | None:
        row = run(self._c, _GET, {"agent_id": agent_id}).first()
        return None if row is None else Usage(**row)

    def page(self, after: str | None, limit: int) -> list[Usage]:
        query, params = (_PAGE, {"limit": limit}) if after is None else (_PAGE_AFTER, {"limit": limit, "after": after})
        return [Usage(**row) for row in run(self._c, query, params)]

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> Breach | None:
        guards = quotas.quotas_passed_by(delta, limits)  # the quota rule's guards, one bound parameter each
        params = {"agent": agent_id, **{f"d_{name}": getattr(delta, name) for name in COUNTERS}}
        params.update({f"q_{name}": quota for name, quota in guards.items()})
        stmt = _apply(tuple(guards))
        if self._applied(agent_id, stmt, params):
            return None
        # No row yet (a new agent): create it; a concurrent first call may have just done so. Either way
        # the row now exists, and the same conditional update decides.
        run(self._c, insert_ignore(self._c, agents, ["agent_id"]), {"agent_id": agent_id, **dict.fromkeys(COUNTERS, 0)})
        if self._applied(agent_id, stmt, params):
            return None
        # Refused, or a concurrent change to the counters committed in between (READ COMMITTED): decide on
        # the locked row, which no one else changes until this transaction ends.
        usage = Usage(**run(self._c, _LOCK, {"agent_id": agent_id}).one())
        rule = quotas.breach(usage, delta, limits)
        if rule is not None:
            return Breach(rule, usage)
        assert self._applied(agent_id, stmt, params), "a locked row within its quotas takes the change"
        return None

    def _applied(self, agent_id: str, stmt: Update, params: dict[str, int | str]) -> bool:
        """Run the conditional update; whether it changed the row (and then what it counted of the rules)."""
        counted = run(self._c, stmt, params).values
        if counted:
            self._none.checked(agent_id, counted[0][0])
        return len(counted) == 1
