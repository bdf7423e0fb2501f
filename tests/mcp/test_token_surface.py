"""What every turn costs a model (tool definitions, instructions) and the arguments it must get exactly right."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from bench.common import definition_bytes
from scratchpad_core.limits import KIB, Limits
from tests.conftest import StoreFactory
from tests.mcp.conftest import serve
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, refused, server_env

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}
# Measured 7,860 B for the 15 tools (the original's 8 cost 4,057 B). The issue's 5,500 B is out of reach with
# every argument described: the bare structure of 15 tools with 59 arguments (types, required lists,
# additionalProperties, empty descriptions, no defaults) is already 4,944 B before a word is written.
# This bound keeps the surface from growing back. request_id on the 7 writing tools (issue 12) measured +497 B
# (7,860 -> 8,357 B with `uv run python -m bench.definitions`), read_log's show_by (issue 11) +87 B (8,444 B):
# the budget grows by that, rounded up.
DEFINITIONS_BUDGET = 8_450
INSTRUCTIONS_BUDGET = 600

# Valid arguments for every tool, on a store where notes.md (2 versions) and run.log exist.
CALLS: dict[str, dict[str, Any]] = {
    "write_file": {"path": "notes.md", "content": "x\n"},
    "read_file": {"path": "notes.md"},
    "edit_file": {"path": "notes.md", "old_str": "two", "new_str": "2"},
    "insert_lines": {"path": "notes.md", "line": 0, "text": "top"},
    "list_versions": {"path": "notes.md"},
    "restore_version": {"path": "notes.md", "version": 1},
    "delete_file": {"path": "notes.md"},
    "list_files": {},
    "search_files": {"query": "one"},
    "append_log": {"path": "run.log", "entry": "e"},
    "read_log": {"path": "run.log"},
    "list_logs": {},
    "delete_log": {"path": "run.log"},
    "summarize_file": {"path": "notes.md"},
    "get_usage_stats": {},
}


def walk(node: Any) -> list[dict[str, Any]]:
    """Every object in a JSON schema."""
    if isinstance(node, list):
        return [found for item in node for found in walk(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(found for value in node.values() for found in walk(value))]


async def test_tool_definitions_stay_within_budget(client: Client) -> None:
    tools = (await client.list_tools()).tools
    assert definition_bytes(tools) <= DEFINITIONS_BUDGET
    assert len((client.instructions or "").encode()) <= INSTRUCTIONS_BUDGET


async def test_schemas_carry_no_titles_and_no_nullable_wrappers(client: Client) -> None:
    for tool in (await client.list_tools()).tools:
        for schema in (tool.input_schema, tool.output_schema):
            assert schema is not None
            for node in walk(schema):
                assert "title" not in node or not isinstance(node["title"], str), (tool.name, node)
                assert {"type": "null"} not in node.get("anyOf", []), (tool.name, node)
                assert node.get("default", ...) is not None, (tool.name, node)
        assert tool.input_schema["additionalProperties"] is False, tool.name
        for name, prop in tool.input_schema["properties"].items():
            assert len(prop.get("description", "")) >= 10, (tool.name, name)  # every argument is described
        assert tool.description and "\n" not in tool.description


async def test_descriptions_follow_the_live_limits(make_store: StoreFactory) -> None:
    limits = Limits(max_versions=3, max_file_bytes=2 * KIB, max_log_entry_bytes=1500)
    async with Client(serve(make_store(limits))) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    write = tools["write_file"]
    assert "(3 kept)" in (write.description or "") and "10" not in (write.description or "")
    assert write.input_schema["properties"]["content"]["description"] == "Up to 2 KiB."
    assert tools["append_log"].input_schema["properties"]["entry"]["description"] == "Up to 1,500 bytes."
    text = json.dumps([tool.model_dump() for tool in tools.values()])
    assert "{" + "max_" not in text  # no placeholder left unfilled


@pytest.mark.slow
async def test_a_stdio_server_states_its_configured_limits(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"), SCRATCHPAD_MAX_VERSIONS="3")
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    description = tools["write_file"].description or ""
    assert "(3 kept)" in description and "10 kept" not in description


async def populate(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "notes.md", "content": "one\n"})
    await ok(client, "write_file", {**A, "path": "notes.md", "content": "one\ntwo\n"})
    await ok(client, "append_log", {**A, "path": "run.log", "entry": "first"})


@pytest.mark.parametrize("tool", CALLS)
async def test_an_unknown_argument_is_refused_and_nothing_runs(client: Client, tool: str) -> None:
    await populate(client)
    before = await ok(client, "get_usage_stats", A)
    listing = await ok(client, "list_files", A)

    message = await refused(client, tool, {**A, **CALLS[tool], "bogus_arg": 1})

    schema = {t.name: t for t in (await client.list_tools()).tools}[tool].input_schema
    valid = ", ".join(schema["properties"])
    assert message == (
        f"Unknown argument 'bogus_arg' for {tool}; valid: {valid}. Nothing was run; fix the name and retry."
    )
    after = await ok(client, "get_usage_stats", A)
    assert after == {**before, "total_operations": before["total_operations"] + 2}  # the stats and listing calls
    assert await ok(client, "list_files", A) == listing


async def test_a_misspelled_since_version_is_not_a_full_read(client: Client) -> None:
    await populate(client)
    message = await refused(client, "read_file", {**A, "path": "notes.md", "sinceVersion": 1})
    assert message.startswith("Unknown argument 'sinceVersion' for read_file; valid: agent_id, path, since_version,")
    several = await refused(client, "read_file", {**A, "path": "notes.md", "sinceVersion": 1, "fromat": "x"})
    assert several.startswith("Unknown arguments 'sinceVersion', 'fromat' for read_file;")
    # Numbers sent as strings are still accepted.
    diff = await ok(client, "read_file", {**A, "path": "notes.md", "since_version": "1", "format": "compact"})
    assert diff == {"current_version": 2, "diff": [{"at": 2, "remove": 0, "add": ["two"]}]}


async def test_compact_catch_up_over_mcp(client: Client) -> None:
    await populate(client)
    result = await client.call_tool("read_file", {**A, "path": "notes.md", "since_version": 1, "format": "compact"})
    assert result.content[0].text == '{"current_version":2,"diff":[{"at":2,"remove":0,"add":["two"]}]}'  # type: ignore[union-attr]
    same = await ok(client, "read_file", {**A, "path": "notes.md", "since_version": 2, "format": "compact"})
    assert same == {"current_version": 2, "unchanged": True, "diff": []}


async def test_edits_report_back_briefly_unless_asked(client: Client) -> None:
    await populate(client)
    brief = await client.call_tool("edit_file", {**A, "path": "notes.md", "old_str": "two", "new_str": "2"})
    assert brief.content[0].text == (  # type: ignore[union-attr]
        '{"path":"notes.md","version":3,"bytes_written":6,"start_line":2,"end_line":2}'
    )
    full = await ok(client, "insert_lines", {**A, "path": "notes.md", "line": -1, "text": "three", "snippet": True})
    assert full == {
        "path": "notes.md",
        "version": 4,
        "bytes_written": 12,
        "start_line": 3,
        "end_line": 3,
        "snippet": "2\t2\n3\tthree",
    }


EMPTY = {"entries": [], "total": 0, "last_entry_id": 0, "has_more": False}


async def test_read_log_of_a_log_never_written_is_an_empty_page(client: Client) -> None:
    assert await ok(client, "read_log", {**A, "path": "inbox"}) == EMPTY
    assert await ok(client, "read_log", {**A, "path": "inbox", "since_entry": 7}) == {**EMPTY, "last_entry_id": 7}
    assert await ok(client, "read_log", {**A, "path": "inbox", "tail": 3}) == EMPTY
    assert (await ok(client, "list_logs", A))["logs"] == []


async def test_read_log_of_a_deleted_log_is_an_empty_page(client: Client) -> None:
    await populate(client)
    await ok(client, "append_log", {**A, "path": "run.log", "entry": "second"})
    await ok(client, "delete_log", {**A, "path": "run.log"})
    assert await ok(client, "read_log", {**A, "path": "run.log"}) == EMPTY
    assert await ok(client, "read_log", {**A, "path": "run.log", "since_entry": 2}) == {**EMPTY, "last_entry_id": 2}
    assert (await ok(client, "list_logs", A))["logs"] == []
    appended = await ok(client, "append_log", {**A, "path": "run.log", "entry": "back"})
    page = await ok(client, "read_log", {**A, "path": "run.log", "since_entry": 2})
    assert [e["entry"] for e in page["entries"]] == ["back"] and page["last_entry_id"] == appended["entry_id"]
