"""The streamable-HTTP rows of bench.speed: one server process per server under test, N concurrent client
sessions making the same calls as the stdio rows."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from bench.common import ServerProcess, free_port
from bench.speed_procs import Sample, Server, cpu_seconds, tree
from bench.speed_stdio import ROWS, Connected

Results = dict[str, dict[str, list[Sample]]]
START_TIMEOUT = 60.0


def start(server: Server, db: Path, folder: Path) -> ServerProcess:
    port = free_port()
    log = folder / f"{server.name}-http.stderr"
    env = server.env(db, MCP_TRANSPORT="http", PORT=str(port))
    with log.open("ab") as errors:
        process = subprocess.Popen(
            list(server.command), env=env, cwd=server.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=errors,
        )  # fmt: skip
    started = ServerProcess(server.name, port, process, log)
    started.wait_healthy(START_TIMEOUT)
    return started


@contextlib.asynccontextmanager
async def http_session(url: str) -> Any:
    async with (
        httpx2.AsyncClient(timeout=120) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.list_tools()
        yield session


async def measure(sessions: list[Connected], pids: list[int], row: str, calls: int) -> Sample:
    """`calls` calls of the row, spread over the sessions, all running at once."""
    sample = Sample()
    each = max(1, calls // len(sessions))

    async def client(connected: Connected) -> None:
        run = connected.operation(row)
        for _ in range(each):
            started = time.perf_counter()
            await run()
            sample.seconds.append(time.perf_counter() - started)

    warm = [connected.operation(row) for connected in sessions]
    await asyncio.gather(*(run() for run in warm))
    before, began = cpu_seconds(pids), time.perf_counter()
    await asyncio.gather(*(client(connected) for connected in sessions))
    sample.wall = time.perf_counter() - began
    sample.cpu = cpu_seconds(pids) - before
    return sample


async def http_rounds(found: list[Server], rounds: int, calls: int, count: int, folder: Path) -> Results:
    """Each round: both servers up on fresh files with `count` sessions each; rows alternate which goes first."""
    results: Results = defaultdict(lambda: defaultdict(list))
    for number in range(rounds):
        processes = [start(server, folder / f"{server.name}-http-{number}.db", folder) for server in found]
        try:
            async with contextlib.AsyncExitStack() as stack:
                clients: list[tuple[list[Connected], list[int]]] = []
                for server, process in zip(found, processes, strict=True):
                    sessions = [
                        Connected(server, await stack.enter_async_context(http_session(process.mcp_url)), [])
                        for _ in range(count)
                    ]
                    await sessions[0].set_up()
                    for other in sessions[1:]:
                        other.since = sessions[0].since
                    clients.append((sessions, tree(process.process.pid)))
                for index, (row, share) in enumerate(ROWS.items()):
                    order = clients if (number + index) % 2 == 0 else clients[::-1]
                    for sessions, pids in order:
                        sample = await measure(sessions, pids, row, max(count * 2, int(calls * share)))
                        results[row][sessions[0].server.name].append(sample)
        finally:
            for process in processes:
                process.stop()
        print(f"  http round {number + 1}/{rounds} done", file=sys.stderr, flush=True)
    return results
