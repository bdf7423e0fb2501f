"""The agent's recent request_ids with their results: looked up by key, the oldest forgotten a batch at a time."""

from __future__ import annotations

import dataclasses

from sqlalchemy import Connection, bindparam, delete, func, or_, select

from scratchpad_core.model import StoredRequest
from scratchpad_core.retries import PRUNE_BATCH

from ..connection.execution import run
from ..schema.tables import request_ids

q = request_ids.c

_KEY = (q.agent_id == bindparam("agent_id"), q.caller == bindparam("caller"), q.request_id == bindparam("request_id"))
_STORED = select(q.agent_id, q.request_id, q.operation, q.fingerprint, q.result, q.created_at, q.caller)
_GET = _STORED.where(*_KEY)
_KEPT = _STORED.where(q.agent_id == bindparam("agent_id")).order_by(q.seq)
_FORGET = delete(request_ids).where(*_KEY)
_NEWEST = select(func.coalesce(func.max(q.seq), 0)).where(q.agent_id == bindparam("agent_id"))
_ADD = request_ids.insert()
_OLDEST = select(q.seq, q.created_at).where(q.agent_id == bindparam("owner")).order_by(q.seq).limit(PRUNE_BATCH)
_oldest = _OLDEST.subquery()
_PRUNE = delete(request_ids).where(
    q.agent_id == bindparam("owner"),
    q.seq.in_(
        select(_oldest.c.seq).where(
            or_(_oldest.c.seq <= bindparam("floor"), _oldest.c.created_at < bindparam("expire_before"))
        )
    ),
)


class SqlRequestRepository:
    def __init__(self, connection: Connection) -> None:
        self._c = connection

    def get(self, agent_id: str, caller: str, request_id: str) -> StoredRequest | None:
        row = run(self._c, _GET, {"agent_id": agent_id, "caller": caller, "request_id": request_id}).first()
        return None if row is None else StoredRequest(**row)

    def forget(self, agent_id: str, caller: str, request_id: str) -> None:
        run(self._c, _FORGET, {"agent_id": agent_id, "caller": caller, "request_id": request_id})

    def kept(self, agent_id: str) -> list[StoredRequest]:
        return [StoredRequest(**row) for row in run(self._c, _KEPT, {"agent_id": agent_id})]

    def add(self, request: StoredRequest, keep: int, expire_before: int) -> None:
        number = int(run(self._c, _NEWEST, {"agent_id": request.agent_id}).scalar()) + 1
        run(self._c, _ADD, {**dataclasses.asdict(request), "seq": number})  # a concurrent twin: unique violation
        params = {"owner": request.agent_id, "floor": number - keep, "expire_before": expire_before}
        run(self._c, _PRUNE, params)
