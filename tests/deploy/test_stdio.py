"""Over stdio nothing changes: no keys, and agent_id stays required."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.deploy.conftest import TEST_TIMEOUT
from tests.mcp.helpers import console_script, ok, refused, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_stdio_still_requires_agent_id(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=console_script(), env=server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "stdio.db")), cwd=str(tmp_path)
    )
    with anyio.fail_after(TEST_TIMEOUT):
        async with Client(params) as client:
            tools = (await client.list_tools()).tools
            assert all("agent_id" in tool.input_schema.get("required", []) for tool in tools)
            message = await refused(client, "write_file", {"path": "n.md", "content": "no agent"})
            assert "agent_id" in message
            assert "agent_id" in await refused(client, "list_files", {})
            await ok(client, "write_file", {"agent_id": "local", "path": "n.md", "content": "with agent\n"})
            assert (await ok(client, "list_files", {"agent_id": "local"}))["count"] == 1
