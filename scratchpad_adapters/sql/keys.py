"""API keys and rate-limit buckets in the database, so every replica sees the same ones at once."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, case, insert, literal, select, update

from scratchpad_core.keys import TOUCH_EVERY_MS, ApiKey
from scratchpad_core.rates import TokenBucket

from .engine import relaxed_durability, snapshot
from .errors import classified
from .tables import api_keys, rate_limits
from .upserts import insert_ignore
from .watchdog import watched


class SqlKeyStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add(self, key: ApiKey, key_hash: str) -> None:
        with self._engine.begin() as c:
            c.execute(insert(api_keys).values(key_hash=key_hash, **vars(key)))

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        with classified(), self._engine.connect() as c, watched(c), snapshot(c).begin():
            row = c.execute(select(api_keys).where(api_keys.c.key_hash == key_hash)).first()
        if row is None:
            return None
        stale = row.last_used_at is None or row.last_used_at < now - TOUCH_EVERY_MS
        if row.revoked_at is None and stale:
            with classified(), self._engine.connect() as c, watched(c), c.begin():
                relaxed_durability(c)
                c.execute(update(api_keys).where(api_keys.c.id == row.id).values(last_used_at=now))
        values = dict(row._mapping)
        del values["key_hash"]
        return ApiKey(**values)

    def list(self) -> list[ApiKey]:
        columns = [c for c in api_keys.c if c.name != "key_hash"]
        with self._engine.connect() as c:
            rows = c.execute(select(*columns).order_by(api_keys.c.created_at, api_keys.c.id))
            return [ApiKey(**row._mapping) for row in rows]

    def revoke(self, key_id: str, now: int) -> bool:
        with self._engine.begin() as c:
            result = c.execute(
                update(api_keys).where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None)).values(revoked_at=now)
            )
            return result.rowcount == 1


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
