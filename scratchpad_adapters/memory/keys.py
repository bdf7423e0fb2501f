"""API keys and rate-limit buckets of an in-memory store, shared by every store opened on its name."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from scratchpad_core.keys import TOUCH_EVERY_MS, ApiKey
from scratchpad_core.rates import TokenBucket

from .database import MemoryDatabase


class MemoryKeyStore:
    def __init__(self, database: MemoryDatabase) -> None:
        self._database = database

    def add(self, key: ApiKey, key_hash: str) -> None:
        with self._database.side_lock:
            self._database.api_keys[key_hash] = key

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        with self._database.side_lock:
            key = self._database.api_keys.get(key_hash)
            if key is None:
                return None
            if key.revoked_at is None and (key.last_used_at is None or key.last_used_at < now - TOUCH_EVERY_MS):
                self._database.api_keys[key_hash] = dataclasses.replace(key, last_used_at=now)
            return key  # as read before the use was recorded, like the SQL store

    def list(self) -> list[ApiKey]:
        with self._database.side_lock:
            return sorted(self._database.api_keys.values(), key=lambda k: (k.created_at, k.id))

    def revoke(self, key_id: str, now: int) -> bool:
        with self._database.side_lock:
            for key_hash, key in self._database.api_keys.items():
                if key.id == key_id and key.revoked_at is None:
                    self._database.api_keys[key_hash] = dataclasses.replace(key, revoked_at=now)
                    return True
            return False


class MemoryRateLimiter:
    """A token bucket per agent, refilled and taken in one step (the SQL limiter's rule, on a dict)."""

    def __init__(self, database: MemoryDatabase, per_second: float, burst: int, clock: Callable[[], int]) -> None:
        self._database = database
        self._bucket = TokenBucket(per_second, burst)
        self._clock = clock

    def acquire(self, agent_id: str) -> float:
        now = self._clock()
        with self._database.side_lock:
            tokens, updated_at = self._database.buckets.get(agent_id, (float(self._bucket.burst), now))
            available = self._bucket.refilled(tokens, updated_at, now)
            if available < 1:
                return self._bucket.wait_seconds(available)
            self._database.buckets[agent_id] = (available - 1, max(updated_at, now))
            return 0.0
