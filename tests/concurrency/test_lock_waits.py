"""Lock waits, deadlocks and serialization failures are retried a bounded number of times, then surface clearly."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import create_engine, exc, text

from scratchpad_adapters import memory
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.connection.errors import classify
from scratchpad_core.errors import StorageBusy
from tests.conftest import StoreFactory


@contextmanager
def write_lock_held(url: str) -> Iterator[Callable[[], None]]:
    """Another session holding the lock every write of agent 'a' needs; yields what lets go of it early."""
    if memory.is_memory_url(url):
        shared = memory.connect(url)
        held, once = shared.database.write_lock, threading.Lock()
        held.acquire()  # what every writing unit of work on the store takes first

        def release() -> None:
            if once.acquire(blocking=False):
                held.release()

        try:
            yield release
        finally:
            release()
            shared.close()
        return
    engine = make_engine(url)
    with engine.connect() as connection:
        transaction = connection.begin()  # SQLite: BEGIN IMMEDIATE
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT 1 FROM files WHERE agent_id = 'a' FOR UPDATE"))
        try:
            yield transaction.rollback
        finally:
            if transaction.is_active:
                transaction.rollback()
    engine.dispose()


def test_a_lock_held_too_long_fails_busy_after_bounded_retries(make_store: StoreFactory, database_url: str) -> None:
    store = make_store(lock_timeout_ms=100)
    store.write_file("a", "f.md", "one\n")
    with write_lock_held(database_url):
        started = time.monotonic()
        with pytest.raises(StorageBusy, match="Retry"):
            store.write_file("a", "f.md", "two\n")
        assert time.monotonic() - started < 5  # bounded: a few attempts, not forever
    assert store.write_file("a", "f.md", "two\n").version == 2


def test_a_lock_released_during_the_retries_lets_the_call_through(make_store: StoreFactory, database_url: str) -> None:
    store = make_store(lock_timeout_ms=100)
    store.write_file("a", "f.md", "one\n")
    with write_lock_held(database_url) as let_go:
        release = threading.Timer(0.15, let_go)
        release.start()
        assert store.write_file("a", "f.md", "two\n").version == 2
        release.join()


@pytest.mark.postgres
def test_real_deadlocks_and_serialization_failures_classify_as_busy(postgres_session_url: str) -> None:
    engine = create_engine(postgres_session_url)
    with engine.begin() as c:
        c.execute(text("CREATE TABLE IF NOT EXISTS deadlock_probe (id int primary key, n int)"))
        c.execute(text("INSERT INTO deadlock_probe VALUES (1, 0), (2, 0) ON CONFLICT DO NOTHING"))
    errors: list[exc.DBAPIError] = []
    barrier = threading.Barrier(2)

    def cross(first: int, second: int) -> None:
        with engine.connect() as c, c.begin():
            try:
                c.execute(text("UPDATE deadlock_probe SET n = n + 1 WHERE id = :i"), {"i": first})
                barrier.wait()
                c.execute(text("UPDATE deadlock_probe SET n = n + 1 WHERE id = :i"), {"i": second})
            except exc.DBAPIError as error:
                errors.append(error)

    threads = [threading.Thread(target=cross, args=pair) for pair in ((1, 2), (2, 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1 and getattr(errors[0].orig, "sqlstate", None) == "40P01"
    assert isinstance(classify(errors[0]), StorageBusy)

    with engine.connect() as a, engine.connect() as b:
        a.execution_options(isolation_level="SERIALIZABLE")
        b.execution_options(isolation_level="SERIALIZABLE")
        with a.begin(), pytest.raises(exc.DBAPIError) as failure:
            a.execute(text("SELECT sum(n) FROM deadlock_probe"))
            with b.begin():
                b.execute(text("UPDATE deadlock_probe SET n = n + 1 WHERE id = 1"))
            a.execute(text("UPDATE deadlock_probe SET n = n + 1 WHERE id = 1"))
        assert getattr(failure.value.orig, "sqlstate", None) == "40001"
        assert isinstance(classify(failure.value), StorageBusy)
    with engine.begin() as c:
        c.execute(text("DROP TABLE deadlock_probe"))
    engine.dispose()
