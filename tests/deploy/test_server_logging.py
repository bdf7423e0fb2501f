"""SCRATCHPAD_LOG_FORMAT=json: each stderr line is JSON; one tool_call line per call; no secrets, no content."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.shared.exceptions import MCPError

from tests.deploy.conftest import (
    CALL_TIMEOUT,
    MCP_HEADERS,
    TEST_TIMEOUT,
    Key,
    connect,
    create_keys,
    raw_call,
    revoke_key,
    rpc_body,
    stderr_lines,
    unique,
)
from tests.mcp.helpers import ok, refused
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

CONTENT = "SECRET-CONTENT-123"
EDITED = "SECRET-EDIT-456"
ENTRY = "SECRET-LOG-ENTRY-789"
UNKNOWN = "spk_abcdefabcdef_SECRET-UNKNOWN-KEY-0000000000000000000000000000"
TOOL_CALL_FIELDS = ("time", "request_id", "agent", "tool", "outcome", "duration_ms", "bytes_in", "bytes_out")


class Logged:
    def __init__(self, server: Server, database: str, keys: list[Key], revoked: Key) -> None:
        self.server, self.database, self.keys, self.revoked = server, database, keys, revoked


def json_logging_server(factory: pytest.TempPathFactory, name: str, **env: str) -> Iterator[Logged]:
    """A server logging JSON lines on its own SQLite file, with a key, a read-only key and a revoked key."""
    folder: Path = factory.mktemp(name)
    database = f"sqlite:///{folder / f'{name}.db'}"
    agent = unique(name)
    key, read_only, revoked = create_keys(database, agent, (agent, True), agent)
    revoke_key(database, revoked)
    env = {"SCRATCHPAD_DATABASE_URL": database, "SCRATCHPAD_LOG_FORMAT": "json", **env}
    with running(folder, {name: env}) as servers:
        yield Logged(servers[name], database, [key, read_only], revoked)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    yield from json_logging_server(tmp_path_factory, "logged", SCRATCHPAD_LOG_LEVEL="INFO")


def wait_for_lines(server: Server, predicate: Any, timeout: float = 10.0) -> list[dict[str, Any]]:
    """The parsed stderr lines, once predicate(lines) holds (log lines are written as calls finish)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = parsed_lines(server)
        if predicate(lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.1)


async def test_calls_and_auth_failures_are_logged_without_content_or_secrets(logged: Logged) -> None:
    key, read_only = logged.keys
    server = logged.server
    calls: list[tuple[str, str]] = []  # (tool, outcome) in order
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(server.mcp_url, key.secret) as client:
            await ok(client, "write_file", {"path": "notes/secret-plan.md", "content": f"{CONTENT}\nline two\n"})
            calls.append(("write_file", "ok"))
            await ok(client, "edit_file", {"path": "notes/secret-plan.md", "old_str": "line two", "new_str": EDITED})
            calls.append(("edit_file", "ok"))
            await ok(client, "append_log", {"path": "journal", "entry": ENTRY})
            calls.append(("append_log", "ok"))
            assert CONTENT in (await ok(client, "read_file", {"path": "notes/secret-plan.md"}))["content"]
            calls.append(("read_file", "ok"))
            await ok(client, "read_log", {"path": "journal", "tail": 1})
            calls.append(("read_log", "ok"))
            await refused(client, "read_file", {"path": "missing.md"})
            calls.append(("read_file", "not_found"))
            await refused(client, "list_files", {"agent_id": unique("someone-else")})
            calls.append(("list_files", "access_denied"))
        async with connect(server.mcp_url, read_only.secret) as client:
            await refused(client, "write_file", {"path": "ro.md", "content": CONTENT})
            calls.append(("write_file", "access_denied"))

        # Failing auth: no key, an unknown key, a revoked key, a malformed one.
        assert raw_call(server.mcp_url, None, "write_file", {"path": "x", "content": CONTENT}).status_code == 401
        assert raw_call(server.mcp_url, UNKNOWN, "append_log", {"path": "j", "entry": ENTRY}).status_code == 401
        revoked = raw_call(server.mcp_url, logged.revoked.secret, "write_file", {"path": "x", "content": CONTENT})
        assert revoked.status_code == 401
        assert raw_call(server.mcp_url, "SECRET-MALFORMED", "list_files", {}).status_code == 401

    def complete(lines: list[dict[str, Any]]) -> bool:
        tool_lines = [line for line in lines if line.get("event") == "tool_call"]
        return len(tool_lines) >= len(calls) and sum(line.get("event") == "auth_failure" for line in lines) >= 4

    await anyio.to_thread.run_sync(wait_for_lines, server, complete)
    raw_lines = stderr_lines(server)
    lines = []
    for raw in raw_lines:
        parsed = json.loads(raw)  # every line is one JSON object
        assert isinstance(parsed, dict), raw
        lines.append(parsed)

    for line in lines:
        for name in ("time", "level", "logger", "message"):
            assert name in line, line
    assert any(line.get("event") == "startup" for line in lines)
    # Only this test calls tools on this server: one line per call, in order.
    tool_lines = [line for line in lines if line.get("event") == "tool_call"]
    assert [(line["tool"], line["outcome"]) for line in tool_lines] == calls
    mine = [line for line in tool_lines if line["outcome"] != "access_denied"]
    assert {line["agent"] for line in mine} == {key.agent}
    for line in tool_lines:
        for name in TOOL_CALL_FIELDS:
            assert name in line, (name, line)
        assert line["time"].endswith("Z")
        assert isinstance(line["duration_ms"], int | float) and line["duration_ms"] >= 0
        assert isinstance(line["bytes_in"], int) and isinstance(line["bytes_out"], int)
    assert len({line["request_id"] for line in tool_lines}) == len(tool_lines)
    assert mine[0]["bytes_in"] == len(f"{CONTENT}\nline two\n")
    assert mine[2]["bytes_in"] == len(ENTRY)
    assert mine[3]["bytes_out"] > len(CONTENT)

    reasons = [line.get("reason") for line in lines if line.get("event") == "auth_failure"]
    for reason in ("missing", "unknown", "revoked", "malformed"):
        assert reason in reasons, reasons

    everything = logged.server.stderr()
    secrets = [k.secret for k in (key, read_only, logged.revoked)] + [UNKNOWN, "SECRET-MALFORMED"]
    secrets += [k.random_part for k in (key, read_only, logged.revoked)]
    for forbidden in [*secrets, CONTENT, EDITED, ENTRY]:
        assert forbidden not in everything, f"{forbidden!r} appears in the server's log"


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Logged]:
    """A second JSON-logging server, for the checks that found problems (kept apart from the one above)."""
    yield from json_logging_server(tmp_path_factory, "audited")


def parsed_lines(server: Server) -> list[dict[str, Any]]:
    """The server's stderr lines that are JSON, parsed."""
    lines = []
    for raw in stderr_lines(server):
        with contextlib.suppress(ValueError):
            lines.append(json.loads(raw))
    return lines


async def test_a_refused_call_is_logged_under_the_keys_agent(audited: Logged) -> None:
    """The tool_call line names the agent whose key made the call, also when the call is refused.

    Logging the agent_id the caller asked for (or null) hides who tried to reach another namespace.
    """
    key, read_only = audited.keys
    intruded = unique("victim")
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(audited.server.mcp_url, key.secret) as client:
            await refused(client, "read_file", {"agent_id": intruded, "path": "private.md"})
        async with connect(audited.server.mcp_url, read_only.secret) as client:
            await refused(client, "delete_log", {"path": "journal"})

    def logged_both(lines: list[dict[str, Any]]) -> bool:
        return len([line for line in lines if line.get("outcome") == "access_denied"]) >= 2

    await anyio.to_thread.run_sync(wait_for_lines, audited.server, logged_both)
    denied = [line for line in parsed_lines(audited.server) if line.get("outcome") == "access_denied"]
    assert [(line["tool"], line["agent"]) for line in denied] == [
        ("read_file", key.agent),
        ("delete_log", key.agent),
    ]


def test_a_malformed_http_request_is_logged_as_json(audited: Logged) -> None:
    """Whatever uvicorn has to say (here: an invalid request line) must be a JSON line as well."""
    server = audited.server
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
        sock.sendall(b"NOT AN HTTP REQUEST \x01\x02\r\n\r\n")
        reply = sock.recv(1000)
    assert reply.startswith(b"HTTP/1.1 400")
    time.sleep(1.0)
    assert server.process.poll() is None
    not_json = []
    for raw in stderr_lines(server):
        try:
            json.loads(raw)
        except ValueError:
            not_json.append(raw)
    assert not_json == [], f"non-JSON lines on stderr: {not_json}"


async def test_calls_refused_before_their_tool_runs_are_logged_and_counted(audited: Logged) -> None:
    """Invalid arguments and unknown tools get one tool_call line each, and a clipped name when it is huge."""
    key, _ = audited.keys
    server = audited.server
    long_agent = "Q" * 5000 + "\nFAKE LOG LINE"
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(server.mcp_url, key.secret) as client:
            invalid = await refused(client, "write_file", {"path": "p.md", "content": 123})
            with pytest.raises(MCPError) as unknown_tool:
                await client.call_tool("no_such_tool_" + "z" * 3000, {})
            unknown = unknown_tool.value.error.message
            mismatched = await refused(client, "get_usage_stats", {"agent_id": long_agent})
    assert invalid.startswith("Invalid arguments for write_file: content: Input should be a valid string")
    assert unknown.startswith("Unknown tool: 'no_such_tool_zzz") and len(unknown) < 600
    assert "FAKE LOG LINE" not in mismatched and mismatched.startswith("Invalid agent_id: at most 128 characters")

    def logged_all(lines: list[dict[str, Any]]) -> bool:
        outcomes = [line.get("outcome") for line in lines]
        return "invalid_arguments" in outcomes and "unknown_tool" in outcomes and long_agent[:100] in str(lines)

    lines = await anyio.to_thread.run_sync(wait_for_lines, server, logged_all)
    by_outcome = {line["outcome"]: line for line in lines if line.get("event") == "tool_call"}
    assert by_outcome["invalid_arguments"]["tool"] == "write_file"
    assert by_outcome["invalid_arguments"]["agent"] == key.agent
    assert by_outcome["invalid_arguments"]["bytes_out"] == len(invalid.encode("utf-8"))
    assert by_outcome["unknown_tool"]["tool"] == "(unknown)"
    assert len(by_outcome["unknown_tool"]["requested_tool"]) < 200
    refused_id = [
        line for line in lines if (line.get("outcome"), line.get("tool")) == ("invalid_agent_id", "get_usage_stats")
    ]
    assert len(refused_id[-1]["requested_agent"]) < 200  # the agent-id rule, before any grant: no access_denied
    assert "FAKE LOG LINE" not in server.stderr()

    metrics = httpx2.get(f"{server.base}/metrics", timeout=30).text
    assert 'scratchpad_tool_calls_total{outcome="invalid_arguments",tool="write_file"} 1.0' in metrics
    assert 'scratchpad_tool_calls_total{outcome="unknown_tool",tool="(unknown)"} 1.0' in metrics
    assert "zzz" not in metrics


def test_authorization_headers_that_are_no_bearer_key_are_logged_and_counted(audited: Logged) -> None:
    server = audited.server
    before = httpx2.get(f"{server.base}/metrics", timeout=30).text
    assert 'scratchpad_auth_failures_total{reason="malformed"}' not in before
    for header in ("Basic Zm9vOmJhcg==", "Bearer", "Token abc"):
        headers = {**MCP_HEADERS, "Authorization": header}
        response = httpx2.post(server.mcp_url, json=rpc_body("list_files", {}), headers=headers, timeout=CALL_TIMEOUT)
        assert response.status_code == 401
    lines = wait_for_lines(server, lambda ls: sum(line.get("reason") == "malformed" for line in ls) >= 3)
    assert sum(line.get("reason") == "malformed" for line in lines) == 3
    after = httpx2.get(f"{server.base}/metrics", timeout=30).text
    assert 'scratchpad_auth_failures_total{reason="malformed"} 3.0' in after
    assert "Zm9vOmJhcg" not in server.stderr()
