"""Fixtures of the contract suite: a recounter on the same store as the one under test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scratchpad_adapters import memory
from scratchpad_adapters.factory import Backend, open_backend
from tests.contract.test_retries import Clock
from tests.recount import Recounter, SqlRecounter
from tests.recount_memory import MemoryRecounter


@pytest.fixture
def recount(database_url: str, clock: Clock) -> Iterator[Recounter]:
    """Counts what list_files shows at the test clock's time (expired files left out)."""
    kind = MemoryRecounter if memory.is_memory_url(database_url) else SqlRecounter
    counter = kind(database_url, clock)
    yield counter
    counter.close()


@pytest.fixture
def clock() -> Clock:
    """A clock the test moves (retention's ages)."""
    return Clock()


@pytest.fixture
def backend(database_url: str) -> Iterator[Backend]:
    """The test's database opened as a backend, for stores of the test's own limits and clock."""
    opened = open_backend(database_url)
    yield opened
    opened.close()
