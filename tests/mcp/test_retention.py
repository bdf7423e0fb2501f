"""read_log over MCP when retention dropped entries before the page: the reply names the oldest kept entry
(first_entry_id), a reader behind gets the oldest kept entries, and no tool was added for retention; expired
files count nowhere (get_usage_stats and the quotas count what list_files shows)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from mcp import Client

from scratchpad_adapters.factory import open_backend
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.mcp.conftest import serve
from tests.mcp.helpers import ok, refused

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}


async def test_read_log_says_where_the_kept_entries_start(client: Client, store: Scratchpad) -> None:
    store.set_retention("a", logs="runs/", keep_entries=2)
    for entry in ("one", "two", "three", "four"):
        await ok(client, "append_log", {**A, "path": "runs/x", "entry": entry})
    behind = await ok(client, "read_log", {**A, "path": "runs/x", "since_entry": 1})
    assert list(behind) == ["entries", "total", "last_entry_id", "has_more", "first_entry_id"]
    assert [(e["id"], e["entry"]) for e in behind["entries"]] == [(3, "three"), (4, "four")]
    assert (behind["total"], behind["last_entry_id"], behind["first_entry_id"]) == (2, 4, 3)
    caught_up = await ok(client, "read_log", {**A, "path": "runs/x", "since_entry": 2})
    assert "first_entry_id" not in caught_up and [e["id"] for e in caught_up["entries"]] == [3, 4]
    usage = await ok(client, "get_usage_stats", A)
    assert usage["log_count"] == 2
    names = {tool.name for tool in (await client.list_tools()).tools}
    assert not any("retention" in name or "prune" in name for name in names)


async def test_no_tool_gives_back_a_redacted_text(client: Client, store: Scratchpad) -> None:
    secret = "sk-live-c0ffee1234"
    await ok(client, "write_file", {**A, "path": "n.md", "content": f"key {secret}\n"})
    await ok(client, "edit_file", {**A, "path": "n.md", "old_str": "key", "new_str": "api key"})
    await ok(client, "append_log", {**A, "path": "run", "entry": f"saw {secret}"})
    store.redact_text("a", "n.md", secret, by="ops")
    store.redact_entry("a", "run", 1, by="ops")
    replies = [
        await ok(client, "read_file", {**A, "path": "n.md"}),
        await ok(client, "read_file", {**A, "path": "n.md", "version": 1}),
        await ok(client, "read_file", {**A, "path": "n.md", "since_version": 1, "format": "unified"}),
        await ok(client, "list_versions", {**A, "path": "n.md"}),
        await ok(client, "search_files", {**A, "query": "c0ffee1234"}),
        await ok(client, "search_files", {**A, "query": secret, "exact": True}),
        await ok(client, "read_log", {**A, "path": "run"}),
    ]
    assert [secret in str(reply) for reply in replies] == [False] * len(replies)
    assert replies[0]["current_version"] == 3 and "[redacted " in replies[1]["content"]


async def test_expired_files_count_nowhere(make_store: StoreFactory, tmp_path: Path) -> None:
    limits = Limits(quota_files=2)
    store = make_store(limits=limits)
    backend = open_backend(f"sqlite:///{tmp_path}/x.db")
    try:
        earlier = time.time_ns() // 1_000_000 - 7_200_000  # two hours ago
        past = Scratchpad(backend.unit_of_work, limits, clock=lambda: earlier)
        past.write_file("a", "tmp/old.md", "old scratch\n")
        past.write_file("a", "notes.md", "kept\n")
    finally:
        backend.close()
    store.set_retention("a", files="tmp/", max_age="1h")
    async with Client(serve(store)) as client:
        assert [f["path"] for f in (await ok(client, "list_files", A))["files"]] == ["notes.md"]
        usage = await ok(client, "get_usage_stats", A)
        assert (usage["file_count"], usage["total_bytes"]) == (1, 5)
        await ok(client, "write_file", {**A, "path": "new.md", "content": "x\n"})  # at 2 of 2 before: room made
        message = await refused(client, "write_file", {**A, "path": "third.md", "content": "y\n"})
        assert "already has 2 of 2 files" in message and "tmp/old.md" not in message
        assert (await ok(client, "get_usage_stats", A))["file_count"] == 2
