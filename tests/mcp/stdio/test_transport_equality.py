"""Our stdio transport sends exactly the bytes the SDK's own stdio transport (stdio_server()) sends: the same server
(tests/mcp/stdio/transport_server.py) under each, given the same requests one at a time on both protocol revisions,
writes the same lines, byte for byte (notifications sent while a request runs, results, errors, text that JSON
encoders disagree on: non-ASCII, U+2028, "</script>", astral characters)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.helpers import server_env
from tests.mcp.stdio_process import JsonRpcProcess

ROOT = Path(__file__).resolve().parents[3]
TRICKY = 'h\u00e9 \u2028 </script> \U0001f600 "quoted" \\ back\tslash \x7f'
MODERN = {  # the 2026-07-28 envelope every request carries in its _meta
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def request(number: int | str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": number, "method": method, **({} if params is None else {"params": params})}


def call(number: int | str, tool: str, meta: dict[str, Any], **arguments: Any) -> dict[str, Any]:
    return request(number, "tools/call", {"name": tool, "arguments": arguments, "_meta": meta})


LEGACY_SESSION = [
    request(1, "initialize", JsonRpcProcess.INITIALIZE),
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    request(2, "tools/list"),
    call(3, "echo", {"progressToken": "p-1"}, text=TRICKY),
    call("four", "echo", {}, text=""),
    call(5, "echo", {}, text=7),  # arguments the tool's own check refuses: a tool error
    call(6, "no_such_tool", {}),
    request(7, "ping"),
    request(8, "resources/list"),
    request(9, "no/such/method"),
]
MODERN_SESSION = [
    request(1, "server/discover", {"_meta": MODERN}),
    request(2, "tools/list", {"_meta": MODERN}),
    call(3, "echo", {**MODERN, "progressToken": 7}, text=TRICKY),
    call(4, "no_such_tool", MODERN),
    request(5, "no/such/method", {"_meta": MODERN}),
]


def transcript(which: str, session: list[dict[str, Any]]) -> list[str]:
    """What the server writes for each message, sent one at a time (each request's answer awaited)."""
    command = [sys.executable, "-m", "tests.mcp.stdio.transport_server", which]
    lines: list[str] = []
    with JsonRpcProcess(command, {**server_env(), "PYTHONPATH": str(ROOT)}) as server:
        for message in session:
            server.send(message)
            while "id" in message:
                lines.append(server.next_line())
                if json.loads(lines[-1]).get("id") == message["id"]:
                    break
        stdout, _ = server.finish()
    assert stdout == "".join(lines)  # nothing after the last answer
    return lines


@pytest.mark.parametrize("session", [LEGACY_SESSION, MODERN_SESSION], ids=["2025-11-25", "2026-07-28"])
def test_our_transport_writes_what_the_sdks_writes(session: list[dict[str, Any]]) -> None:
    ours = transcript(str(1 << 20), session)
    sdks = transcript("sdk", session)
    assert len(ours) > len([m for m in session if "id" in m])  # progress notifications came too
    assert ours == sdks
