"""The installed command over stdio: the high-level Client, the low-level session, python -m, raw JSON-RPC."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from tests.mcp.helpers import START_TIMEOUT, check_reply, console_script, ok, server_env
from tests.mcp.stdio_process import JsonRpcProcess

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

A = {"agent_id": "stdio-agent"}
OLD = "alpha\nbeta\ngamma\n"
NEW = "alpha\nBETA\ngamma\n"
EXPECTED_DIFF = {
    "path": "plan.md",
    "current_version": 2,
    "since_version": 1,
    "version_too_old": False,
    "diff": [
        {"op": "equal", "lines": ["alpha"]},
        {"op": "remove", "lines": ["beta"]},
        {"op": "add", "lines": ["BETA"]},
        {"op": "equal", "lines": ["gamma", ""]},
    ],
}


def params(tmp_path: Path, *, module: bool = False) -> StdioServerParameters:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
    if module:
        return StdioServerParameters(command=sys.executable, args=["-m", "scratchpad_mcp"], env=env)
    return StdioServerParameters(command=console_script(), args=[], env=env)


async def write_and_diff(client: Any) -> None:
    """Write two versions and read the diff between them; `client` is a Client or a ClientSession."""
    one = check_reply(await client.call_tool("write_file", {**A, "path": "plan.md", "content": OLD}))
    assert one == {"path": "plan.md", "version": 1, "bytes_written": 17}
    two = check_reply(await client.call_tool("write_file", {**A, "path": "plan.md", "content": NEW}))
    assert two == {"path": "plan.md", "version": 2, "bytes_written": 17}
    diff = check_reply(await client.call_tool("read_file", {**A, "path": "plan.md", "since_version": 1}))
    assert diff == EXPECTED_DIFF


async def test_console_script_with_client(tmp_path: Path) -> None:
    with anyio.fail_after(START_TIMEOUT):
        async with Client(params(tmp_path)) as client:
            assert len((await client.list_tools()).tools) == 16
            await write_and_diff(client)
    assert (tmp_path / "s.db").is_file()


async def test_console_script_with_low_level_session(tmp_path: Path) -> None:
    with anyio.fail_after(START_TIMEOUT):
        async with stdio_client(params(tmp_path)) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-11-25"
            assert init.server_info.name == "scratchpad"
            assert init.instructions is not None
            assert "since_version" in init.instructions
            await write_and_diff(session)
            bad = await session.call_tool("write_file", {**A, "path": "../x", "content": "x"})
            assert bad.is_error is True
            assert bad.content[0].text == "Invalid path: '..' sequences are not allowed."  # type: ignore[union-attr]


async def test_python_dash_m(tmp_path: Path) -> None:
    with anyio.fail_after(START_TIMEOUT):
        async with Client(params(tmp_path, module=True)) as client:
            await write_and_diff(client)


async def test_data_survives_a_restart(tmp_path: Path) -> None:
    with anyio.fail_after(2 * START_TIMEOUT):
        async with Client(params(tmp_path)) as client:
            await ok(client, "write_file", {**A, "path": "keep.md", "content": "persisted"})
        async with Client(params(tmp_path, module=True)) as client:
            read = await ok(client, "read_file", {**A, "path": "keep.md"})
    assert read == {"path": "keep.md", "current_version": 1, "content": "persisted"}


def test_only_json_rpc_on_stdout_and_the_log_on_stderr(tmp_path: Path) -> None:
    db = tmp_path / "raw.db"
    with JsonRpcProcess([console_script()], server_env(SCRATCHPAD_DB_PATH=str(db))) as server:
        init = server.request(1, "initialize", server.INITIALIZE)
        assert init["result"]["protocolVersion"] == "2025-11-25"
        assert init["result"]["serverInfo"]["name"] == "scratchpad"
        server.notify("notifications/initialized")
        listed = server.request(2, "tools/list", {})
        assert len(listed["result"]["tools"]) == 16
        called = server.request(
            3, "tools/call", {"name": "write_file", "arguments": {**A, "path": "p", "content": "x"}}
        )
        assert called["result"]["structuredContent"] == {"path": "p", "version": 1, "bytes_written": 1}
        assert called["result"]["isError"] is False
        stdout, stderr = server.finish()
    lines = stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"
        assert message["id"] in (1, 2, 3)
        assert set(message) == {"jsonrpc", "id", "result"}
    startup = [line for line in stderr.splitlines() if f"sqlite:///{db}" in line]
    assert len(startup) == 1, stderr
    assert "stdio" in startup[0]
    assert "write_file ok agent='stdio-agent'" in stderr
    assert server.returncode == 0


def test_exits_cleanly_when_stdin_closes(tmp_path: Path) -> None:
    done = subprocess.run(
        [console_script()],
        check=False,
        env=server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "eof.db")),
        input="",
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.returncode == 0
