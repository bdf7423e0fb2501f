"""request_id and compare-and-set conflicts through real MCP clients: in process, over stdio, and over HTTP with the
connection cut before the answer arrived."""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters

from tests.conftest import create_postgres_database, drop_postgres_database
from tests.faults.tcp_proxy import TcpProxy
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, refused, server_env
from tests.servers import Server, running

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}
WRITING = {"write_file", "edit_file", "insert_lines", "restore_version", "delete_file", "append_log", "delete_log"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def test_every_writing_tool_takes_a_request_id_with_one_description(client: Client) -> None:
    tools = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
    takes = {name for name, schema in tools.items() if "request_id" in schema["properties"]}
    assert takes == WRITING
    described = {json_text(tools[name]["properties"]["request_id"]) for name in WRITING}
    assert described == {'{"type":"string","description":"Same on retry: no redo."}'}
    assert all("request_id" not in tools[name].get("required", []) for name in WRITING)


def json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


async def test_a_retry_gets_the_first_reply_and_changes_nothing(client: Client) -> None:
    call = {**A, "path": "run.log", "entry": "step 1", "request_id": "9f1c"}
    first = await client.call_tool("append_log", call)
    stats = await ok(client, "get_usage_stats", A)
    again = await client.call_tool("append_log", call)
    assert again.content[0].text == first.content[0].text == '{"path":"run.log","entry_id":1,"bytes_written":6}'  # type: ignore[union-attr]
    assert (await ok(client, "read_log", {**A, "path": "run.log"}))["total"] == 1
    after = await ok(client, "get_usage_stats", A)
    assert after == {**stats, "total_operations": stats["total_operations"] + 2}  # the stats and read_log calls


async def test_other_arguments_under_the_same_request_id_are_refused(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "f.md", "content": "one", "request_id": "w"})
    message = await refused(client, "write_file", {**A, "path": "f.md", "content": "two", "request_id": "w"})
    assert message.startswith("Invalid request_id 'w': it already names an earlier write_file call with other")
    assert (await ok(client, "read_file", {**A, "path": "f.md"}))["content"] == "one"
    too_long = await refused(client, "append_log", {**A, "path": "l", "entry": "x", "request_id": "r" * 129})
    assert too_long.startswith("Invalid request_id: 129 characters; use 1 to 128 characters")


async def test_a_version_conflict_is_a_conflict_whatever_the_file_holds(client: Client) -> None:
    create = {**A, "path": "f.md", "content": "v1", "expected_version": 0}
    assert await ok(client, "write_file", create) == {"path": "f.md", "version": 1, "bytes_written": 2}
    assert await refused(client, "write_file", create) == (
        "Version conflict on f.md: expected_version 0, but its current version is 1. "
        "Nothing was changed; read the file again and retry with the current version."
    )
    gone = {**A, "path": "f.md", "expected_version": 1}
    assert await ok(client, "delete_file", gone) == {"path": "f.md", "deleted": True, "versions_removed": 1}
    assert await refused(client, "delete_file", gone) == (
        "Version conflict on f.md: expected_version 1, but it does not exist. "
        "Nothing was changed; read the file again and retry with the current version."
    )
    schemas = {tool.name: tool.output_schema or {} for tool in (await client.list_tools()).tools}
    assert not [name for name, schema in schemas.items() if "already_applied" in str(schema)]


@pytest.mark.slow
async def test_a_retry_over_stdio(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
    call = {**A, "path": "f.md", "line": -1, "text": "once", "request_id": "ins-1"}
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            first = await ok(client, "insert_lines", call)
            assert await ok(client, "insert_lines", call) == first == {
                "path": "f.md", "version": 1, "bytes_written": 5, "start_line": 1, "end_line": 1,
            }  # fmt: skip
            assert (await ok(client, "read_file", {**A, "path": "f.md"}))["content"] == "once\n"


class ReplyDroppingProxy(TcpProxy):
    """Passes requests to the server, and cuts the connection when the server's answer starts to come back:
    the call ran, and the client never heard."""

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        if source.getpeername()[1] != self.target[1]:
            return super()._pump(source, sink)
        with contextlib.suppress(OSError):
            source.recv(65536)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()
        return None


@pytest.fixture(params=["sqlite", "postgres"])
def http_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    """An HTTP server process (SCRATCHPAD_AUTH=none) on a SQLite file, or on a Postgres database of its own."""
    postgres = create_postgres_database("scratchpad_retries") if request.param == "postgres" else None
    database = postgres or f"sqlite:///{tmp_path / 'http.db'}"
    try:
        with running(tmp_path, {"http": {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DATABASE_URL": database}}) as servers:
            yield servers["http"]
    finally:
        if postgres is not None:
            drop_postgres_database(postgres)


def post(url: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
    reply: dict[str, Any] = httpx2.post(url, json=body, headers=MCP_HEADERS, timeout=30).json()
    return reply


@pytest.mark.slow
def test_a_retry_after_the_connection_was_cut_before_the_answer(http_server: Server) -> None:
    proxy = ReplyDroppingProxy("127.0.0.1", http_server.port)
    proxy.start()
    try:
        cut_url = f"http://127.0.0.1:{proxy.port}/mcp"
        call = {**A, "path": "run.log", "entry": "paid once", "request_id": "pay-7"}
        with pytest.raises(httpx2.TransportError):
            post(cut_url, "append_log", call)  # it ran; the answer never arrived
        retried = post(http_server.mcp_url, "append_log", call)
        assert retried["result"]["structuredContent"] == {"path": "run.log", "entry_id": 1, "bytes_written": 9}
        page = post(http_server.mcp_url, "read_log", {**A, "path": "run.log"})["result"]["structuredContent"]
        assert [e["entry"] for e in page["entries"]] == ["paid once"]
    finally:
        proxy.cut()
