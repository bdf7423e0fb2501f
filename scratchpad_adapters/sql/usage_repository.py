"""The agent's counters: one row, changed by one conditional UPDATE in the data's own transaction."""

from __future__ import annotations

import functools

from sqlalchemy import Connection, Update, bindparam, select, update

from scratchpad_core.limits import Limits
from scratchpad_core.model import Usage, UsageDelta

from .dialect import insert_ignore
from .execution import run
from .tables import agents

a = agents.c
_COUNTERS = ("files", "logs", "log_entries", "bytes", "operations", "bytes_saved")
_GUARDED = ("files", "log_entries", "bytes")  # the counters with a quota
_GET = select(agents).where(a.agent_id == bindparam("agent_id"))


@functools.cache
def _apply(growing: tuple[str, ...]) -> Update:
    """UPDATE agents SET each counter += its delta WHERE agent_id = ? AND each growing counter stays in quota."""
    stmt = update(agents).where(a.agent_id == bindparam("agent"))
    for name in growing:
        stmt = stmt.where(a[name] + bindparam(f"d_{name}") <= bindparam(f"q_{name}"))
    return stmt.values({name: a[name] + bindparam(f"d_{name}") for name in _COUNTERS})


class SqlUsageRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, agent_id: str) -> Usage:
        row = run(self._c, _GET, {"agent_id": agent_id}).first()
        return Usage(agent_id) if row is None else Usage(**row)

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> bool:
        growing = tuple(name for name in _GUARDED if getattr(delta, name) > 0)
        quotas = {"files": limits.quota_files, "log_entries": limits.quota_log_entries, "bytes": limits.quota_bytes}
        params = {"agent": agent_id, **{f"d_{name}": getattr(delta, name) for name in _COUNTERS}}
        params.update({f"q_{name}": quotas[name] for name in growing})
        stmt = _apply(growing)
        if run(self._c, stmt, params).rowcount == 1:
            return True
        # No row yet (a new agent): create it; a concurrent first call may have just done so. Either way
        # the row now exists, and the same conditional update decides.
        run(
            self._c, insert_ignore(self._c, agents, ["agent_id"]), {"agent_id": agent_id, **dict.fromkeys(_COUNTERS, 0)}
        )
        return run(self._c, stmt, params).rowcount == 1
