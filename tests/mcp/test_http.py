"""Streamable HTTP: the command as a real server on a port, and the ASGI app in process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scratchpad_adapters import open_backend
from scratchpad_mcp.app import http_app
from scratchpad_mcp.settings import Settings
from tests.conftest import FakeSummarizer
from tests.mcp.helpers import START_TIMEOUT, ok, refused
from tests.servers import Server, running

pytestmark = pytest.mark.anyio

A = {"agent_id": "http-agent"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("http")
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(folder / "http.db")}
    with running(folder, {"http": env}) as servers:
        yield servers["http"]


def database_of(server: Server) -> Path:
    return Path(server.env["SCRATCHPAD_DB_PATH"])


def raw_call(url: str, tool: str, arguments: dict[str, Any], request_id: int = 1) -> httpx2.Response:
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return httpx2.post(url, json=body, headers=MCP_HEADERS, timeout=30)


@pytest.mark.slow
def test_health(http_server: Server) -> None:
    response = httpx2.get(f"{http_server.base}/health", timeout=10)
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert database_of(http_server).is_file()


@pytest.mark.slow
async def test_tools_over_http(http_server: Server) -> None:
    with anyio.fail_after(START_TIMEOUT):
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(http_server.mcp_url, http_client=http)) as client,
        ):
            assert len((await client.list_tools()).tools) == 16
            assert await ok(client, "write_file", {**A, "path": "h.md", "content": "one\ntwo\n"}) == {
                "path": "h.md",
                "version": 1,
                "bytes_written": 8,
            }
            await ok(client, "write_file", {**A, "path": "h.md", "content": "one\n2\n"})
            diff = await ok(client, "read_file", {**A, "path": "h.md", "since_version": 1})
            assert diff["diff"] == [
                {"op": "equal", "lines": ["one"]},
                {"op": "remove", "lines": ["two"]},
                {"op": "add", "lines": ["2"]},
                {"op": "equal", "lines": [""]},
            ]
            assert "'..' sequences" in await refused(client, "read_file", {**A, "path": "../h.md"})
            assert (await ok(client, "list_files", A))["count"] == 1


@pytest.mark.slow
async def test_stateless_two_clients_see_the_same_data(http_server: Server) -> None:
    agent = {"agent_id": "shared-agent"}
    with anyio.fail_after(START_TIMEOUT):
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(http_server.mcp_url, http_client=http)) as first,
        ):
            await ok(first, "append_log", {**agent, "path": "shared", "entry": "from the first client"})
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(http_server.mcp_url, http_client=http)) as second,
        ):
            page = await ok(second, "read_log", {**agent, "path": "shared"})
    assert [e["entry"] for e in page["entries"]] == ["from the first client"]


@pytest.mark.slow
def test_raw_post_without_initialize(http_server: Server) -> None:
    agent = {"agent_id": "raw-agent"}
    response = raw_call(http_server.mcp_url, "write_file", {**agent, "path": "r", "content": "raw"}, 7)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    assert "mcp-session-id" not in response.headers
    reply = response.json()
    assert (reply["jsonrpc"], reply["id"]) == ("2.0", 7)
    assert reply["result"]["isError"] is False
    assert reply["result"]["structuredContent"] == {"path": "r", "version": 1, "bytes_written": 3}
    assert reply["result"]["content"][0]["text"] == '{"path":"r","version":1,"bytes_written":3}'

    again = raw_call(http_server.mcp_url, "read_file", {**agent, "path": "r"}, 8).json()
    assert again["result"]["structuredContent"] == {"path": "r", "current_version": 1, "content": "raw"}
    refused_reply = raw_call(http_server.mcp_url, "read_file", {**agent, "path": "/abs"}, 9).json()
    assert refused_reply["result"]["isError"] is True
    assert "leading '/'" in refused_reply["result"]["content"][0]["text"]


@pytest.mark.slow
def test_foreign_host_header_is_refused(http_server: Server) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx2.post(http_server.mcp_url, json=body, headers={**MCP_HEADERS, "Host": "evil.example"}, timeout=30)
    assert response.status_code == 421


@pytest.mark.slow
def test_logs_are_json_lines_on_stderr(http_server: Server) -> None:
    raw_call(http_server.mcp_url, "get_usage_stats", {"agent_id": "log-agent"})
    lines = [json.loads(line) for line in http_server.stderr().splitlines() if line.strip()]
    startup = next(line for line in lines if line.get("event") == "startup")
    assert startup["transport"] == "http"
    assert startup["database"] == f"sqlite:///{database_of(http_server)}"
    assert f"sqlite:///{database_of(http_server)}" in startup["message"]
    assert any(line.get("tool") == "get_usage_stats" and line.get("agent") == "log-agent" for line in lines)


async def test_in_process_asgi_app(tmp_path: Path) -> None:
    settings = Settings.from_env({"MCP_TRANSPORT": "http", "SCRATCHPAD_AUTH": "none"})
    backend = open_backend(f"sqlite:///{tmp_path}/asgi.db", summarizer=FakeSummarizer())
    app = http_app(settings, backend)
    base = "http://127.0.0.1:4321"  # a loopback Host (DNS-rebinding protection: settings.hosts)
    try:
        # ASGITransport runs no lifespan: enter the app's own (it runs the MCP session manager).
        async with app.router.lifespan_context(app):
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url=base) as http:
                health = await http.get("/health")
                assert (health.status_code, health.json()) == (200, {"status": "ok"})
                async with Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                    assert await ok(client, "write_file", {**A, "path": "asgi", "content": "in process"}) == {
                        "path": "asgi",
                        "version": 1,
                        "bytes_written": 10,
                    }
                body = {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "read_file", "arguments": {**A, "path": "asgi"}},
                }
                raw = await http.post("/mcp", json=body, headers=MCP_HEADERS)
                assert raw.status_code == 200
                result = raw.json()["result"]
                assert result["structuredContent"] == {"path": "asgi", "current_version": 1, "content": "in process"}
                assert result["content"][0]["text"] == '{"path":"asgi","current_version":1,"content":"in process"}'
                wrong_host = await http.post("/mcp", json=body, headers={**MCP_HEADERS, "Host": "evil.example"})
                assert (wrong_host.status_code, wrong_host.text) == (421, "Invalid Host header")
                # no port: a browser's Host for http://127.0.0.1/, which no other site can make it send
                portless = await http.post("/mcp", json=body, headers={**MCP_HEADERS, "Host": "127.0.0.1"})
                assert portless.status_code == 200
    finally:
        backend.close()
