"""One rate-limit budget per agent, shared by every replica on the database."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from scratchpad_adapters import open_backend
from scratchpad_core.errors import RateLimited
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import (
    TEST_TIMEOUT,
    connect,
    create_keys,
    text_of,
    unique,
)
from tests.mcp.helpers import check_error, ok
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]

RATE = 2.0  # calls per second
BURST = 4
RETRY = re.compile(r"Retry in (\d+(?:\.\d+)?) seconds")


class Pair:
    def __init__(self, database: str, replicas: list[Server]) -> None:
        self.database = database
        self.replicas = replicas


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    database = create_postgres_database("scratchpad_ratelimit")
    folder: Path = tmp_path_factory.mktemp("ratelimit")
    env = {
        "SCRATCHPAD_DATABASE_URL": database,
        "SCRATCHPAD_RATE_LIMIT": str(RATE),
        "SCRATCHPAD_RATE_BURST": str(BURST),
    }
    try:
        with running(folder, {"limited-1": env, "limited-2": env}) as servers:
            yield Pair(database, [servers["limited-1"], servers["limited-2"]])
    finally:
        drop_postgres_database(database)


def retry_after(result: CallToolResult) -> float:
    message = check_error(result)
    assert "Rate limit" in message and "nothing was changed" in message, message
    match = RETRY.search(message)
    assert match is not None, message
    seconds = float(match[1])
    assert 0 <= seconds <= 1 / RATE + 0.01, message
    return seconds


async def test_budget_is_shared_across_replicas(limited: Pair) -> None:
    agent, bystander = unique("limited"), unique("bystander")
    key, other = create_keys(limited.database, agent, bystander)
    calls = 16
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(limited.replicas[0].mcp_url, key.secret) as first,
            connect(limited.replicas[1].mcp_url, key.secret) as second,
        ):
            clients = [first, second]
            # The agent's first write on its own (concurrent first writes of a new agent are tested in
            # test_replicas.py); it takes the first token of the burst.
            started = time.monotonic()
            await ok(first, "write_file", {"path": "burst/first.md", "content": "first\n"})
            results: list[CallToolResult | None] = [None] * calls

            async def write(i: int, client: Client) -> None:
                results[i] = await client.call_tool(
                    "write_file", {"path": f"burst/{i:02}.md", "content": f"call {i}\n"}
                )

            async with anyio.create_task_group() as group:
                for i in range(calls):
                    group.start_soon(write, i, clients[i % 2])  # alternate between the replicas
            elapsed = time.monotonic() - started

            done = [r for r in results if r is not None]
            accepted = [i for i, r in enumerate(results) if r is not None and not r.is_error]
            refusals = [r for r in done if r.is_error]
            assert len(done) == calls
            for refusal in refusals:
                retry_after(refusal)
            # One shared bucket: burst + rate * elapsed, not twice that (one bucket per replica).
            ceiling = BURST + RATE * elapsed
            assert BURST <= 1 + len(accepted) <= ceiling + 1, (len(accepted), elapsed)
            assert refusals, f"no call was refused in {elapsed:.2f}s"

            # Another agent has its own budget.
            async with connect(limited.replicas[1].mcp_url, other.secret) as client:
                for _ in range(BURST):
                    await ok(client, "get_usage_stats", {})

            # Drain the rest of the budget, then wait what the server advises: the next call goes through.
            while True:
                reply = await second.call_tool("get_usage_stats", {})
                if reply.is_error:
                    wait = retry_after(reply)
                    break
            await anyio.sleep(wait)
            listing = await ok(first, "list_files", {"prefix": "burst/"})
            # Refused writes changed nothing: exactly the accepted ones exist.
            expected = [f"burst/{i:02}.md" for i in accepted] + ["burst/first.md"]
            assert sorted(f["path"] for f in listing["files"]) == expected
            assert text_of(reply).startswith("Rate limit exceeded")


async def test_sequential_calls_alternating_replicas(limited: Pair) -> None:
    """Calls one after another, as an agent makes them: about burst + rate * elapsed go through."""
    agent = unique("steady")
    (key,) = create_keys(limited.database, agent)
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(limited.replicas[0].mcp_url, key.secret) as first,
            connect(limited.replicas[1].mcp_url, key.secret) as second,
        ):
            accepted = refused = 0
            started = time.monotonic()
            i = 0
            while time.monotonic() - started < 3.0 or refused == 0:
                reply = await (first, second)[i % 2].call_tool("append_log", {"path": "steady", "entry": f"e{i}"})
                if reply.is_error:
                    retry_after(reply)
                    refused += 1
                else:
                    accepted += 1
                i += 1
                assert time.monotonic() - started < 60, "never refused"
            elapsed = time.monotonic() - started
            assert accepted <= BURST + RATE * elapsed + 1, (accepted, elapsed)
            assert accepted >= BURST + RATE * elapsed - 3, (accepted, elapsed)
            await anyio.sleep(1 / RATE + 0.05)
            page = await ok(second, "read_log", {"path": "steady"})
            assert page["total"] == accepted


@pytest.mark.parametrize("backend", ["sqlite", "memory"])
def test_waiting_the_advised_time_is_always_enough(tmp_path: Path, backend: str) -> None:
    """Refused at any moment, an agent that waits exactly the advised seconds gets through.

    Driven with a manual clock on the limiter the servers use (one bucket per agent, one agent per
    moment), so the timing is exact rather than subject to the machine's load.
    """
    opened = open_backend(f"sqlite:///{tmp_path / 'bucket.db'}" if backend == "sqlite" else "memory://")
    start = 1_000_000
    now = [start]
    limiter = opened.rate_limiter(RATE, BURST, clock=lambda: now[0])
    problems = []
    try:
        for later in range(1, int(1000 / RATE)):  # each ms into the refill of the next token
            agent = f"clocked-{later}"
            now[0] = start
            for _ in range(BURST):
                assert limiter.acquire(agent) == 0.0
            now[0] = start + later
            wait = limiter.acquire(agent)
            assert wait > 0
            match = RETRY.search(RateLimited(wait).message)
            assert match is not None
            now[0] += round(float(match[1]) * 1000)
            if limiter.acquire(agent) != 0.0:
                problems.append(f"refused {later} ms after the burst; waited the advised {match[1]} s; refused again")
    finally:
        opened.close()
    assert problems == [], f"{len(problems)} moments, e.g. {problems[:3]}"
