"""A refused tool call as an MCP client gets it, in process and over stdio (whose plainest calls skip the SDK's
pipeline): one line of text, and the refusal as data in the result's _meta: code, retryable, the argument at
fault and the numbers the sentence states."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server.refusals import META_KEY
from tests.mcp.conftest import serve
from tests.mcp.helpers import console_script, server_env
from tests.mcp.stdio_process import JsonRpcProcess

A = {"agent_id": "alice"}


async def refusal(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(tool, {**A, **arguments})
    assert result.is_error and result.structured_content is None and result.meta is not None
    (block,) = result.content
    assert block.type == "text" and "\n" not in block.text
    return block.text, result.meta[META_KEY]


@pytest.mark.anyio
async def test_a_refusal_carries_its_code_argument_and_numbers(store: Scratchpad) -> None:
    store.write_file("alice", "notes.md", "one line\n")
    async with Client(serve(store)) as client:
        text, data = await refusal(client, "write_file", {"path": "notes.md", "content": "x", "expected_version": 7})
        assert text.startswith("Version conflict on notes.md: expected_version 7, but its current version is 1.")
        assert data == {"code": "version_conflict", "retryable": False, "expected": 7, "current": 1}
        text, data = await refusal(client, "search_files", {"query": "!!!"})
        assert "use exact=true to find punctuation or symbols" in text
        assert data == {"code": "invalid_input", "retryable": False, "argument": "query"}
        text, data = await refusal(client, "read_file", {"path": "notes.md", "start_line": 5})
        assert text == "Invalid start_line 5: notes.md has 1 line."
        assert data == {"code": "invalid_input", "retryable": False, "argument": "start_line", "start": 5, "lines": 1}
        text, data = await refusal(client, "read_file", {"path": "gone.md"})
        assert text == "File not found: gone.md. Use list_files to see this agent's files."
        assert data == {"code": "not_found", "retryable": False}


def test_over_stdio_the_refusal_data_is_in_the_reply(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "refusals.db"))
    with JsonRpcProcess([console_script()], env) as server:
        server.request(0, "initialize", JsonRpcProcess.INITIALIZE)
        server.notify("notifications/initialized")
        for number, meta in ((1, None), (2, {"progressToken": "through-the-sdk"})):
            params: dict[str, Any] = {"name": "read_file", "arguments": {**A, "path": "gone.md"}}
            reply = server.request(number, "tools/call", params if meta is None else {**params, "_meta": meta})
            result = reply["result"]
            assert result["isError"] is True and "structuredContent" not in result
            assert result["_meta"] == {META_KEY: {"code": "not_found", "retryable": False}}
