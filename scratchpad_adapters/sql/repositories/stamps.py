"""The change number a writing transaction stamps on what it touches (read_changes; migration 0014).

The first statement of a write that locks one of an agent's files or logs bumps agents.changes (RETURNING it):
that row stays locked until commit, so the agent's writers take their numbers one after the other, in commit
order, and a reader whose snapshot holds number N holds every change below it. One lock order: the agent's
counters row, then its files, then its logs (the counters' update at the end finds the row already held).
"""

from __future__ import annotations

from sqlalchemy import Connection, bindparam, select, update

from scratchpad_core.model import COUNTERS

from ..connection.execution import run
from ..schema.tables import agents, files, logs
from .upserts import insert_ignore

a = agents.c
_BUMP = update(agents).where(a.agent_id == bindparam("agent")).values(changes=a.changes + 1).returning(a.changes)
_FILE_AGENT = select(files.c.agent_id).where(files.c.id == bindparam("row_id"))
_LOG_AGENT = select(logs.c.agent_id).where(logs.c.id == bindparam("row_id"))


class SqlStamp:
    """The change numbers this transaction took, one per agent it writes to."""

    def __init__(self, connection: Connection) -> None:
        self._c = connection
        self._numbers: dict[str, int] = {}
        self.owners: dict[tuple[str, int], str] = {}  # ("file" or "log", row id) -> agent, of rows read here

    def number(self, agent_id: str) -> int:
        """The agent's change number in this transaction (bumped once, on first use)."""
        taken = self._numbers.get(agent_id)
        if taken is not None:
            return taken
        params = {"agent": agent_id}
        row = run(self._c, _BUMP, params).first()
        if row is None:  # a new agent: its counters row first (a concurrent first call may have made it)
            run(
                self._c,
                insert_ignore(self._c, agents, ["agent_id"]),
                {"agent_id": agent_id, **dict.fromkeys(COUNTERS, 0)},
            )
            row = run(self._c, _BUMP, params).one()
        self._numbers[agent_id] = number = int(row.changes)
        return number

    def of_file(self, file_id: int) -> int:
        """The change number for a write to this file (whose agent is known if the transaction read its row)."""
        agent_id = self.owners.get(("file", file_id)) or run(self._c, _FILE_AGENT, {"row_id": file_id}).scalar()
        return self.number(agent_id)

    def of_log(self, log_id: int) -> int:
        agent_id = self.owners.get(("log", log_id)) or run(self._c, _LOG_AGENT, {"row_id": log_id}).scalar()
        return self.number(agent_id)
