"""Fixtures of the contract suite: a recounter on the same database as the store."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.recount import Recounter


@pytest.fixture
def recount(database_url: str) -> Iterator[Recounter]:
    counter = Recounter(database_url)
    yield counter
    counter.close()
