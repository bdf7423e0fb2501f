"""Postgres faults: dropped connections and a briefly unreachable server.

Calls fail with a clear, retryable error, nothing half-written survives, and the store
recovers by itself, without being reopened.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from mcp import Client
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from scratchpad_adapters import open_store
from scratchpad_core.errors import InvalidInput, StorageUnavailable
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from tests.concurrency.test_processes import recount
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.faults.tcp_proxy import TcpProxy

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_url() -> Iterator[str]:
    url = create_postgres_database("scratchpad_faults")
    open_store(url).close()
    yield url
    drop_postgres_database(url)


def terminate(url: str, waiting_only: bool = False) -> int:
    """pg_terminate_backend every other session on the database (or only those waiting for a lock)."""
    name = make_url(url).database
    condition = "AND wait_event_type = 'Lock'" if waiting_only else ""
    engine = create_engine(make_url(url).set(database="postgres"), isolation_level="AUTOCOMMIT")
    with engine.connect() as c:
        killed = c.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                f"WHERE datname = :db AND pid <> pg_backend_pid() {condition}"
            ),
            {"db": name},
        ).scalar_one()
    engine.dispose()
    return int(killed)


def test_terminated_idle_connections_are_replaced_transparently(pg_url: str) -> None:
    with open_store(pg_url) as store:
        store.write_file("a", "f.md", "one\n")
        assert terminate(pg_url) >= 1
        assert store.write_file("a", "f.md", "two\n").version == 2  # pre-ping found the dead connection
        recount(pg_url, "a")


def test_connection_killed_mid_write_leaves_nothing_and_the_next_call_works(pg_url: str) -> None:
    with open_store(pg_url) as store:
        store.write_file("a", "f.md", "one\n")
        locker = create_engine(pg_url).connect()
        transaction = locker.begin()
        locker.execute(text("SELECT id FROM files WHERE path = 'f.md' FOR UPDATE"))
        outcome: list[BaseException | int] = []

        def blocked_write() -> None:
            try:
                outcome.append(store.write_file("a", "f.md", "two\n").version)
            except BaseException as error:
                outcome.append(error)

        writer = threading.Thread(target=blocked_write)
        writer.start()
        deadline = time.monotonic() + 10
        while not terminate(pg_url, waiting_only=True):
            assert time.monotonic() < deadline, "the write never waited for the lock"
            time.sleep(0.05)
        writer.join(timeout=10)
        transaction.rollback()
        locker.close()

        assert len(outcome) == 1 and isinstance(outcome[0], StorageUnavailable)
        assert "Retry" in str(outcome[0])
        assert store.write_file("a", "f.md", "three\n").version == 2  # no version was half-written
        assert store.read_file("a", "f.md").content == "three\n"
        recount(pg_url, "a")


@pytest.fixture
def proxied(pg_url: str) -> Iterator[tuple[TcpProxy, Scratchpad]]:
    parsed = make_url(pg_url)
    proxy = TcpProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    store = open_store(parsed.set(port=proxy.port).render_as_string(hide_password=False))
    yield proxy, store
    store.close()
    proxy.cut()


def test_unreachable_database_gives_retryable_errors_then_recovers(proxied: tuple[TcpProxy, Scratchpad]) -> None:
    proxy, store = proxied
    store.write_file("a", "f.md", "one\n")
    proxy.cut()
    for _ in range(3):
        with pytest.raises(StorageUnavailable, match="Retry"):
            store.write_file("a", "f.md", "two\n")
    proxy.start()
    assert store.read_file("a", "f.md").content == "one\n"
    assert store.write_file("a", "f.md", "two\n").version == 2


def test_a_database_that_stops_answering_fails_calls_within_the_call_timeout(pg_url: str) -> None:
    """No reset, no refusal: the connection stays open and nothing comes back. Calls must not wait forever."""
    parsed = make_url(pg_url)
    proxy = TcpProxy(parsed.host or "127.0.0.1", parsed.port or 5432)
    proxy.start()
    store = open_store(parsed.set(port=proxy.port).render_as_string(hide_password=False), call_timeout_s=1.5)
    try:
        store.write_file("a", "f.md", "one\n")
        proxy.freeze()
        for call in (lambda: store.write_file("a", "f.md", "two\n"), lambda: store.read_file("a", "f.md")):
            started = time.monotonic()
            with pytest.raises(StorageUnavailable, match="Retry"):
                call()
            assert time.monotonic() - started < 30, "bounded by the call timeout, not by the outage"
        proxy.thaw()
        assert store.read_file("a", "f.md").content == "one\n"  # the frozen write was not committed
        assert store.write_file("a", "f.md", "two\n").version == 2
        recount(pg_url, "a")
    finally:
        proxy.thaw()
        store.close()
        proxy.cut()


@pytest.mark.parametrize("seconds", [0, -1, float("nan"), float("inf")])
def test_the_call_timeout_must_be_a_positive_number_of_seconds(pg_url: str, seconds: float) -> None:
    with pytest.raises(InvalidInput, match="Invalid call timeout"):
        open_store(pg_url, call_timeout_s=seconds)


@pytest.mark.anyio
async def test_mcp_server_keeps_serving_through_an_outage(proxied: tuple[TcpProxy, Scratchpad]) -> None:
    proxy, store = proxied
    server = build_server(store, CallRunner(TrustedCaller()))
    async with Client(server) as client:
        assert not (await client.call_tool("write_file", {"agent_id": "a", "path": "f.md", "content": "1"})).is_error
        proxy.cut()
        failed = await client.call_tool("read_file", {"agent_id": "a", "path": "f.md"})
        assert failed.is_error
        message = failed.content[0].text  # type: ignore[union-attr]
        assert "Retry" in message and "127.0.0.1" not in message and "psycopg" not in message
        proxy.start()
        back = await client.call_tool("read_file", {"agent_id": "a", "path": "f.md"})
        assert not back.is_error and back.structured_content["content"] == "1"
