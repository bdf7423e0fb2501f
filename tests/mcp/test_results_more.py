"""Result fields of the newer tools: edits, versions, restore, search, log listing, pruned versions."""

from __future__ import annotations

import hashlib

import pytest
from mcp import Client

from scratchpad_core.limits import Limits
from tests.conftest import StoreFactory
from tests.mcp.conftest import serve
from tests.mcp.helpers import assert_recent_ms, ok

pytestmark = pytest.mark.anyio

A = {"agent_id": "agent-a"}


async def test_edit_insert_versions_restore(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "e", "content": "alpha\nbeta\n"})
    edit = await ok(client, "edit_file", {**A, "path": "e", "old_str": "beta", "new_str": "gamma"})
    assert (edit["path"], edit["version"], edit["bytes_written"]) == ("e", 2, 12)
    insert = await ok(client, "insert_lines", {**A, "path": "e", "line": 0, "text": "top"})
    assert (insert["version"], insert["bytes_written"]) == (3, 16)
    assert (await ok(client, "read_file", {**A, "path": "e"}))["content"] == "top\nalpha\ngamma\n"
    versions = await ok(client, "list_versions", {**A, "path": "e"})
    assert (versions["current_version"], [v["version"] for v in versions["versions"]]) == (3, [1, 2, 3])
    first = versions["versions"][0]
    assert list(first) == ["version", "bytes", "lines", "sha256", "created_at", "by"]
    assert first["by"] == "stdio"  # the in-process server's trusted caller records the transport
    assert (first["bytes"], first["lines"]) == (11, 2)
    assert first["sha256"] == hashlib.sha256(b"alpha\nbeta\n").hexdigest()
    assert_recent_ms(first["created_at"])
    assert await ok(client, "restore_version", {**A, "path": "e", "version": 1}) == {
        "path": "e",
        "version": 4,
        "bytes_written": 11,
    }
    assert (await ok(client, "read_file", {**A, "path": "e"}))["content"] == "alpha\nbeta\n"


async def test_search_list_and_delete_logs(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "s1", "content": "one needle\nnothing\n"})
    found = await ok(client, "search_files", {**A, "query": "NEEDLE", "exact": True})
    assert found == {
        "matches": [{"path": "s1", "line": 1, "text": "one needle"}],
        "count": 1,
        "has_more": False,
        "files_searched": 1,
    }
    await ok(client, "append_log", {**A, "path": "needles", "entry": "two needles"})
    found = await ok(client, "search_files", {**A, "query": "needles?"})  # words: a passage, an entry
    assert found == {
        "matches": [
            {"path": "needles", "entry": 1, "text": "two needles"},
            {"path": "s1", "line": 1, "end_line": 2, "text": "one needle\nnothing"},
        ],
        "count": 2,
        "has_more": False,
    }
    await ok(client, "delete_log", {**A, "path": "needles"})
    await ok(client, "append_log", {**A, "path": "lg", "entry": "abc"})
    logs = await ok(client, "list_logs", A)
    assert logs["count"] == 1
    info = logs["logs"][0]
    assert list(info) == ["path", "entries", "bytes", "last_entry_id", "updated_at"]
    assert (info["path"], info["entries"], info["bytes"], info["last_entry_id"]) == ("lg", 1, 3, 1)
    assert_recent_ms(info["updated_at"])
    assert await ok(client, "delete_log", {**A, "path": "lg"}) == {
        "path": "lg",
        "deleted": True,
        "entries_removed": 1,
        "bytes_freed": 3,
    }


async def test_read_file_since_a_pruned_version(make_store: StoreFactory) -> None:
    async with Client(serve(make_store(Limits(max_versions=2)))) as client:
        for content in ("v1", "v2", "v3"):
            await ok(client, "write_file", {**A, "path": "p", "content": content})
        assert await ok(client, "read_file", {**A, "path": "p", "since_version": 1}) == {
            "path": "p",
            "current_version": 3,
            "content": "v3",
            "since_version": 1,
            "version_too_old": True,
        }
        versions = await ok(client, "list_versions", {**A, "path": "p"})
        assert [v["version"] for v in versions["versions"]] == [2, 3]
