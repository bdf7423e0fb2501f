"""SCRATCHPAD_MAX_READ_BYTES from outside: a full read_file past it comes back as its first lines with
truncated, total_lines and next_start_line, over stdio and HTTP; off by default; the tool definitions the
model reads every turn stay as they are."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from bench.common import definition_bytes
from scratchpad_adapters import open_backend
from scratchpad_mcp.app import http_app
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from scratchpad_mcp.settings import Settings
from tests.conftest import FakeSummarizer, StoreFactory
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, server_env

pytestmark = pytest.mark.anyio

A = {"agent_id": "reader"}
BIG = "".join(f"{n:04d} {'x' * 45}\n" for n in range(1, 2001))  # 2,000 lines of 51 bytes: 102,000 bytes
BOUND = 40_000


async def read_in_pieces(client: Client) -> str:
    """What an agent does with a truncated reply: read on from next_start_line, in slices."""
    first = await ok(client, "read_file", {**A, "path": "big.md"})
    assert first["truncated"] is True and first["total_lines"] == 2000
    kept = first["next_start_line"] - 1
    assert first["content"] == "".join(BIG.splitlines(keepends=True)[:kept])
    assert kept * 51 <= BOUND < (kept + 1) * 51
    pieces, reply = [str(first["content"])], first
    while reply.get("truncated"):  # reading on to the end is bounded too: each piece fits
        reply = await ok(client, "read_file", {**A, "path": "big.md", "start_line": reply["next_start_line"]})
        assert len(str(reply["content"]).encode()) <= BOUND
        pieces.append(str(reply["content"]))
    return "".join(pieces)


@pytest.mark.slow
async def test_a_stdio_server_with_the_setting_cuts_a_full_read(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"), SCRATCHPAD_MAX_READ_BYTES=str(BOUND))
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            await ok(client, "write_file", {**A, "path": "big.md", "content": BIG})
            assert await read_in_pieces(client) == BIG
            small = await ok(client, "write_file", {**A, "path": "small.md", "content": "short\n"})
            assert small["version"] == 1
            assert await ok(client, "read_file", {**A, "path": "small.md"}) == {
                "path": "small.md", "current_version": 1, "content": "short\n",
            }  # fmt: skip


async def test_http_takes_the_setting_and_the_default_is_off(tmp_path: Path) -> None:
    backend = open_backend(f"sqlite:///{tmp_path}/h.db", summarizer=FakeSummarizer())
    backend.store.write_file("reader", "big.md", BIG)
    try:
        for variables, bounded in (({"SCRATCHPAD_MAX_READ_BYTES": str(BOUND)}, True), ({}, False)):
            settings = Settings.from_env({"MCP_TRANSPORT": "http", "SCRATCHPAD_AUTH": "none", **variables})
            app = http_app(settings, backend)
            async with (
                app.router.lifespan_context(app),
                httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://127.0.0.1:4321") as http,
                Client(streamable_http_client("http://127.0.0.1:4321/mcp", http_client=http)) as client,
            ):
                if bounded:
                    assert await read_in_pieces(client) == BIG
                else:
                    assert (await ok(client, "read_file", {**A, "path": "big.md"}))["content"] == BIG
    finally:
        backend.close()


async def test_the_bound_leaves_the_definitions_alone_and_the_schema_names_the_fields(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    seen = []
    for bound in (None, BOUND):
        async with Client(build_server(store, CallRunner(TrustedCaller()), max_read_bytes=bound)) as client:
            tools = (await client.list_tools()).tools
            seen.append((definition_bytes(tools), [tool.model_dump() for tool in tools]))
    assert seen[0] == seen[1]
    (read,) = [tool for tool in seen[0][1] if tool["name"] == "read_file"]
    properties = read["output_schema"]["properties"]
    assert properties["truncated"] == {"type": "boolean"} and properties["next_start_line"] == {"type": "integer"}
