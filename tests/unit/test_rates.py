"""The token bucket both rate limiters apply."""

from __future__ import annotations

import pytest

from scratchpad_core.rates import TokenBucket


def test_a_bucket_refills_at_its_rate_up_to_its_burst() -> None:
    bucket = TokenBucket(per_second=2.0, burst=5)
    assert bucket.refilled(0.0, 1_000, 1_500) == pytest.approx(1.0)  # half a second at 2/s
    assert bucket.refilled(4.5, 0, 10_000) == 5.0  # never past the burst
    assert bucket.refilled(3.0, 2_000, 1_000) == 3.0  # a clock that steps back adds nothing


def test_a_refusal_says_how_long_until_a_token_is_back() -> None:
    bucket = TokenBucket(per_second=4.0, burst=1)
    assert bucket.wait_seconds(0.0) == pytest.approx(0.25)
    assert bucket.wait_seconds(0.5) == pytest.approx(0.125)
    assert bucket.wait_seconds(0.99999) == 0.001  # never "retry in 0 s"
