"""The tool list as a client sees it: names, argument names, schemas, annotations, descriptions."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool

from scratchpad_core.service import Scratchpad
from tests.mcp.conftest import serve
from tests.mcp.helpers import ok

pytestmark = pytest.mark.anyio

TOOLS = {
    "write_file",
    "read_file",
    "append_log",
    "read_log",
    "list_files",
    "delete_file",
    "summarize_file",
    "get_usage_stats",
    "edit_file",
    "insert_lines",
    "list_versions",
    "restore_version",
    "search_files",
    "list_logs",
    "delete_log",
}
READ_ONLY = {
    "read_file",
    "read_log",
    "list_files",
    "list_versions",
    "list_logs",
    "search_files",
    "summarize_file",
    "get_usage_stats",
}
DESTRUCTIVE = {"delete_file", "delete_log"}
# The original server's arguments, in order; newer optional arguments may follow them.
ORIGINAL_ARGUMENTS = {
    "write_file": ["agent_id", "path", "content"],
    "read_file": ["agent_id", "path", "since_version"],
    "append_log": ["agent_id", "path", "entry"],
    "read_log": ["agent_id", "path", "since_entry"],
    "list_files": ["agent_id", "prefix"],
    "delete_file": ["agent_id", "path"],
    "summarize_file": ["agent_id", "path"],
    "get_usage_stats": ["agent_id"],
}
# The original tools' required arguments, exactly.
ORIGINAL_REQUIRED = {
    "write_file": ["agent_id", "path", "content"],
    "read_file": ["agent_id", "path"],
    "append_log": ["agent_id", "path", "entry"],
    "read_log": ["agent_id", "path"],
    "list_files": ["agent_id"],
    "delete_file": ["agent_id", "path"],
    "summarize_file": ["agent_id", "path"],
    "get_usage_stats": ["agent_id"],
}


async def tool_map(client: Client) -> dict[str, Tool]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


async def test_exactly_the_fifteen_tools(client: Client) -> None:
    tools = (await client.list_tools()).tools
    assert len(tools) == 15
    assert {tool.name for tool in tools} == TOOLS


async def test_agent_id_is_the_first_and_a_required_argument(client: Client) -> None:
    for name, tool in (await tool_map(client)).items():
        schema: dict[str, Any] = tool.input_schema
        assert next(iter(schema["properties"])) == "agent_id", name
        assert "agent_id" in schema["required"], name
        assert schema["properties"]["agent_id"]["type"] == "string", name


async def test_argument_names_match_the_original(client: Client) -> None:
    tools = await tool_map(client)
    for name, expected in ORIGINAL_ARGUMENTS.items():
        properties = list(tools[name].input_schema["properties"])
        assert properties[: len(expected)] == expected, name
        assert tools[name].input_schema["required"] == ORIGINAL_REQUIRED[name], name
    delete_file = ["agent_id", "path", "expected_version", "request_id"]
    assert list(tools["delete_file"].input_schema["properties"]) == delete_file
    assert list(tools["summarize_file"].input_schema["properties"]) == ["agent_id", "path"]
    assert list(tools["get_usage_stats"].input_schema["properties"]) == ["agent_id"]


async def test_argument_types(client: Client) -> None:
    tools = await tool_map(client)
    write = tools["write_file"].input_schema["properties"]
    assert write["path"]["type"] == "string"
    assert write["content"]["type"] == "string"
    read = tools["read_file"].input_schema
    assert read["properties"]["since_version"]["type"] == "integer"  # optional: plain, and not required
    assert "default" not in read["properties"]["since_version"]
    assert "since_version" not in read["required"]
    assert read["properties"]["format"]["enum"] == ["chunks", "unified", "compact"]


async def test_every_tool_has_an_output_schema(client: Client) -> None:
    for name, tool in (await tool_map(client)).items():
        assert tool.output_schema is not None, name
        assert tool.output_schema["type"] == "object", name
    schema = (await tool_map(client))["write_file"].output_schema
    assert schema is not None
    assert schema["required"] == ["path", "version", "bytes_written"]


async def test_read_only_and_destructive_hints(client: Client) -> None:
    for name, tool in (await tool_map(client)).items():
        assert tool.annotations is not None, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
        if name in DESTRUCTIVE:
            assert tool.annotations.destructive_hint is True, name
        else:
            assert tool.annotations.destructive_hint is not True, name


async def test_descriptions_are_short(client: Client) -> None:
    for name, tool in (await tool_map(client)).items():
        assert tool.description, name
        assert 20 <= len(tool.description) < 400, name


async def test_instructions_reach_the_client(client: Client) -> None:
    assert client.instructions is not None
    assert "since_version" in client.instructions


async def test_legacy_json_rpc_lists_the_same_tools(server: MCPServer) -> None:
    async with Client(server, mode="legacy") as legacy:
        assert legacy.protocol_version == "2025-11-25"
        tools = await tool_map(legacy)
    assert set(tools) == TOOLS
    assert tools["delete_log"].annotations is not None
    assert tools["delete_log"].annotations.destructive_hint is True
    assert tools["summarize_file"].annotations is not None
    assert tools["summarize_file"].annotations.read_only_hint is True
    assert list(tools["read_log"].input_schema["properties"])[:3] == ["agent_id", "path", "since_entry"]


async def test_legacy_json_rpc_round_trip(server: MCPServer) -> None:
    async with Client(server, mode="legacy") as legacy:
        assert await ok(legacy, "write_file", {"agent_id": "a", "path": "n.md", "content": "héllo\n"}) == {
            "path": "n.md",
            "version": 1,
            "bytes_written": 7,
        }
        read = await ok(legacy, "read_file", {"agent_id": "a", "path": "n.md"})
        assert read == {"path": "n.md", "current_version": 1, "content": "héllo\n"}
        result = await legacy.call_tool("read_file", {"agent_id": "a", "path": "n.md"})
        assert result.content[0].text == '{"path":"n.md","current_version":1,"content":"héllo\\n"}'  # type: ignore[union-attr]


async def test_smoke_on_each_backend(store: Scratchpad) -> None:
    """The same server over the shared `store` fixture (SQLite, and Postgres when configured)."""
    async with Client(serve(store)) as client:
        assert (await ok(client, "write_file", {"agent_id": "s", "path": "p", "content": "x"}))["version"] == 1
        assert (await ok(client, "read_file", {"agent_id": "s", "path": "p"}))["content"] == "x"
