"""Replicas starting together on an empty database: none fails, and the migrations are applied once."""

from __future__ import annotations

import multiprocessing

import pytest
from sqlalchemy import inspect, text

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.schema.tables import metadata
from scratchpad_adapters.sql.search import terms as search_terms
from tests.concurrency import workers

REPLICAS = 6
pytestmark = pytest.mark.slow


def test_replicas_starting_together_migrate_once(empty_url: str) -> None:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(REPLICAS) as pool:
        barrier = manager.Barrier(REPLICAS)
        seen = pool.starmap(workers.start_replica, [(empty_url, barrier)] * REPLICAS)

    head = migrate.head_revision()
    assert all(after == head for _, after in seen)
    befores = [before for before, _ in seen]
    assert befores.count(None) == 1 and befores.count(head) == REPLICAS - 1  # one applied them, the rest found head
    engine = make_engine(empty_url)
    with engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [head]
        made = {name for name in inspect(connection).get_table_names() if not search_terms.is_engine_table(name)}
        assert made == set(metadata.tables) | {"alembic_version"}  # besides the full-text engine's own (FTS5)
    engine.dispose()
