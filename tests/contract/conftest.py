"""Fixtures of the contract suite: a recounter on the same store as the one under test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scratchpad_adapters import memory
from tests.recount import Recounter, SqlRecounter
from tests.recount_memory import MemoryRecounter


@pytest.fixture
def recount(database_url: str) -> Iterator[Recounter]:
    counter = MemoryRecounter(database_url) if memory.is_memory_url(database_url) else SqlRecounter(database_url)
    yield counter
    counter.close()
