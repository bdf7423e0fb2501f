"""Agents are namespaces: through MCP, one agent never sees or changes another's files and logs."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.mcp.helpers import ok, refused

pytestmark = pytest.mark.anyio


EMPTY_PAGE = {"entries": [], "total": 0, "last_entry_id": 0, "has_more": False}


async def test_agents_are_isolated(client: Client) -> None:
    await ok(client, "write_file", {"agent_id": "a", "path": "secret.md", "content": "for a only"})
    await ok(client, "append_log", {"agent_id": "a", "path": "diary", "entry": "private"})
    b = {"agent_id": "b"}
    assert await refused(client, "read_file", {**b, "path": "secret.md"}) == (
        "File not found: secret.md. Use list_files to see this agent's files."
    )
    assert await ok(client, "read_log", {**b, "path": "diary"}) == EMPTY_PAGE  # b's own diary: never written
    assert "File not found" in await refused(client, "summarize_file", {**b, "path": "secret.md"})
    assert await ok(client, "list_files", b) == {"files": [], "count": 0}
    assert await ok(client, "search_files", {**b, "query": "only"}) == {"matches": [], "count": 0, "has_more": False}
    assert await ok(client, "search_files", {**b, "query": "only", "exact": True}) == {
        "matches": [],
        "count": 0,
        "has_more": False,
        "files_searched": 0,
    }
    assert await ok(client, "delete_file", {**b, "path": "secret.md"}) == {
        "path": "secret.md",
        "deleted": False,
        "versions_removed": 0,
    }
    assert (await ok(client, "read_file", {"agent_id": "a", "path": "secret.md"}))["content"] == "for a only"
    assert (await ok(client, "write_file", {**b, "path": "secret.md", "content": "b's own"}))["version"] == 1
    assert (await ok(client, "read_file", {"agent_id": "a", "path": "secret.md"}))["content"] == "for a only"
    await ok(client, "delete_file", {**b, "path": "secret.md"})
    stats_b = await ok(client, "get_usage_stats", b)
    assert (stats_b["total_bytes"], stats_b["file_count"], stats_b["log_count"]) == (0, 0, 0)
