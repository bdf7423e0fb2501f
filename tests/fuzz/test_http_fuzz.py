"""Streamable HTTP under hostile input, on the app in process: generated tool calls and malformed JSON-RPC bodies,
bad content types, oversized and slow bodies. Each gets a JSON-RPC answer in our own words (no SDK parser or
pydantic text), with the request's id when it had one, and a refused call commits nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from starlette.applications import Starlette
from starlette.types import Message

from bench.fuzz import (
    Commits,
    assert_call_answer,
    assert_error_reply,
    assert_http_answer,
    call_message,
    calls,
    compact,
    raw_messages,
)
from scratchpad_adapters import open_backend
from scratchpad_mcp.app import http_app
from scratchpad_mcp.http import body as http_body
from scratchpad_mcp.http.app import max_body_bytes
from scratchpad_mcp.settings import Settings
from tests.conftest import FakeSummarizer

pytestmark = pytest.mark.anyio

SEED = 20261202
CALLS = 1_200
RAW = 800
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
READ = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "read_file", "arguments": {}}}


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[httpx2.AsyncClient, Starlette, Path, Settings]]:
    db = tmp_path / "http.db"
    env = {"MCP_TRANSPORT": "http", "SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(db)}
    settings = Settings.from_env({**env, "SCRATCHPAD_MAX_FILE_BYTES": "65536"})
    backend = open_backend(settings.database_url, limits=settings.limits, summarizer=FakeSummarizer())
    app = http_app(settings, backend)
    try:
        async with app.router.lifespan_context(app):
            transport = httpx2.ASGITransport(app=app)
            async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
                yield client, app, db, settings
    finally:
        backend.close()


def replies(response: httpx2.Response) -> list[dict[str, Any]]:
    body = response.json()
    return body if isinstance(body, list) else [body]


async def test_generated_calls_and_raw_bodies(served: tuple[httpx2.AsyncClient, Starlette, Path, Settings]) -> None:
    client, _, db, settings = served
    listed = await client.post("/mcp", content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}', headers=HEADERS)
    schemas = {tool["name"]: tool["inputSchema"] for tool in listed.json()["result"]["tools"]}
    commits = Commits(db)
    try:
        for n, generated in enumerate(calls(schemas, SEED, CALLS)):
            before = commits.version()
            with anyio.fail_after(20):
                response = await client.post("/mcp", content=call_message(n, generated), headers=HEADERS)
            (reply,) = replies(response)
            assert_call_answer(reply, n, generated, commits, before)

        for raw in raw_messages(SEED, RAW, line_bound=max_body_bytes(settings)):
            before = commits.version()
            with anyio.fail_after(20):
                response = await client.post("/mcp", content=raw.data, headers=HEADERS)
            if not raw.answer_ids and response.status_code == 202:
                continue  # a notification the SDK takes (and answers with 202 Accepted, as the spec says)
            assert_http_answer(response.status_code, response.json(), raw, commits, before)
    finally:
        commits.close()


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("text/plain", 415),
        ("", 415),
        ("application/x-www-form-urlencoded", 415),
        ("application/json; charset=utf-8", 200),
    ],
)
async def test_content_types(
    served: tuple[httpx2.AsyncClient, Starlette, Path, Settings], content_type: str, status: int
) -> None:
    client = served[0]
    headers = {**HEADERS, "Content-Type": content_type}
    response = await client.post("/mcp", content=b'{"jsonrpc":"2.0","id":3,"method":"ping"}', headers=headers)
    assert response.status_code == status, response.text
    if status == 415:
        assert_error_reply(response.json(), content_type)
        assert response.json()["error"]["message"].startswith("Unsupported Media Type: Content-Type must be")


async def test_oversized_body_names_the_bound(served: tuple[httpx2.AsyncClient, Starlette, Path, Settings]) -> None:
    client, _, _, settings = served
    bound = max_body_bytes(settings)
    body = compact({**READ, "params": {"name": "write_file", "arguments": {"content": "z" * bound}}})
    response = await client.post("/mcp", content=body, headers=HEADERS)
    assert response.status_code == 413
    reply = response.json()
    assert_error_reply(reply, "oversized")
    assert reply["id"] == 5  # found ahead of the params, though the body was never parsed
    assert reply["error"]["message"].startswith(
        f"Invalid Request: the message is {len(body):,} bytes, over the {bound:,} bytes one message may hold"
    )  # its size from its Content-Length


async def test_oversized_body_of_unknown_size(served: tuple[httpx2.AsyncClient, Starlette, Path, Settings]) -> None:
    """No Content-Length and refused before its end: its size is not known, only that it is over the bound."""
    client, _, _, settings = served
    bound = max_body_bytes(settings)
    body = compact({"jsonrpc": "2.0", "method": "tools/call", "params": {"arguments": {"c": "z" * bound}}, "id": 6})

    async def parts() -> AsyncIterator[bytes]:
        for start in range(0, len(body), 65536):
            yield body[start : start + 65536]

    response = await client.post("/mcp", content=parts(), headers=HEADERS)
    assert response.status_code == 413 and "content-length" not in response.request.headers
    reply = response.json()
    assert reply["id"] is None  # its id comes last, and the body was refused before it
    assert reply["error"]["message"].startswith(
        f"Invalid Request: the message is more than the {bound:,} bytes one message may hold"
    )


async def test_http_words_for_http(served: tuple[httpx2.AsyncClient, Starlette, Path, Settings]) -> None:
    """A parse error advises a request body (not stdio's lines); a leading byte-order mark is dropped."""
    client = served[0]
    response = await client.post("/mcp", content=b'{"jsonrpc":"2.0","id":8,"method":', headers=HEADERS)
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": -32700,
        "message": "Parse error: not valid JSON (Expecting value at line 1 column 34). "
        "Send one JSON-RPC message as the request body.",
    }
    bom = b'\xef\xbb\xbf{"jsonrpc":"2.0","id":9,"method":"ping"}'
    response = await client.post("/mcp", content=bom, headers=HEADERS)
    assert response.status_code == 200 and response.json() == {"jsonrpc": "2.0", "id": 9, "result": {}}


async def test_slow_body_times_out(
    served: tuple[httpx2.AsyncClient, Starlette, Path, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, app, db, _ = served
    monkeypatch.setattr(http_body.CheckedBody, "idle_seconds", 0.2)
    body = compact({**READ, "params": {"name": "write_file", "arguments": {"agent_id": "s", "path": "s.md"}}})
    parts = [body[:40], body[40:80]]  # then nothing more: a client that stalls mid-body
    sent: list[Message] = []

    async def receive() -> Message:
        if parts:
            return {"type": "http.request", "body": parts.pop(0), "more_body": True}
        await anyio.sleep(30)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    headers = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"accept", b"application/json")]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "raw_path": b"/mcp", "query_string": b"",
             "headers": headers, "scheme": "http", "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 1),
             "http_version": "1.1", "root_path": "", "asgi": {"version": "3.0"}}  # fmt: skip
    commits = Commits(db)
    before = commits.version()
    with anyio.fail_after(10):
        await app(scope, receive, send)
    assert sent[0]["status"] == 408
    reply = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert_error_reply(reply, "slow")
    assert reply["id"] == 5
    assert reply["error"]["message"].startswith("Request Timeout: the body did not arrive in time")
    assert commits.version() == before
    commits.close()


async def test_sdk_param_errors_name_the_field(served: tuple[httpx2.AsyncClient, Starlette, Path, Settings]) -> None:
    """The SDK answers bad params of a known method with "Invalid request parameters" alone; we say which field."""
    client = served[0]
    body = compact({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"arguments": []}})
    response = await client.post("/mcp", content=body, headers=HEADERS)
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    assert response.json() == {
        "jsonrpc": "2.0",
        "id": 9,
        "error": {
            "code": -32602,
            "message": "Invalid params for tools/call: params.arguments: Input should be a valid dictionary; "
            "params.name: Field required. Nothing was run; fix the params and retry.",
        },
    }
