"""API keys, their grants and rate-limit buckets of an in-memory store, shared by every store opened on its name."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from scratchpad_core.access.grants import Grant
from scratchpad_core.access.keys import TOUCH_EVERY_MS, ApiKey
from scratchpad_core.rates import TokenBucket

from .database import MemoryDatabase


class MemoryKeyStore:
    def __init__(self, database: MemoryDatabase) -> None:
        self._database = database

    def add(self, key: ApiKey, key_hash: str) -> None:
        with self._database.side_lock:
            self._database.api_keys[key_hash] = dataclasses.replace(
                key, grants=tuple(sorted(key.grants, key=lambda g: g.agent_id))
            )

    def find(self, key_hash: str, now: int) -> ApiKey | None:
        with self._database.side_lock:
            key = self._database.api_keys.get(key_hash)
            if key is None:
                return None
            if key.revoked_at is None and (key.last_used_at is None or key.last_used_at < now - TOUCH_EVERY_MS):
                self._database.api_keys[key_hash] = dataclasses.replace(key, last_used_at=now)
            return key  # as read before the use was recorded, like the SQL store

    def get(self, key_id: str) -> ApiKey | None:
        with self._database.side_lock:
            return next((k for k in self._database.api_keys.values() if k.id == key_id), None)

    def list(self) -> list[ApiKey]:
        with self._database.side_lock:
            return sorted(self._database.api_keys.values(), key=lambda k: (k.created_at, k.id))

    def grant(self, key_id: str, grant: Grant) -> None:
        self._change_grants(key_id, lambda held: [*(g for g in held if g.agent_id != grant.agent_id), grant])

    def ungrant(self, key_id: str, agent_id: str) -> bool:
        return self._change_grants(key_id, lambda held: [g for g in held if g.agent_id != agent_id])

    def _change_grants(self, key_id: str, change: Callable[[tuple[Grant, ...]], Iterable[Grant]]) -> bool:
        """Apply the change to the key's grants (kept sorted by agent, as the SQL store reads them); whether any
        grant was added or taken away."""
        with self._database.side_lock:
            for key_hash, key in self._database.api_keys.items():
                if key.id == key_id:
                    grants = tuple(sorted(change(key.grants), key=lambda g: g.agent_id))
                    self._database.api_keys[key_hash] = dataclasses.replace(key, grants=grants)
                    return grants != key.grants
            return False

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
