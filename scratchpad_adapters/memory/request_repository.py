"""The agent's recent request_ids on the in-memory tables, oldest first, as the SQL table's seq orders them."""

from __future__ import annotations

import itertools

from scratchpad_core.errors import StorageBusy
from scratchpad_core.model import StoredRequest
from scratchpad_core.retries import PRUNE_BATCH

from .database import Transaction


class MemoryRequestRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def get(self, agent_id: str, caller: str, request_id: str) -> StoredRequest | None:
        return self._tx.tables.requests.get(agent_id, {}).get((caller, request_id))

    def forget(self, agent_id: str, caller: str, request_id: str) -> None:
        t = self._tx.change()
        key = (caller, request_id)
        t.requests[agent_id] = {k: r for k, r in t.requests.get(agent_id, {}).items() if k != key}

    def kept(self, agent_id: str) -> list[StoredRequest]:
        return list(self._tx.tables.requests.get(agent_id, {}).values())

    def add(self, request: StoredRequest, keep: int, expire_before: int) -> None:
        t = self._tx.change()
        kept = dict(t.requests.get(request.agent_id, {}))
        key = (request.caller, request.request_id)
        if key in kept:  # the primary key, as in SQL (writers serialize here, so never met)
            raise StorageBusy("A concurrent change collided with this one; nothing was changed. Retry the call.")
        kept[key] = request
        beyond = len(kept) - keep
        for index, old in enumerate(list(itertools.islice(kept.values(), PRUNE_BATCH))):
            if index < beyond or old.created_at < expire_before:
                del kept[(old.caller, old.request_id)]
        t.requests[request.agent_id] = kept
