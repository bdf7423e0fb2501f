"""Tool calls over streamable HTTP answered without the SDK's transport (scratchpad_mcp.http.direct): a reply taken
there is the body the SDK sends for the same call; a key still binds its caller to its agent and read-only keys
still only read; a request the SDK would refuse (a foreign Host, no JSON in Accept) is refused as before."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.deploy.conftest import Key, create_keys
from tests.mcp.stdio.test_direct_calls import READS, SDK, TRICKY, WRITES
from tests.servers import Server, running

pytestmark = pytest.mark.slow

HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Key, Key]]:
    folder = tmp_path_factory.mktemp("http-direct")
    database = f"sqlite:///{folder / 'direct.db'}"
    writer, reader = create_keys(database, "a", ("a", True))
    with running(folder, {"keys": {"SCRATCHPAD_DATABASE_URL": database}}) as servers:
        yield servers["keys"], writer, reader


def post(server: Server, key: Key, request_id: Any, method: str, params: Any, **headers: str) -> httpx2.Response:
    body = {"jsonrpc": "2.0", "id": request_id, "method": method, **({} if params is None else {"params": params})}
    return httpx2.post(server.mcp_url, json=body, headers={**HEADERS, **key.headers, **headers}, timeout=30)


def test_a_reply_taken_directly_is_the_body_the_sdk_sends(keyed: tuple[Server, Key, Key]) -> None:
    server, writer, _ = keyed
    for n, params in enumerate(WRITES, start=1):
        assert "structuredContent" in post(server, writer, n, "tools/call", params).json()["result"], params
    for n, params in enumerate(READS, start=10):
        direct = post(server, writer, n, "tools/call", params)
        by_sdk = post(server, writer, n, "tools/call", {**params, "_meta": SDK})
        assert (direct.status_code, direct.content) == (by_sdk.status_code, by_sdk.content), params
        assert direct.headers["content-type"] == by_sdk.headers["content-type"] == "application/json"
    assert TRICKY in post(server, writer, 99, "tools/call", READS[0]).json()["result"]["structuredContent"]["content"]


def test_keys_bind_their_callers_as_before(keyed: tuple[Server, Key, Key]) -> None:
    server, writer, reader = keyed
    other = {"name": "read_file", "arguments": {"agent_id": "b", "path": "x.md"}}
    write = {"name": "write_file", "arguments": {"agent_id": "a", "path": "ro.md", "content": "no"}}
    for key, params in ((writer, other), (reader, write)):
        direct = post(server, key, 1, "tools/call", params)
        by_sdk = post(server, key, 1, "tools/call", {**params, "_meta": SDK})
        assert direct.content == by_sdk.content and direct.json()["result"]["isError"] is True, direct.text
    no_key = httpx2.post(server.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers=HEADERS)
    assert no_key.status_code == 401


def test_what_the_sdk_refuses_is_refused_as_before(keyed: tuple[Server, Key, Key], tmp_path: Path) -> None:
    server, writer, _ = keyed
    params = READS[0]
    foreign = post(server, writer, 1, "tools/call", params, Host="evil.example")
    assert foreign.status_code == 421 or foreign.status_code == 400, foreign.text
    assert post(server, writer, 1, "tools/call", {**params, "_meta": SDK}, Host="evil.example").content == (
        foreign.content
    )
    no_json = post(server, writer, 2, "tools/call", params, Accept="text/event-stream")
    assert no_json.status_code == 406, no_json.text
    old = post(server, writer, 3, "tools/call", params, **{"MCP-Protocol-Version": "1999-01-01"})
    assert old.status_code == 400, old.text


def test_headers_the_sdk_reads_its_own_way_are_left_to_it(keyed: tuple[Server, Key, Key]) -> None:
    """A repeated MCP-Protocol-Version (the SDK refuses it) and a Content-Type in capitals (the SDK compares it as
    written) are answered as the SDK answers them, whichever path the call would take."""
    server, writer, _ = keyed
    params = READS[0]
    for headers in (
        [("MCP-Protocol-Version", "1999-01-01"), ("MCP-Protocol-Version", "2025-06-18")],
        [("Content-Type", "Application/JSON")],
    ):
        replies = []
        for sent in (params, {**params, "_meta": SDK}):
            names = {name.lower() for name, _ in headers}
            base = [(k, v) for k, v in {**HEADERS, **writer.headers}.items() if k.lower() not in names]
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": sent}
            content = json.dumps(body).encode()
            reply = httpx2.post(server.mcp_url, content=content, headers=[*base, *headers], timeout=30)
            replies.append((reply.status_code, reply.content))
        assert replies[0] == replies[1] and replies[0][0] >= 400, (headers, replies)
