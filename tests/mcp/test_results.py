"""Each tool's result fields, exactly, as structured content and as compact JSON text."""

from __future__ import annotations

import pytest
from mcp import Client

from tests.mcp.helpers import assert_recent_ms, long_text, ok

pytestmark = pytest.mark.anyio

A = {"agent_id": "agent-a"}
TEN_LINES = "".join(f"l{n}\n" for n in range(1, 11))


async def test_write_file(client: Client) -> None:
    assert await ok(client, "write_file", {**A, "path": "notes/plan.md", "content": "ab€\n"}) == {
        "path": "notes/plan.md",
        "version": 1,
        "bytes_written": 6,
    }
    assert (await ok(client, "write_file", {**A, "path": "notes/plan.md", "content": "v2"}))["version"] == 2


async def test_read_file(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "a.txt", "content": "one\ntwo\n"})
    assert await ok(client, "read_file", {**A, "path": "a.txt"}) == {
        "path": "a.txt",
        "current_version": 1,
        "content": "one\ntwo\n",
    }


async def test_read_file_since_version_gives_a_diff(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "d.txt", "content": TEN_LINES})
    await ok(client, "write_file", {**A, "path": "d.txt", "content": TEN_LINES.replace("l9\n", "L9\n")})
    assert await ok(client, "read_file", {**A, "path": "d.txt", "since_version": 1}) == {
        "path": "d.txt",
        "current_version": 2,
        "since_version": 1,
        "version_too_old": False,
        "diff": [
            {"op": "skip", "count": 5},
            {"op": "equal", "lines": ["l6", "l7", "l8"]},
            {"op": "remove", "lines": ["l9"]},
            {"op": "add", "lines": ["L9"]},
            {"op": "equal", "lines": ["l10", ""]},
        ],
    }


async def test_read_file_since_the_current_version_is_unchanged(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "u.txt", "content": "same"})
    await ok(client, "write_file", {**A, "path": "u.txt", "content": "same again"})
    assert await ok(client, "read_file", {**A, "path": "u.txt", "since_version": 2}) == {
        "path": "u.txt",
        "current_version": 2,
        "since_version": 2,
        "version_too_old": False,
        "unchanged": True,
        "diff": [],
    }


async def test_append_log(client: Client) -> None:
    assert await ok(client, "append_log", {**A, "path": "log/run", "entry": "started"}) == {
        "path": "log/run",
        "entry_id": 1,
        "bytes_written": 7,
    }
    second = await ok(client, "append_log", {**A, "path": "log/run", "entry": "é"})
    assert second == {"path": "log/run", "entry_id": 2, "bytes_written": 2}


async def test_read_log(client: Client) -> None:
    for entry in ("first", "second", "third"):
        await ok(client, "append_log", {**A, "path": "log/run", "entry": entry})
    page = await ok(client, "read_log", {**A, "path": "log/run"})
    assert list(page) == ["entries", "total", "last_entry_id", "has_more"]
    assert [list(e) for e in page["entries"]] == [["id", "entry", "created_at"]] * 3
    assert [(e["id"], e["entry"]) for e in page["entries"]] == [(1, "first"), (2, "second"), (3, "third")]
    for entry in page["entries"]:
        assert_recent_ms(entry["created_at"])
    assert (page["total"], page["last_entry_id"], page["has_more"]) == (3, 3, False)

    after = await ok(client, "read_log", {**A, "path": "log/run", "since_entry": 2})
    assert [e["entry"] for e in after["entries"]] == ["third"]
    assert (after["total"], after["last_entry_id"], after["has_more"]) == (1, 3, False)
    paged = await ok(client, "read_log", {**A, "path": "log/run", "since_entry": 0, "limit": 2})
    assert (len(paged["entries"]), paged["total"], paged["last_entry_id"], paged["has_more"]) == (2, 3, 2, True)


async def test_list_files(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "b/two", "content": "22"})
    await ok(client, "write_file", {**A, "path": "a/one", "content": "1"})
    await ok(client, "write_file", {**A, "path": "a/one", "content": "111"})
    listing = await ok(client, "list_files", A)
    assert list(listing) == ["files", "count"]
    assert listing["count"] == 2
    files = listing["files"]
    assert [list(f) for f in files] == [["path", "current_version", "bytes", "created_at", "updated_at"]] * 2
    assert [(f["path"], f["current_version"], f["bytes"]) for f in files] == [("a/one", 2, 3), ("b/two", 1, 2)]
    for info in files:
        assert_recent_ms(info["created_at"])
        assert_recent_ms(info["updated_at"])
        assert info["updated_at"] >= info["created_at"]
    only_b = await ok(client, "list_files", {**A, "prefix": "b/"})
    assert (only_b["count"], [f["path"] for f in only_b["files"]]) == (1, ["b/two"])


async def test_delete_file(client: Client) -> None:
    for content in ("1", "2", "3"):
        await ok(client, "write_file", {**A, "path": "gone", "content": content})
    assert await ok(client, "delete_file", {**A, "path": "gone"}) == {
        "path": "gone",
        "deleted": True,
        "versions_removed": 3,
    }
    assert await ok(client, "delete_file", {**A, "path": "gone"}) == {
        "path": "gone",
        "deleted": False,
        "versions_removed": 0,
    }
    assert (await ok(client, "list_files", A))["count"] == 0


async def test_summarize_file(client: Client) -> None:
    text = long_text(9000)
    await ok(client, "write_file", {**A, "path": "long.md", "content": text})
    first = await ok(client, "summarize_file", {**A, "path": "long.md"})
    assert first == {
        "path": "long.md",
        "current_version": 1,
        "summary": "summary of long.md (9000 chars)",
        "cached": False,
        "estimated_tokens": 2250,
    }
    second = await ok(client, "summarize_file", {**A, "path": "long.md"})
    assert second == {**first, "cached": True}


async def test_get_usage_stats(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "f1", "content": "12345"})
    await ok(client, "write_file", {**A, "path": "f2", "content": "abc"})
    await ok(client, "append_log", {**A, "path": "log", "entry": "xy"})
    stats = await ok(client, "get_usage_stats", A)
    assert list(stats)[:6] == ["agent_id", "total_bytes", "file_count", "log_count", "total_operations", "bytes_saved"]
    assert stats["agent_id"] == "agent-a"
    assert stats["total_bytes"] == 10
    assert stats["file_count"] == 2
    assert stats["log_count"] == 1
    assert stats["total_operations"] == 4
    assert stats["bytes_saved"] == 0


async def test_bytes_saved_counts_a_diff_read(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "s", "content": "x" * 1000})
    await ok(client, "read_file", {**A, "path": "s", "since_version": 1})
    assert (await ok(client, "get_usage_stats", A))["bytes_saved"] == 1000
