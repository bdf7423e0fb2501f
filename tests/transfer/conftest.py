"""Fixtures of the transfer tests: a PostgreSQL database of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import create_postgres_database, drop_postgres_database


@pytest.fixture
def postgres_url() -> Iterator[str]:
    url = create_postgres_database("scratchpad_transfer")
    yield url
    drop_postgres_database(url)
