"""The retention rules on the in-memory tables, by (agent, kind, prefix)."""

from __future__ import annotations

from scratchpad_core.retention.rules import RetentionRule

from .database import Transaction


class MemoryRetentionRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def rules(self, agent_id: str, kind: str) -> list[RetentionRule]:
        return [r for r in self._tx.tables.retention.values() if r.agent_id == agent_id and r.kind == kind]

    def all(self, agent_id: str | None = None) -> list[RetentionRule]:
        found = self._tx.tables.retention
        return [found[key] for key in sorted(found) if agent_id is None or key[0] == agent_id]

    def lock(self, agent_id: str, kind: str, prefix: str) -> RetentionRule | None:
        return self._tx.tables.retention.get((agent_id, kind, prefix))  # a writer holds the whole store already

    def set(self, rule: RetentionRule, now: int) -> None:
        self._tx.change().retention[rule.agent_id, rule.kind, rule.prefix] = rule

    def clear(self, agent_id: str, kind: str, prefix: str) -> bool:
        if (agent_id, kind, prefix) not in self._tx.tables.retention:
            return False
        del self._tx.change().retention[agent_id, kind, prefix]
        return True
