"""The stdio server under hostile input: 10,000 generated tool calls through a real MCP client session, and
malformed JSON-RPC written as raw lines. The server never dies or hangs, every request with an id is answered
with a result or a clean error, and a refused call commits nothing."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from bench.fuzz import (
    AGENTS,
    Commits,
    RawStdio,
    assert_clean,
    assert_error_reply,
    call_lines,
    calls,
    envelopes,
    handshake,
)
from scratchpad_core.limits import Limits
from scratchpad_mcp.server.wire import max_message_bytes
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env
from tests.recount import SqlRecounter

pytestmark = pytest.mark.anyio

SEED = 20261201
CLIENT_CALLS = 2_500  # valid-shaped and broken calls through a real client session
LINE_CALLS = 4_000  # generated tool calls written as raw lines (cheaper per call than a client session)
RAW = 2_500  # malformed JSON-RPC envelopes, ids, batches, garbage
MAX_FILE_BYTES = 64 * 1024
LINE_BOUND = max_message_bytes(Limits(max_file_bytes=MAX_FILE_BYTES))
CALL_TIMEOUT = 20.0  # one call; the whole test is bounded by the count, not by a clock


def environment(db: Path) -> dict[str, str]:
    return server_env(
        SCRATCHPAD_DB_PATH=str(db),
        SCRATCHPAD_MAX_FILE_BYTES=str(MAX_FILE_BYTES),
        SCRATCHPAD_LOG_LEVEL="WARNING",
        SCRATCHPAD_INDEX_EVERY="0",  # the background index pass commits: a refusal's check would count it
    )


def snapshots(db: Path) -> dict[str, Any]:
    recounter = SqlRecounter(f"sqlite:///{db}")
    try:
        return {agent: recounter.snapshot(agent) for agent in AGENTS}
    finally:
        recounter.close()


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
    """(refused, the text an agent reads) for one call; a JSON-RPC error counts as refused."""
    with anyio.fail_after(CALL_TIMEOUT):
        try:
            result = await session.call_tool(tool, arguments)
        except MCPError as error:
            return True, error.error.message
    text = " ".join(getattr(item, "text", "") for item in result.content)
    if not result.is_error:
        assert result.structured_content is not None, (tool, text[:200])
    return bool(result.is_error), text


async def test_generated_tool_calls_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "fuzz.db"
    params = StdioServerParameters(command=console_script(), env=environment(db))
    outcomes: Counter[str] = Counter()
    started = time.monotonic()
    with (tmp_path / "server.stderr").open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            with anyio.fail_after(START_TIMEOUT):
                await session.initialize()
                schemas = {tool.name: tool.input_schema for tool in (await session.list_tools()).tools}
            assert len(schemas) >= 15
            commits = Commits(db)
            try:
                for generated in calls(schemas, SEED, CLIENT_CALLS):
                    before = commits.version()
                    refused, text = await call(session, generated.tool, generated.arguments)
                    assert_clean(text, generated)
                    if refused:
                        assert commits.version() == before, f"a refused call committed: {generated}"
                    if generated.refused:
                        assert refused, f"a call breaking the schema was run: {generated} -> {text[:200]}"
                    outcomes[f"{generated.kind}:{'refused' if refused else 'ok'}"] += 1

                # A block of calls that must all be refused leaves every row of every agent as it was.
                before_rows = snapshots(db)
                broken = [c for c in calls(schemas, SEED + 1, 1_000) if c.refused][:300]
                for generated in broken:
                    refused, text = await call(session, generated.tool, generated.arguments)
                    assert refused and text, generated
                assert snapshots(db) == before_rows
            finally:
                commits.close()
            with anyio.fail_after(CALL_TIMEOUT):
                await session.send_ping()  # still serving
    assert sum(outcomes.values()) == CLIENT_CALLS
    assert outcomes["valid:ok"] > 250 and outcomes["wrong_type:refused"] > 60, outcomes
    print(f"{CLIENT_CALLS + len(broken)} calls in {time.monotonic() - started:.1f} s: {dict(sorted(outcomes.items()))}")


def test_raw_json_rpc_lines_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "raw.db"
    with (tmp_path / "server.stderr").open("wb") as errlog:
        server = RawStdio([console_script()], environment(db), errlog)
        try:
            run_raw(server, db)
            assert server.close(START_TIMEOUT) == 0  # the end of stdin ends it cleanly
        finally:
            server.kill()
    log = (tmp_path / "server.stderr").read_text(errors="replace")
    assert "Traceback" not in log


def run_raw(server: RawStdio, db: Path) -> None:
    schemas = handshake(server, START_TIMEOUT)
    commits = Commits(db)
    try:
        outcomes = call_lines(server, commits, schemas, SEED + 2, LINE_CALLS, CALL_TIMEOUT)
        kinds = envelopes(server, commits, SEED, RAW, LINE_BOUND, CALL_TIMEOUT)
    finally:
        commits.close()
    assert outcomes["valid:ok"] > 400 and outcomes["wrong_type:refused"] > 80, outcomes
    assert len(kinds) >= 25, kinds  # every builder, and most variants of each


def test_error_wording_for_each_broken_line(tmp_path: Path) -> None:
    """The exact answers an agent or a developer reads, one per broken rule."""
    with (tmp_path / "server.stderr").open("wb") as errlog:
        server = RawStdio([console_script()], environment(tmp_path / "w.db"), errlog)
        try:
            for line, code, message in WORDING:
                server.send(line)
                reply = server.reply(START_TIMEOUT)
                assert_error_reply(reply, line)
                assert reply["id"] == 7 and reply["error"]["code"] == code, reply
                assert reply["error"]["message"] == message, reply
        finally:
            server.kill()


WORDING = [
    # The SDK's own INVALID_PARAMS ("Invalid request parameters", naming nothing), put in words by the transport.
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
        -32602,
        "Not initialized: tools/list came before initialize. Send initialize first, then notifications/initialized "
        "(or, on 2026-07-28, name the revision in each request's _meta).",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5,"_meta":{"progressToken":[1]}}}',
        -32602,
        "Invalid params for tools/call: params._meta.progressToken: Input should be a valid string or integer; "
        "params.name: Input should be a valid string. Nothing was run; fix the params and retry.",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"\\ud800"}}}',
        -32602,
        "Invalid params: params.arguments.path holds a lone surrogate escape (a \\ud800-\\udfff escape without its "
        "pair), which is not Unicode text. Nothing was run; send valid UTF-8 or escape pairs.",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":' + b"[" * 300 + b"]" * 300 + b"}}",
        -32600,
        "Invalid Request: JSON nested deeper than 201 levels. Nothing was run; send flat arguments.",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}',
        -32602,
        'Invalid params: "params" must be an object, not an array.',
    ),
    (b'{"jsonrpc":"1.0","id":7,"method":"ping"}', -32600, 'Invalid Request: "jsonrpc" must be "2.0".'),
    (b'{"jsonrpc":"2.0","id":7,"method":5}', -32600, 'Invalid Request: "method" must be a string naming the method.'),
    (
        b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]',
        -32600,
        "Invalid Request: batches (JSON arrays) are not supported; send each message on its own.",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"\xff"}}',
        -32700,
        "Parse error: byte 0xff at offset 55 is not UTF-8. Send the message as UTF-8 JSON.",
    ),
    (
        b'{"jsonrpc":"2.0","id":7,"method":"ping",',
        -32700,
        "Parse error: not valid JSON (Expecting property name enclosed in double quotes at line 1 column 41). "
        "Send one JSON-RPC message per line.",
    ),
]
