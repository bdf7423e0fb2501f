"""Whether a store knows an agent, and when each agent last changed something: for people looking at a store.

An agent is known once it has a counters row (its first call made it). Its last activity is its newest
file or log change (a write, an append, a deletion); reads change nothing and leave it as it was. Each is
one indexed query in a read-only snapshot, for the agents of one page.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Engine, func, select, union_all

from ..connection.engine import snapshot
from ..connection.errors import classified
from ..schema.tables import agents, files, logs


class SqlAgentActivity:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def known(self, agent_id: str) -> bool:
        query = select(agents.c.agent_id).where(agents.c.agent_id == agent_id)
        with classified(), self._engine.connect() as c, snapshot(c).begin():
            return c.execute(query).first() is not None

    def last_changes(self, agent_ids: Sequence[str]) -> dict[str, int]:
        """{agent: the time (ms) of its newest change} for those of `agent_ids` that changed anything."""
        if not agent_ids:
            return {}
        newest = union_all(
            *(
                select(table.c.agent_id, func.max(table.c.updated_at).label("at"))
                .where(table.c.agent_id.in_(agent_ids))
                .group_by(table.c.agent_id)
                for table in (files, logs)
            )
        ).subquery()
        query = select(newest.c.agent_id, func.max(newest.c.at)).group_by(newest.c.agent_id)
        with classified(), self._engine.connect() as c, snapshot(c).begin():
            return {agent: int(at) for agent, at in c.execute(query)}
