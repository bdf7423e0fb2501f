"""read_changes as a tool (issue 31), through a real MCP client: one call catches a reader up on what the
others wrote, and the cursor it returns continues from there."""

from __future__ import annotations

import pytest
from mcp import Client

from scratchpad_core.hunks import apply_hunks
from tests.mcp.helpers import ok, refused

pytestmark = pytest.mark.anyio

A = {"agent_id": "team"}


async def test_one_call_catches_up_and_the_cursor_goes_on(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "plan.md", "content": "1. design\n2. build\n"})
    await ok(client, "append_log", {**A, "path": "findings", "entry": "slow query"})
    first = await ok(client, "read_changes", A)
    assert first["items"] == [
        {"path": "plan.md", "created": True, "version": 1, "content": "1. design\n2. build\n"},
        {"log": "findings", "entries": [{"id": 1, "entry": "slow query", "by": "stdio"}]},
    ]
    assert "has_more" not in first  # only when max_bytes cut the page
    await ok(client, "edit_file", {**A, "path": "plan.md", "old_str": "build", "new_str": "ship"})
    await ok(client, "append_log", {**A, "path": "findings", "entry": "fixed"})
    second = await ok(client, "read_changes", {**A, "since": first["cursor"]})
    plan, log = second["items"]
    assert (plan["from_version"], plan["to_version"]) == (1, 2)
    assert apply_hunks("1. design\n2. build\n", plan["diff"]) == "1. design\n2. ship\n"
    assert log == {"log": "findings", "entries": [{"id": 2, "entry": "fixed", "by": "stdio"}]}
    third = await ok(client, "read_changes", {**A, "since": second["cursor"]})
    assert third["items"] == []


async def test_pages_by_max_bytes(client: Client) -> None:
    for n in range(5):
        await ok(client, "write_file", {**A, "path": f"n{n}.md", "content": "x" * 100})
    reply = await ok(client, "read_changes", {**A, "max_bytes": 150})
    assert reply["has_more"] is True and len(reply["items"]) == 1
    paths = [reply["items"][0]["path"]]
    while reply.get("has_more"):
        reply = await ok(client, "read_changes", {**A, "since": reply["cursor"], "max_bytes": 150})
        paths += [item["path"] for item in reply["items"]]
    assert paths == [f"n{n}.md" for n in range(5)]


async def test_a_bad_cursor_is_refused_in_one_line(client: Client) -> None:
    message = await refused(client, "read_changes", {**A, "since": "not-a-cursor"})
    assert message == (
        "Invalid since: pass the cursor a read_changes reply gave, unchanged (or omit it for a first sync)."
    )
