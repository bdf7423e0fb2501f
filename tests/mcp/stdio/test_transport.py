"""Our stdio transport (scratchpad_mcp.stdio.transport) under real clients: both protocol revisions, notifications from
the server while a request runs, stray prints kept off the wire, stdin that is a file or /dev/null, the line bound."""

from __future__ import annotations

import json
import logging
import os
import pty
import subprocess
import sys
import time
import tty
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.types import LoggingMessageNotificationParams

from tests.mcp.helpers import START_TIMEOUT, console_script, server_env

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[3]
BOUND = 4096
INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
TINY = StdioServerParameters(
    command=sys.executable, args=["-m", "tests.mcp.stdio.transport_server", str(BOUND)], cwd=str(ROOT), env=server_env()
)


async def test_notifications_and_result_on_2025_11_25() -> None:
    reported: list[tuple[float, float | None, str | None]] = []
    logged: list[Any] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append((progress, total, message))

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logged.append(params.data)

    with anyio.fail_after(START_TIMEOUT):
        async with stdio_client(TINY) as (read, write), ClientSession(read, write, logging_callback=on_log) as session:
            init = await session.initialize()
            assert init.protocol_version == "2025-11-25"
            result = await session.call_tool("shout", {"text": "hi"}, progress_callback=on_progress)
    assert result.content[0].text == "HI"  # type: ignore[union-attr]
    assert reported == [(1, 2, "half way")]
    assert logged == ["shouting 2 characters"]


async def test_2026_07_28_with_discover() -> None:
    reported: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported.append(progress)

    with anyio.fail_after(START_TIMEOUT):
        async with Client(TINY) as client:
            assert client.protocol_version == "2026-07-28"
            result = await client.call_tool("shout", {"text": "hey"}, progress_callback=on_progress)
    assert result.content[0].text == "HEY"  # type: ignore[union-attr]
    assert reported == [1]


async def test_scratchpad_on_both_revisions(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "both.db"))
    params = StdioServerParameters(command=console_script(), env=env)
    with anyio.fail_after(START_TIMEOUT):
        async with Client(params) as modern:
            assert modern.protocol_version == "2026-07-28"
            written = await modern.call_tool("write_file", {"agent_id": "t", "path": "a.md", "content": "x\n"})
            assert written.structured_content == {"path": "a.md", "version": 1, "bytes_written": 2}
        async with Client(params, mode="legacy") as legacy:
            assert legacy.protocol_version == "2025-11-25"
            read = await legacy.call_tool("read_file", {"agent_id": "t", "path": "a.md"})
            assert read.structured_content is not None and read.structured_content["content"] == "x\n"


def run_tiny(stdin: Any, stdout: Any = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [TINY.command, *TINY.args], check=False, cwd=ROOT, env=TINY.env, stdin=stdin, stdout=stdout,
        stderr=subprocess.PIPE, timeout=START_TIMEOUT,
    )  # fmt: skip


def test_stdin_from_a_file_and_the_line_bound(tmp_path: Path) -> None:
    """A regular file as stdin (read in a worker thread, not through the loop's pipes); stdout a pipe. A line of
    exactly BOUND bytes is read; one byte more is refused with its id; CR is JSON whitespace."""
    first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "shout", "arguments": {"text": ""}}}
    fitted = json.dumps(call).encode()
    padding = BOUND - len(fitted)
    call["params"]["arguments"]["text"] = "a" * padding  # type: ignore[index]
    exact = json.dumps(call).encode()
    assert len(exact) == BOUND
    over = exact.replace(b'"id": 2', b'"id": 3').replace(b'"a', b'"aa', 1)
    assert len(over) == BOUND + 1
    ping = b'{"jsonrpc":"2.0",\r"id":4,\r\n"method":"ping"}'  # CRs inside; the \r\n ends nothing
    feed = tmp_path / "stdin.jsonl"
    feed.write_bytes(b"\n".join([json.dumps(first).encode(), exact, over, ping.replace(b"\r\n", b"\r")]) + b"\n")
    with feed.open("rb") as stdin:
        done = run_tiny(stdin)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    assert {m["method"] for m in messages if "id" not in m} <= {"notifications/message"}  # ctx.info's
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert set(by_id) == {1, 2, 3, 4}, done.stdout[-500:]
    assert by_id[2]["result"]["content"][0]["text"] == "A" * padding
    assert by_id[3]["error"]["code"] == -32600
    assert by_id[3]["error"]["message"].startswith(f"Invalid Request: the message is {BOUND + 1:,} bytes, over the")
    assert by_id[4] == {"jsonrpc": "2.0", "id": 4, "result": {}}
    assert b"stray print" in done.stderr and b"stray print" not in done.stdout

    # stdout a regular file too (plain writes, not the loop's pipe): the same answers.
    with feed.open("rb") as stdin, (tmp_path / "stdout.jsonl").open("wb") as stdout:
        assert run_tiny(stdin, stdout).returncode == 0
    written = [json.loads(line) for line in (tmp_path / "stdout.jsonl").read_bytes().splitlines()]
    assert {m["id"]: m for m in written if "id" in m} == by_id


def test_requests_sent_just_before_the_end_of_stdin_are_answered(tmp_path: Path) -> None:
    """A client that writes its requests and closes stdin at once (a script piping lines in) gets every reply:
    the tool calls the SDK runs (the first, while the handshake is still in flight) and the direct ones, the last
    line's included, and then the server exits."""

    def request(number: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": number, "method": method, **({} if params is None else {"params": params})}

    def call(number: int, tool: str, **arguments: Any) -> dict[str, Any]:
        return request(number, "tools/call", {"name": tool, "arguments": {"agent_id": "eof", **arguments}})

    feed = [
        request(1, "initialize", INITIALIZE),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        call(2, "write_file", path="a.md", content="one\n"),
        call(3, "read_file", path="a.md"),
        request(4, "tools/list"),
        call(5, "append_log", path="log", entry="last"),
    ]
    env = server_env(SCRATCHPAD_DATABASE_URL=f"sqlite:///{tmp_path / 'eof.db'}")
    stdin = b"".join(json.dumps(line).encode() + b"\n" for line in feed)
    done = subprocess.run(
        [console_script()], input=stdin, capture_output=True, env=env, cwd=tmp_path, timeout=START_TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    by_id = {m["id"]: m for m in map(json.loads, done.stdout.splitlines())}
    assert set(by_id) == {1, 2, 3, 4, 5}, done.stdout[-500:]
    assert json.loads(by_id[3]["result"]["content"][0]["text"])["content"] == "one\n"
    assert json.loads(by_id[5]["result"]["content"][0]["text"])["entry_id"] == 1


MODERN = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
LISTEN = {"_meta": MODERN, "notifications": {"resourceSubscriptions": ["scratchpad://agents/a/files/x.md"]}}


def test_subscription_streams_at_the_end_of_stdin(tmp_path: Path) -> None:
    """A stream refused just before the end of stdin still gets its error; one that opened ends with the session
    (the SDK's error for it), without the server waiting on it."""
    cases: dict[str, list[dict[str, Any]]] = {
        "2025-11-25": [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {}},
        ],
        "2026-07-28": [
            {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN}},
            *({"jsonrpc": "2.0", "id": n, "method": "subscriptions/listen", "params": LISTEN} for n in range(2, 11)),
        ],  # 8 streams open at once for one caller, and a 9th refused
    }
    for revision, feed in cases.items():
        env = server_env(SCRATCHPAD_DATABASE_URL=f"sqlite:///{tmp_path / 'streams.db'}")
        stdin = b"".join(json.dumps(line).encode() + b"\n" for line in feed)
        started = time.monotonic()
        done = subprocess.run(
            [console_script()], input=stdin, capture_output=True, env=env, cwd=tmp_path, timeout=START_TIMEOUT,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        assert time.monotonic() - started < 15, revision  # not the 30 s the end of stdin waits at most
        by_id = {m["id"]: m.get("error") for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
        asked = {line["id"] for line in feed if "id" in line}
        assert set(by_id) == asked, (revision, done.stdout[-500:])
        if revision == "2025-11-25":
            assert by_id[2] == {"code": -32601, "message": "Method not found", "data": "subscriptions/listen"}
        else:
            assert [by_id[n] for n in range(2, 10)] == [{"code": -32000, "message": "Connection closed"}] * 8
            assert by_id[10]["message"].startswith("Too many subscriptions"), by_id[10]


def test_stdin_from_dev_null_ends_cleanly() -> None:
    done = run_tiny(subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert done.stdout == b""


def test_a_client_that_closes_stdout_first() -> None:
    """Replies to a closed stdout are dropped with one log line; the server ends cleanly at the end of stdin."""
    process = subprocess.Popen(
        [TINY.command, *TINY.args], cwd=ROOT, env=TINY.env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdout.close()
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}]
    lines += [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(2, 50)]
    process.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    _, stderr = process.communicate(timeout=START_TIMEOUT)
    assert process.returncode == 0, stderr.decode()[-2000:]
    assert b"stdout is closed (BrokenPipeError); replies are dropped until stdin ends" in stderr
    assert b"Traceback" not in stderr


def test_stdin_a_terminal() -> None:
    """A TTY on stdin (the loop cannot poll it as a pipe; read in a worker thread), in raw mode as a client would."""
    controller, terminal = pty.openpty()
    tty.setraw(terminal)
    process = subprocess.Popen(
        [TINY.command, *TINY.args], cwd=ROOT, env=TINY.env, stdin=terminal,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
        os.write(controller, json.dumps(first).encode() + b"\n")
        os.write(controller, b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n')
        assert process.stdout is not None
        replies = [json.loads(process.stdout.readline()) for _ in range(2)]
        assert [reply["id"] for reply in replies] == [1, 2] and replies[1]["result"] == {}
    finally:
        process.kill()
        process.communicate(timeout=START_TIMEOUT)
        os.close(controller)
        os.close(terminal)


def test_an_oversized_line_answered_with_its_id_at_either_end(tmp_path: Path) -> None:
    """A line over the bound keeps its first and last 64 KiB: its id is found ahead of the params or as its last
    key, across many reads (3 MB, the pipe's chunks are 1 MiB); a nested "id" in the arguments is not taken."""
    first = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}
    text = "a" * 3_000_000
    arguments = {"text": text, "id": 99}  # a nested id, the last key of the arguments
    head = {"jsonrpc": "2.0", "id": 52, "method": "tools/call", "params": {"name": "shout", "arguments": arguments}}
    tail = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "shout", "arguments": arguments}, "id": 53}
    nested = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "shout", "arguments": arguments}}
    spaced = json.dumps(tail).encode()[:-1] + b" \r }"  # JSON whitespace before the closing brace
    lines = [json.dumps(m).encode() for m in (first, head, tail)] + [json.dumps(nested).encode(), spaced]
    feed = tmp_path / "stdin.jsonl"
    feed.write_bytes(b"\n".join([*lines, b'{"jsonrpc":"2.0","id":54,"method":"ping"}']) + b"\n")
    with feed.open("rb") as stdin:
        done = run_tiny(stdin)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    errors = [(m["id"], m["error"]["code"], m["error"]["message"]) for m in replies if "error" in m]
    size = len(lines[2])
    said = f"Invalid Request: the message is {size:,} bytes, over the {BOUND:,} bytes one message may hold"
    assert [(i, code) for i, code, _ in errors] == [(52, -32600), (53, -32600), (None, -32600), (53, -32600)]
    assert errors[1][2].startswith(said), errors[1]
    assert {m["id"] for m in replies if "result" in m} == {1, 54}


def fed(lines: list[bytes], last: int) -> tuple[list[dict[str, Any]], bytes]:
    """The tiny server's replies (but initialize's) to initialize and then these lines, up to the one with id
    `last` (stdin stays open until then, so that the replies come in the order the lines were sent), and its
    stderr."""
    first = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE}).encode()
    process = subprocess.Popen(
        [TINY.command, *TINY.args], cwd=ROOT, env=TINY.env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"\n".join([first, *lines]) + b"\n")
    process.stdin.flush()
    replies: list[dict[str, Any]] = []
    while not replies or replies[-1].get("id") != last:
        line = process.stdout.readline()
        assert line, "the server ended before answering"
        replies.append(json.loads(line))
    _, stderr = process.communicate(timeout=START_TIMEOUT)
    assert process.returncode == 0, stderr.decode()[-2000:]
    return [reply for reply in replies if reply.get("id") != 1], stderr


def test_a_line_with_a_byte_order_mark() -> None:
    bom = b"\xef\xbb\xbf"  # then a line holding only a mark: blank
    replies, _ = fed(
        [bom + b'{"jsonrpc":"2.0","id":45,"method":"ping"}', bom, b'{"jsonrpc":"2.0","id":46,"method":"ping"}'], 46
    )
    assert replies == [{"jsonrpc": "2.0", "id": 45, "result": {}}, {"jsonrpc": "2.0", "id": 46, "result": {}}]


BAD_ID = 'Invalid Request: "id" must be a string or an integer, not'
LINE_ADVICE = "Send one JSON-RPC message per line."
# Lines whose id cannot be determined, answered with id null as JSON-RPC 2.0 (and our HTTP transport) has it.
NULL_ID_ANSWERS = [
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600, f"{BAD_ID} a boolean."),
    (b'{"jsonrpc":"2.0","id":{},"method":"ping"}', -32600, f"{BAD_ID} an object."),
    (b"hello", -32700, "Parse error: not valid JSON (Expecting value at line 1 column 1). " + LINE_ADVICE),
    (b"\xff\xfe", -32700, "Parse error: byte 0xff at offset 0 is not UTF-8. Send the message as UTF-8 JSON."),
    (b"[]", -32600, "Invalid Request: batches (JSON arrays) are not supported; send each message on its own."),
    (b"42", -32600, "Invalid Request: a number, not a JSON-RPC message."),
    (b'{"jsonrpc":"2.0"}', -32600, 'Invalid Request: "method" must be a string naming the method.'),
    (b'{"jsonrpc":"1.0","method":"notifications/initialized"}', -32600, 'Invalid Request: "jsonrpc" must be "2.0".'),
]  # fmt: skip
UNANSWERED = [
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',  # a notification
    b'{"jsonrpc":"2.0","id":null,"method":"notifications/initialized"}',  # a notification to the SDK (and HTTP)
    b'{"jsonrpc":"2.0","result":5}',  # a broken response: a reply is never answered
    b"  \r",  # a blank line
]


def test_lines_without_an_id_to_answer_get_id_null() -> None:
    lines = [line for line, _, _ in NULL_ID_ANSWERS] + UNANSWERED + [b'{"jsonrpc":"2.0","id":2,"method":"ping"}']
    replies, stderr = fed(lines, 2)
    expected = [{"jsonrpc": "2.0", "id": None, "error": {"code": c, "message": m}} for _, c, m in NULL_ID_ANSWERS]
    assert replies == [*expected, {"jsonrpc": "2.0", "id": 2, "result": {}}]
    assert b"dropped a broken response: Invalid Request: a response that is not a valid" in stderr


# Stands between a client and the tiny server: writes the lines of a file into the server's stdin ahead of each
# client line that holds "inject", so that they arrive in the middle of the client's session.
RELAY = """
import subprocess, sys
server = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE)
injected = open(sys.argv[1], "rb").read()
for line in sys.stdin.buffer:
    if b'"inject"' in line:
        server.stdin.write(injected)
    server.stdin.write(line)
    server.stdin.flush()
server.stdin.close()
sys.exit(server.wait())
"""


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_sdk_client_goes_on_after_id_null_answers(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, mode: str
) -> None:
    """The SDK's client takes an error with id null (for a line it did not send) as an answer to nothing: it logs it
    and goes on, on both revisions."""
    injected = tmp_path / "injected.jsonl"
    injected.write_bytes(b"\n".join(line for line, _, _ in NULL_ID_ANSWERS) + b"\n")
    relayed = StdioServerParameters(
        command=sys.executable, args=["-c", RELAY, str(injected), TINY.command, *TINY.args], cwd=str(ROOT), env=TINY.env
    )
    caplog.set_level(logging.DEBUG, logger="mcp.shared.jsonrpc_dispatcher")
    with anyio.fail_after(START_TIMEOUT):
        async with Client(relayed, mode=mode) as client:
            injected_during = await client.call_tool("shout", {"text": "inject"})
            after = await client.call_tool("shout", {"text": "after"})
            assert [tool.name for tool in (await client.list_tools()).tools] == ["shout", "echo"]
    assert injected_during.content[0].text == "INJECT"  # type: ignore[union-attr]
    assert after.content[0].text == "AFTER"  # type: ignore[union-attr]
    dropped = [r for r in caplog.records if "unknown/late request id None" in r.getMessage()]
    assert len(dropped) == len(NULL_ID_ANSWERS)
