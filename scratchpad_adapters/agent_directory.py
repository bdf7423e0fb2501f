"""The agents a store holds, with their counters, page by page: for people looking at a store (the web view).

A read of the agents table (one row per agent) in a read-only snapshot; it counts no operation, as the use
cases do for an agent's own calls.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from sqlalchemy import Engine, select

from scratchpad_core.model import Usage

from .factory import Backend, MemoryBackend, SqlBackend
from .memory import MemoryDatabase
from .sql.engine import snapshot
from .sql.errors import classified
from .sql.tables import agents as agents_table


class SqlAgentDirectory:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def agents(self, after: str | None, limit: int) -> Sequence[Usage]:
        query = select(agents_table).order_by(agents_table.c.agent_id).limit(limit)
        if after is not None:
            query = query.where(agents_table.c.agent_id > after)
        with classified(), self._engine.connect() as c, snapshot(c).begin():
            return [Usage(**row._mapping) for row in c.execute(query)]

    def agent(self, agent_id: str) -> Usage:
        return self.found(agent_id) or Usage(agent_id)

    def found(self, agent_id: str) -> Usage | None:
        query = select(agents_table).where(agents_table.c.agent_id == agent_id)
        with classified(), self._engine.connect() as c, snapshot(c).begin():
            row = c.execute(query).first()
        return None if row is None else Usage(**row._mapping)


class MemoryAgentDirectory:
    def __init__(self, database: MemoryDatabase) -> None:
        self._database = database

    def agents(self, after: str | None, limit: int) -> Sequence[Usage]:
        rows = self._database.tables.agents  # the committed tables: replaced on commit, never changed
        names = sorted(name for name in rows if after is None or name > after)
        return [rows[name] for name in itertools.islice(names, limit)]

    def agent(self, agent_id: str) -> Usage:
        return self.found(agent_id) or Usage(agent_id)

    def found(self, agent_id: str) -> Usage | None:
        return self._database.tables.agents.get(agent_id)


def agent_directory(backend: Backend) -> SqlAgentDirectory | MemoryAgentDirectory:
    if isinstance(backend, SqlBackend):
        return SqlAgentDirectory(backend.engine)
    if isinstance(backend, MemoryBackend):
        return MemoryAgentDirectory(backend.database)
    raise TypeError(f"no agent directory for {type(backend).__name__}")
