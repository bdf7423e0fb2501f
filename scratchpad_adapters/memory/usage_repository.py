"""The agent's counters on the in-memory tables: checked against the quotas and changed in one step."""

from __future__ import annotations

import dataclasses

from scratchpad_core.limits import Limits
from scratchpad_core.model import COUNTERS, Usage, UsageDelta
from scratchpad_core.quotas import Breach, breach

from .database import Transaction


class MemoryUsageRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def get(self, agent_id: str) -> Usage:
        return self._tx.tables.agents.get(agent_id, Usage(agent_id))

    def find(self, agent_id: str) -> Usage | None:
        return self._tx.tables.agents.get(agent_id)

    def page(self, after: str | None, limit: int) -> list[Usage]:
        rows = self._tx.tables.agents
        return [rows[name] for name in sorted(name for name in rows if after is None or name > after)[:limit]]

    def apply(self, agent_id: str, delta: UsageDelta, limits: Limits) -> Breach | None:
        t = self._tx.change()
        usage = t.agents.setdefault(agent_id, Usage(agent_id))  # as in SQL, the row exists from the first call on
        passed = breach(usage, delta, limits)
        if passed is not None:
            return Breach(passed, usage)
        grown = {name: getattr(usage, name) + getattr(delta, name) for name in COUNTERS}
        t.agents[agent_id] = dataclasses.replace(usage, **grown)
        return None
