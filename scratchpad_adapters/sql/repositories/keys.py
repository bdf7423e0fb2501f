"""API keys, their grants and rate-limit buckets in the database, so every replica sees the same ones at once."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from sqlalchemy import Connection, Engine, Row, case, delete, insert, literal, select, update

from scratchpad_core.access.grants import Access, Grant
from scratchpad_core.access.keys import TOUCH_EVERY_MS, ApiKey
from scratchpad_core.rates import TokenBucket

from ..connection.engine import relaxed_durability, snapshot
from ..connection.errors import classified
from ..connection.watchdog import watched
from ..schema.tables import api_keys, key_grants, rate_limits
from .upserts import insert_ignore


class SqlKeyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add(self, key: ApiKey, key_hash: str) -> None:
        values = {k: v for k, v in vars(key).items() if k != "grants"}
        with self._engine.begin() as c:
            c.execute(insert(api_keys).values(key_hash=key_hash, **values))
            for grant in key.grants:
                c.execute(insert(key_grants).values(key_id=key.id, agent_id=grant.agent_id, access=grant.access.value))

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        with classified(), self._engine.connect() as c, watched(c), snapshot(c).begin():
            row = c.execute(select(*_COLUMNS).where(api_keys.c.key_hash == key_hash)).first()
            if row is None:
                return None
            key = _with_grants(c, [row])[0]
        stale = row.last_used_at is None or row.last_used_at < now - TOUCH_EVERY_MS
        if row.revoked_at is None and stale:
            with classified(), self._engine.connect() as c, watched(c), c.begin():
                relaxed_durability(c)
                c.execute(update(api_keys).where(api_keys.c.id == row.id).values(last_used_at=now))
        return key

    def get(self, key_id: str) -> ApiKey | None:
        with classified(), self._engine.connect() as c:
            row = c.execute(select(*_COLUMNS).where(api_keys.c.id == key_id)).first()
            return None if row is None else _with_grants(c, [row])[0]

    def list(self) -> list[ApiKey]:
        with self._engine.connect() as c:
            rows = c.execute(select(*_COLUMNS).order_by(api_keys.c.created_at, api_keys.c.id)).all()
            return _with_grants(c, rows)

    def grant(self, key_id: str, grant: Grant) -> None:
        g = key_grants.c
        with classified(), self._engine.begin() as c:
            c.execute(delete(key_grants).where(g.key_id == key_id, g.agent_id == grant.agent_id))
            c.execute(insert(key_grants).values(key_id=key_id, agent_id=grant.agent_id, access=grant.access.value))

    def ungrant(self, key_id: str, agent_id: str) -> bool:
        g = key_grants.c
        with classified(), self._engine.begin() as c:
            return c.execute(delete(key_grants).where(g.key_id == key_id, g.agent_id == agent_id)).rowcount == 1

    def revoke(self, key_id: str, now: int) -> bool:
        with self._engine.begin() as c:
            result = c.execute(
                update(api_keys).where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None)).values(revoked_at=now)
            )
            return result.rowcount == 1


_COLUMNS = [c for c in api_keys.c if c.name != "key_hash"]


def _with_grants(c: Connection, rows: Iterable[Row[tuple[object, ...]]]) -> list[ApiKey]:
    """The keys of these rows, each with its grants (one query for all of them)."""
    keys = [ApiKey(**row._mapping) for row in rows]
    if not keys:
        return keys
    g = key_grants.c
    query = select(g.key_id, g.agent_id, g.access).where(g.key_id.in_([k.id for k in keys])).order_by(g.agent_id)
    held: dict[str, list[Grant]] = {}
    for key_id, agent_id, access in c.execute(query):
        held.setdefault(key_id, []).append(Grant(agent_id, Access(access)))
    return [dataclasses.replace(k, grants=tuple(held.get(k.id, ()))) for k in keys]


class SqlRateLimiter:
    """A token bucket per agent in one row, refilled and taken by one conditional UPDATE (atomic across replicas)."""

    def __init__(self, engine: Engine, per_second: float, burst: int, clock: Callable[[], int]) -> None:
        self._engine = engine
        self._bucket = TokenBucket(per_second, burst)
        self._clock = clock

    def acquire(self, agent_id: str) -> float:
        now = self._clock()
        t = rate_limits.c
        # TokenBucket.refilled, as SQL: min(burst, tokens + max(0, now - updated_at) * per_ms)
        elapsed = case((t.updated_at < now, literal(now) - t.updated_at), else_=0)
        refilled = t.tokens + elapsed * self._bucket.per_ms
        available = case((refilled > float(self._bucket.burst), float(self._bucket.burst)), else_=refilled)
        take = (
            update(rate_limits)
            .where(t.agent_id == agent_id, available >= 1)
            .values(tokens=available - 1, updated_at=case((t.updated_at < now, now), else_=t.updated_at))
            .returning(t.tokens)
        )
        with classified(), self._engine.connect() as c, watched(c), c.begin():
            relaxed_durability(c)
            if c.execute(take).first() is not None:
                return 0.0
            fresh = {"agent_id": agent_id, "tokens": float(self._bucket.burst) - 1, "updated_at": now}
            if c.execute(insert_ignore(c, rate_limits, ["agent_id"]).returning(t.agent_id), fresh).first():
                return 0.0
            if c.execute(take).first() is not None:
                return 0.0
            left = c.execute(select(available).where(t.agent_id == agent_id)).scalar_one()
        return self._bucket.wait_seconds(float(left))
