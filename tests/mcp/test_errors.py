"""Refused calls: is_error with a message naming the rule, nothing internal, nothing changed, server still up."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from scratchpad_core.limits import MIB, Limits
from scratchpad_mcp.server.calls import INTERNAL_ERROR
from tests.conftest import StoreFactory
from tests.mcp.conftest import serve
from tests.mcp.helpers import long_text, ok, refused

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}


class ExplodingSummarizer:
    model = "exploding"

    def summarize(self, path: str, content: str) -> str:
        raise RuntimeError("secret /work/path")


async def usage(client: Client) -> dict[str, Any]:
    return await ok(client, "get_usage_stats", A)


async def assert_refused_changes_nothing(client: Client, tool: str, args: dict[str, Any], rule: str) -> str:
    """The call fails naming `rule`; stats are as before (but for the stats call itself); a valid call follows."""
    before = await usage(client)
    files_before = await ok(client, "list_files", A)
    message = await refused(client, tool, args)
    assert rule in message, message
    after = await usage(client)
    # get_usage_stats and list_files each count one operation; the refused call counts none.
    assert after == {**before, "total_operations": before["total_operations"] + 2}
    assert await ok(client, "list_files", A) == files_before
    assert (await ok(client, "append_log", {**A, "path": "after-error", "entry": "ok"}))["bytes_written"] == 2
    return message


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("../x", "'..' sequences are not allowed"),
        ("/abs", "a leading '/' is not allowed"),
        ("a b", "only the characters [a-zA-Z0-9/_.-] are allowed"),
        ("", "Invalid path: it must be a non-empty string"),
        ("p" * 256, "at most 255 characters"),
    ],
)
async def test_bad_paths(client: Client, path: str, rule: str) -> None:
    await ok(client, "write_file", {**A, "path": "keep", "content": "k"})
    await assert_refused_changes_nothing(client, "write_file", {**A, "path": path, "content": "x"}, rule)
    assert rule in await refused(client, "read_file", {**A, "path": path})
    assert rule in await refused(client, "append_log", {**A, "path": path, "entry": "e"})


@pytest.mark.parametrize(
    ("agent_id", "rule"),
    [
        ("a b", "Invalid agent_id: only the characters [a-zA-Z0-9_-] are allowed"),
        ("a/b", "Invalid agent_id: only the characters [a-zA-Z0-9_-] are allowed"),
        ("", "Invalid agent_id: it must be a non-empty string"),
        ("x" * 129, "Invalid agent_id: at most 128 characters"),
    ],
)
async def test_bad_agent_ids(client: Client, agent_id: str, rule: str) -> None:
    args = {"agent_id": agent_id, "path": "p", "content": "x"}
    await assert_refused_changes_nothing(client, "write_file", args, rule)
    assert rule in await refused(client, "get_usage_stats", {"agent_id": agent_id})


async def test_too_large_content_default_limit(client: Client) -> None:
    content = "x" * (MIB + 1)
    message = await assert_refused_changes_nothing(
        client, "write_file", {**A, "path": "big", "content": content}, "Content too large"
    )
    assert "1,048,577 bytes" in message
    assert "1,048,576-byte limit" in message


async def test_too_large_content_and_log_entry_with_small_limits(make_store: StoreFactory) -> None:
    async with Client(serve(make_store(Limits(max_file_bytes=10, max_log_entry_bytes=4)))) as client:
        assert (await ok(client, "write_file", {**A, "path": "f", "content": "x" * 10}))["bytes_written"] == 10
        message = await assert_refused_changes_nothing(
            client, "write_file", {**A, "path": "f", "content": "x" * 11}, "Content too large"
        )
        assert "11 bytes (UTF-8) exceeds the 10-byte limit" in message
        await assert_refused_changes_nothing(
            client, "append_log", {**A, "path": "l", "entry": "12345"}, "Log entry too large"
        )


async def test_missing_file_and_log(client: Client) -> None:
    await assert_refused_changes_nothing(client, "read_file", {**A, "path": "nope"}, "File not found: nope")
    assert "File not found: nope" in await refused(client, "summarize_file", {**A, "path": "nope"})
    assert "File not found: nope" in await refused(client, "list_versions", {**A, "path": "nope"})


async def test_summary_of_a_short_file(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "short", "content": long_text(8000)})
    message = await assert_refused_changes_nothing(
        client, "summarize_file", {**A, "path": "short"}, "summaries are for files over 8,000 characters"
    )
    assert message.startswith("short has only 8,000 characters (~2,000 tokens)")
    await ok(client, "write_file", {**A, "path": "short", "content": long_text(8001)})
    assert (await ok(client, "summarize_file", {**A, "path": "short"}))["cached"] is False


@pytest.mark.parametrize("since", [0, 3, -1])
async def test_since_version_out_of_range(client: Client, since: int) -> None:
    await ok(client, "write_file", {**A, "path": "v", "content": "1"})
    await ok(client, "write_file", {**A, "path": "v", "content": "2"})
    message = await refused(client, "read_file", {**A, "path": "v", "since_version": since})
    assert message == f"Invalid since_version {since}: v is at version 2; use a version from 1 to 2."
    assert (await ok(client, "read_file", {**A, "path": "v"}))["content"] == "2"


async def test_file_quota(make_store: StoreFactory) -> None:
    async with Client(serve(make_store(Limits(quota_files=1)))) as client:
        await ok(client, "write_file", {**A, "path": "one", "content": "1"})
        before = await usage(client)
        message = await refused(client, "write_file", {**A, "path": "two", "content": "2"})
        assert message.startswith("Agent a's file quota exceeded: a already has 1 of 1 files.")
        assert await usage(client) == {**before, "total_operations": before["total_operations"] + 1}
        assert [f["path"] for f in (await ok(client, "list_files", A))["files"]] == ["one"]
        assert (await ok(client, "write_file", {**A, "path": "one", "content": "11"}))["version"] == 2


async def test_byte_and_log_entry_quotas(make_store: StoreFactory) -> None:
    async with Client(serve(make_store(Limits(quota_bytes=10, quota_log_entries=1)))) as client:
        await ok(client, "write_file", {**A, "path": "f", "content": "x" * 8})
        message = await refused(client, "write_file", {**A, "path": "g", "content": "yyy"})
        assert message.startswith(
            "Agent a's storage quota exceeded: this call needs 3 more bytes, but a stores 8 of 10"
        )
        await ok(client, "append_log", {**A, "path": "l", "entry": "e"})
        message = await refused(client, "append_log", {**A, "path": "l", "entry": "e"})
        assert message.startswith("Agent a's log entry quota exceeded: a already has 1 of 1 log entries.")
        stats = await usage(client)
        assert (stats["total_bytes"], stats["file_count"], stats["log_count"]) == (9, 1, 1)


@pytest.mark.parametrize(
    ("tool", "args", "rule"),
    [
        ("read_file", {**A, "path": "p", "since_version": "zz"}, "since_version: Input should be a valid integer"),
        ("write_file", {**A, "path": "p", "content": 123}, "content: Input should be a valid string"),
        ("write_file", {**A, "path": "p"}, "content: Field required"),
        ("write_file", {"path": "p", "content": "x"}, "agent_id: Field required"),
        ("read_file", A, "path: Field required"),
        ("get_usage_stats", {}, "agent_id: Field required"),
        ("append_log", {**A, "path": "p", "entry": ["x"]}, "entry: Input should be a valid string"),
        ("read_log", {**A, "path": "p", "since_entry": 1.5}, "since_entry: Input should be a valid integer"),
    ],
)
async def test_wrong_argument_types(client: Client, tool: str, args: dict[str, Any], rule: str) -> None:
    await ok(client, "write_file", {**A, "path": "p", "content": "kept"})
    message = await assert_refused_changes_nothing(client, tool, args, rule)
    assert message.startswith(f"Invalid arguments for {tool}: ")
    assert message.endswith("Nothing was run; fix the arguments and retry.")
    assert "pydantic" not in message and "\n" not in message
    assert (await ok(client, "read_file", {**A, "path": "p"}))["content"] == "kept"


async def test_errors_over_legacy_json_rpc(make_store: StoreFactory) -> None:
    async with Client(serve(make_store()), mode="legacy") as client:
        assert "'..' sequences" in await refused(client, "write_file", {**A, "path": "../x", "content": "x"})
        assert "Input should be a valid integer" in await refused(
            client, "read_file", {**A, "path": "p", "since_version": "zz"}
        )
        assert (await ok(client, "write_file", {**A, "path": "p", "content": "x"}))["version"] == 1


async def test_unexpected_exception_gives_a_generic_error(
    make_store: StoreFactory, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(serve(make_store(summarizer=ExplodingSummarizer()))) as client:
        await ok(client, "write_file", {**A, "path": "long", "content": long_text(8001)})
        message = await refused(client, "summarize_file", {**A, "path": "long"})
        assert message == INTERNAL_ERROR
        assert "secret" not in message
        assert "RuntimeError" not in message
        # The details stay in the server's log, and the server goes on serving.
        assert "secret /work/path" in caplog.text
        assert (await ok(client, "read_file", {**A, "path": "long"}))["current_version"] == 1


async def test_unknown_tool(client: Client) -> None:
    """An unknown tool is a protocol error (-32602) naming it and the valid tools, not a tool result (issue 25)."""
    with pytest.raises(MCPError) as caught:
        await client.call_tool("rm_rf", A)
    assert caught.value.error.code == INVALID_PARAMS
    message = caught.value.error.message
    assert message.startswith("Unknown tool: 'rm_rf'; valid: write_file, read_file, edit_file, ")
    assert message.endswith("get_usage_stats. Nothing was run; call one of these.")
    assert (await ok(client, "get_usage_stats", A))["agent_id"] == "a"
    with pytest.raises(MCPError) as long_name:
        await client.call_tool("x" * 5000, A)
    assert len(long_name.value.error.message) < 600 and "(5,000 characters)" in long_name.value.error.message
