from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.adapters.fake_anthropic import FakeAnthropic, fake_anthropic


@pytest.fixture
def fake_api() -> Iterator[FakeAnthropic]:
    with fake_anthropic() as fake:
        yield fake
