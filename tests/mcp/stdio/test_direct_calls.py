"""Tool calls answered without the SDK's pipeline (scratchpad_mcp.stdio.direct_calls): which requests are taken,
and that a reply taken there is the line the SDK writes for the same call, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from scratchpad_mcp.stdio.asked import Asked
from scratchpad_mcp.stdio.direct_calls import DirectCalls
from tests.mcp.helpers import console_script, server_env
from tests.mcp.stdio_process import JsonRpcProcess

pytestmark = pytest.mark.anyio

# Text that puts the encoders to the test: quotes, backslashes, control characters, separators, astral characters.
TRICKY = 'a "quoted" \\ back\\slash\n\ttab\r\x01\x1f\x7f é ü 中文 \u2028\u2029 😀 </script>\n'
SDK = {"progressToken": "via-the-sdk"}  # a _meta the direct path leaves to the SDK; the reply does not change


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


WRITES = [
    call("write_file", agent_id="a", path="notes/tricky.md", content=TRICKY),
    call("write_file", agent_id="a", path="notes/tricky.md", content=TRICKY * 2),
    call("append_log", agent_id="a", path="logs/run", entry=TRICKY),
]
READS = [
    call("read_file", agent_id="a", path="notes/tricky.md"),
    call("read_file", agent_id="a", path="notes/tricky.md", start_line=2, max_lines=3),
    call("read_file", agent_id="a", path="notes/tricky.md", since_version=1),
    call("read_file", agent_id="a", path="missing.md"),
    call("read_file", agent_id="a", path="bad path"),
    call("list_files", agent_id="a"),
    call("list_files", agent_id="a", limit=1),
    call("list_versions", agent_id="a", path="notes/tricky.md"),
    call("read_log", agent_id="a", path="logs/run", since_entry=0),
    call("read_log", agent_id="a", path="logs/run", since_entry=0, show_by=True),
    call("list_logs", agent_id="a"),
    call("write_file", agent_id="a", path="notes/tricky.md", content="x", expected_version=1),  # a conflict
    call("read_file", agent_id="a"),  # a missing argument: the SDK's refusal, in our words
    call("read_file", agent_id="a", path="notes/tricky.md", colour="red"),  # an unknown argument
    call("no_such_tool", agent_id="a"),
]


@pytest.fixture
def process(tmp_path: Path) -> Any:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "direct.db"))
    with JsonRpcProcess([console_script()], env) as server:
        server.request(0, "initialize", JsonRpcProcess.INITIALIZE)
        server.notify("notifications/initialized")
        yield server


def same_call_by_the_sdk(params: dict[str, Any]) -> dict[str, Any]:
    return {**params, "_meta": SDK}


def test_a_reply_taken_directly_is_the_line_the_sdk_writes(process: JsonRpcProcess) -> None:
    for n, params in enumerate(WRITES, start=1):
        assert "structuredContent" in process.request(n, "tools/call", params)["result"], params
    for n, params in enumerate(READS, start=10):
        direct = process.reply_line(n, "tools/call", params)
        by_sdk = process.reply_line(n, "tools/call", same_call_by_the_sdk(params))
        assert direct == by_sdk, params
    assert process.reply_line("p", "ping", None) == process.reply_line("p", "ping", {"_meta": SDK})


def test_a_write_taken_directly_replies_as_the_sdk_does(process: JsonRpcProcess) -> None:
    """Writes change what they reply (a version further on), so the two paths write two files alike."""
    replies: list[dict[str, Any]] = []
    for path, meta in (("one.md", {}), ("two.md", {"_meta": SDK})):
        for content in (TRICKY, TRICKY + "more"):
            params = {**call("write_file", agent_id="a", path=path, content=content), **meta}
            line = process.reply_line(len(replies), "tools/call", params)
            replies.append(json.loads(line.replace(path, "P")) | {"id": None})
    assert replies[0] == replies[2] and replies[1] == replies[3]
    assert replies[1]["result"]["structuredContent"]["version"] == 2


@pytest.fixture
def direct(store: Scratchpad) -> DirectCalls:
    return DirectCalls(build_server(store, CallRunner(TrustedCaller())).direct_tools)


async def test_the_plainest_calls_are_taken(direct: DirectCalls, store: Scratchpad) -> None:
    reply = await direct.answer(7, "tools/call", call("write_file", agent_id="a", path="n.md", content="hi"))
    assert reply is not None and json.loads(reply)["result"]["structuredContent"]["version"] == 1
    assert store.read_file("a", "n.md").content == "hi"
    assert await direct.answer(8, "ping", None) == b'{"jsonrpc":"2.0","id":8,"result":{}}'
    assert await direct.answer("x", "tools/call", {"name": "get_usage_stats", "arguments": {"agent_id": "a"}})


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/call", {**call("write_file", agent_id="a", path="n.md", content="hi"), "_meta": {}}),
        ("tools/call", call("write_file", agent_id="a", path="n.md", content="hi", colour="red")),
        ("tools/call", call("write_file", agent_id="a", path="n.md", content=7)),
        ("tools/call", call("write_file", agent_id="a", path="n.md")),
        ("tools/call", call("search_files", agent_id="a", query="hi")),  # a slow tool: on a worker thread
        ("tools/call", call("no_such_tool", agent_id="a")),
        ("tools/call", {"name": ["write_file"], "arguments": {}}),
        ("tools/call", {"name": "write_file", "arguments": ["a", "n.md", "hi"]}),
        ("tools/call", None),
        ("tools/list", None),
        ("ping", {"_meta": {"progressToken": 1}}),
    ],
)
async def test_anything_else_is_left_to_the_sdk_and_runs_nothing(
    direct: DirectCalls, store: Scratchpad, method: str, params: dict[str, Any] | None
) -> None:
    assert await direct.answer(1, method, params) is None
    assert store.get_usage_stats("a").total_operations == 1  # this look only: nothing ran before it


def handshake(version: str) -> Asked:
    import mcp_types

    asked = Asked()
    params = {**JsonRpcProcess.INITIALIZE, "protocolVersion": version}
    asked.received(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=0, method="initialize", params=params))
    asked.answered(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=0, result={"protocolVersion": version}))
    return asked


def test_only_a_2025_handshake_lets_calls_be_taken_directly() -> None:
    assert handshake("2025-11-25").legacy and handshake("2025-06-18").legacy
    assert not handshake("2026-07-28").legacy
    assert not Asked().legacy  # before any handshake (a 2026-07-28 client sends none)


def test_calls_run_in_the_order_sent_whichever_path_they_take(process: JsonRpcProcess) -> None:
    """A call the SDK runs, then plain ones sent before its reply: they wait for it, as they did before."""
    first = {**call("write_file", agent_id="o", path="p.md", content="first"), "_meta": SDK}
    lines = [
        {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": first},
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "tools/call",
            "params": call("write_file", agent_id="o", path="p.md", content="second"),
        },
        {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": call("read_file", agent_id="o", path="p.md")},
    ]
    for line in lines:
        process.send(line)
    replies = {}
    for _ in lines:
        reply = json.loads(process.next_line())
        replies[reply["id"]] = reply["result"]["structuredContent"]
    assert replies[10]["version"] == 1 and replies[11]["version"] == 2
    assert replies[12]["content"] == "second"


def test_a_cancelled_request_holds_no_call_back() -> None:
    import mcp_types

    asked = handshake("2025-11-25")
    asked.received(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=4, method="tools/call", params={"name": "search_files"}))
    assert not asked.direct_ok()  # a call after it waits for it
    asked.received(
        mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 4})
    )
    assert asked.direct_ok()


def test_requests_a_warm_start_answered_hold_no_call_back() -> None:
    """A warm start answered the handshake and the listing: both are still with the SDK (its replies to them are
    dropped), yet a call sent after them is taken directly, as after the server's own handshake; a request the
    SDK is really running still holds it back."""
    import mcp_types

    early = [(0, "initialize", {"protocolVersion": "2025-11-25"}), (1, "tools/list", {"tools": []})]
    asked = Asked(early)
    for request_id, method, _ in early:
        asked.received(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params={}))
    assert asked.initialized and asked.legacy and asked.direct_ok()
    asked.received(mcp_types.JSONRPCRequest(jsonrpc="2.0", id=2, method="tools/call", params={"name": "search_files"}))
    assert not asked.direct_ok()
    assert not Asked([(0, "initialize", {"protocolVersion": "2026-07-28"})]).legacy
    assert not Asked([(0, "server/discover", {"supportedVersions": ["2026-07-28"]})]).direct_ok()
