"""SCRATCHPAD_AUTH=none: fine on loopback; refused on other interfaces unless SCRATCHPAD_ALLOW_INSECURE=1."""

from __future__ import annotations

import subprocess
from pathlib import Path

import anyio
import httpx2
import pytest

from tests.deploy.conftest import (
    TEST_TIMEOUT,
    connect,
    raw_call,
    raw_result,
    unique,
)
from tests.mcp.helpers import START_TIMEOUT, ok, refused
from tests.servers import running, spawn

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_no_key_needed_on_loopback(tmp_path: Path) -> None:
    agent = unique("open")
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(tmp_path / "open.db")}
    with running(tmp_path, {"open": env}) as servers, anyio.fail_after(TEST_TIMEOUT):
        server = servers["open"]
        async with connect(server.mcp_url) as client:
            tools = (await client.list_tools()).tools
            assert all("agent_id" in tool.input_schema.get("required", []) for tool in tools)
            await ok(client, "write_file", {"agent_id": agent, "path": "n.md", "content": "no key needed\n"})
            assert (await ok(client, "read_file", {"agent_id": agent, "path": "n.md"}))["content"] == "no key needed\n"
            # Without a key there is no agent to default to: agent_id stays required.
            assert "agent_id" in await refused(client, "list_files", {})
        result = raw_result(raw_call(server.mcp_url, None, "list_files", {"agent_id": agent}))
        assert result["structuredContent"]["count"] == 1
        # A bearer header is simply not looked at.
        result = raw_result(raw_call(server.mcp_url, "spk_whatever", "list_files", {"agent_id": agent}))
        assert result["structuredContent"]["count"] == 1


@pytest.mark.parametrize("host", ["0.0.0.0", "::"])
def test_no_auth_on_other_interfaces_refuses_to_start(tmp_path: Path, host: str) -> None:
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_HOST": host, "SCRATCHPAD_DB_PATH": str(tmp_path / "x.db")}
    server = spawn(tmp_path, "exposed", env)
    try:
        code = server.process.wait(timeout=START_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.stop()
        raise AssertionError(f"the server started on {host} without auth: {server.stderr()}") from None
    assert code != 0
    assert "SCRATCHPAD_ALLOW_INSECURE" in server.stderr()
    assert "SCRATCHPAD_AUTH" in server.stderr()
    assert "serving MCP" not in server.stderr()
    assert not (tmp_path / "x.db").exists(), "refused before touching the database"


async def test_allow_insecure_lets_it_start_on_all_interfaces(tmp_path: Path) -> None:
    agent = unique("insecure")
    env = {
        "SCRATCHPAD_AUTH": "none",
        "SCRATCHPAD_HOST": "0.0.0.0",
        "SCRATCHPAD_ALLOW_INSECURE": "1",
        "SCRATCHPAD_DB_PATH": str(tmp_path / "insecure.db"),
    }
    with running(tmp_path, {"insecure": env}) as servers, anyio.fail_after(TEST_TIMEOUT):
        server = servers["insecure"]
        assert httpx2.get(f"{server.base}/health", timeout=30).status_code == 200
        async with connect(server.mcp_url) as client:
            await ok(client, "append_log", {"agent_id": agent, "path": "trail", "entry": "reachable"})
            assert (await ok(client, "read_log", {"agent_id": agent, "path": "trail"}))["total"] == 1


def test_keys_auth_on_all_interfaces_needs_no_override(tmp_path: Path) -> None:
    env = {"SCRATCHPAD_HOST": "0.0.0.0", "SCRATCHPAD_DB_PATH": str(tmp_path / "keyed.db")}
    with running(tmp_path, {"keyed": env}) as servers:
        response = raw_call(servers["keyed"].mcp_url, None, "list_files", {"agent_id": "x"})
        assert response.status_code == 401
