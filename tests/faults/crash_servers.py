"""A server process under a real MCP client (over stdio or streamable HTTP) that a test can SIGKILL at any moment.

`session(...)` starts one `scratchpad-mcp` process and yields its tool-calling function and its kill switch.
A call the dead server never answered raises Unacknowledged. `settled(...)` waits until the killed process
is gone and, on Postgres, until no backend is still finishing a transaction it sent (a COMMIT already on its
way lands), so what the test then reads is final.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx2
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import Engine, text

from tests.faults.crash_workload import Call, Unacknowledged
from tests.mcp.helpers import START_TIMEOUT, killable_stdio
from tests.servers import spawn

CALL_TIMEOUT = 30.0


@dataclass
class Session:
    connect: Callable[[], contextlib.AbstractAsyncContextManager[Call]]  # a worker's connection, in its own task
    _kill: Callable[[], None]
    pid: int
    killed: bool = False

    def kill(self) -> None:
        self.killed = True
        self._kill()


def _caller(client: Client) -> Call:
    async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            with anyio.fail_after(CALL_TIMEOUT):
                result = await client.call_tool(tool, arguments)
        except Exception as error:  # the connection died with the server: no answer
            raise Unacknowledged(str(error)) from error
        assert result.is_error is False, f"{tool} {arguments}: {result.content}"
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    return call


@contextlib.asynccontextmanager
async def _closing(client: Client) -> AsyncIterator[Call]:
    """Enter a client; leaving it after its server died must not fail the test (the SDK bounds its waits).
    When the connection breaks, the SDK cancels what runs inside its client: the call in flight, which
    then stays unacknowledged."""
    stack = contextlib.AsyncExitStack()
    entered = await stack.enter_async_context(client)
    try:
        yield _caller(entered)
    finally:
        with contextlib.suppress(Exception):
            await stack.aclose()


@contextlib.asynccontextmanager
async def session(transport: str, url: str, folder: Path, name: str, env: dict[str, str]) -> AsyncIterator[Session]:
    """Start a server on the database at `url`, ready for calls: over stdio one connection all workers share,
    over HTTP one connection a worker."""
    env = {"SCRATCHPAD_DATABASE_URL": url, "SCRATCHPAD_LOG_LEVEL": "warning", **env}
    if transport == "stdio":
        params, pidfile = killable_stdio(env, folder / name)
        with (folder / f"{name}.stderr").open("w") as errlog:
            async with _closing(Client(stdio_client(params, errlog=errlog))) as call:
                pid = int(pidfile.read_text())

                @contextlib.asynccontextmanager
                async def shared() -> AsyncIterator[Call]:
                    yield call

                yield Session(shared, lambda: os.kill(pid, signal.SIGKILL), pid)
        return
    server = spawn(folder, name, {"SCRATCHPAD_AUTH": "none", **env})
    try:
        await anyio.to_thread.run_sync(server.wait_healthy, START_TIMEOUT)

        @contextlib.asynccontextmanager
        async def own() -> AsyncIterator[Call]:
            async with (
                httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http,
                _closing(Client(streamable_http_client(server.mcp_url, http_client=http))) as call,
            ):
                yield call

        yield Session(own, server.process.kill, server.process.pid)
    finally:
        server.process.kill()
        server.process.wait()


def settled(pid: int, engine: Engine, timeout: float = 20.0) -> None:
    """Wait until process `pid` is gone (a zombie counts) and no other Postgres backend is mid-transaction."""
    deadline = time.monotonic() + timeout
    while _alive(pid):
        assert time.monotonic() < deadline, f"server {pid} still alive after SIGKILL"
        time.sleep(0.01)
    if engine.dialect.name != "postgresql":
        return
    busy = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() "
        "AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')"
    )
    with engine.connect() as connection:
        while connection.execute(busy).scalar_one():
            assert time.monotonic() < deadline, "a backend of the killed server is still in a transaction"
            connection.rollback()
            time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):  # gone, or reaped while being read
        return False
    return "\nState:\tZ" not in status
