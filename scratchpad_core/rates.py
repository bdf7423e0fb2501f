"""The rate-limit rule: a token bucket per agent, shared by every replica through the store.

A bucket holds up to `burst` tokens and refills at `per_second`; a call takes one token, and a call that
finds less than one is refused with the seconds until one is back. The SQL limiter states `refilled` as one
conditional UPDATE (so that replicas take tokens atomically); the memory limiter calls it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenBucket:
    per_second: float
    burst: int

    @property
    def per_ms(self) -> float:
        return self.per_second / 1000

    def refilled(self, tokens: float, updated_at: int, now: int) -> float:
        """The tokens a bucket holds at `now` (ms), last left with `tokens` at `updated_at` (a clock may step back)."""
        return min(float(self.burst), tokens + max(0, now - updated_at) * self.per_ms)

    def wait_seconds(self, available: float) -> float:
        """How long until a bucket holding `available` (< 1) tokens has one: what a refusal tells the caller."""
        return max(0.001, (1 - available) / self.per_ms / 1000)
