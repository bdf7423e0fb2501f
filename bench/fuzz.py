"""A longer fuzz run than the test suite's: generated tool calls and malformed JSON-RPC against real server processes.

Run:  uv run python -m bench.fuzz [--calls 50000] [--raw 20000] [--seed 1] [--no-http]

Starts `scratchpad-mcp` over stdio on a temporary SQLite file (SCRATCHPAD_MAX_FILE_BYTES=65536, so that messages
over the line bound, 6 x 64 KiB + 64 KiB, are cheap to send) and writes, one line at a time, --calls tool calls
generated from each tool's input schema (about half broken: wrong types, missing and extra fields, huge integers,
megabyte strings, NUL, unicode and traversal paths, deep nesting) and --raw malformed messages (lone surrogate
escapes, JSON nested hundreds of levels deep, params that are not an object, wrong jsonrpc, batches, odd and
missing ids, garbage, cut and oversized lines). Then the same calls and bodies as POSTs to an HTTP server process.

Every answer is checked: one per id, a result or a clean JSON-RPC error (no traceback, path, SQL, driver or
pydantic text), and a refusal commits nothing (SQLite's data_version does not move). The first failure stops
the run with what was sent; otherwise it prints the counts by kind, calls per second, and exits 0.
"""

from __future__ import annotations

import argparse
import json
import queue
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

if __package__ in (None, ""):  # run as a file: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ServerProcess, free_port, server_command

# --------------------------------------------------------------------------------------------------------------
# fuzz_cases.py: Seeded tool calls from each tool's input schema: valid-shaped, or deliberately broken (wrong types,
# missing and extra fields, huge integers, megabyte strings, NUL, unicode and traversal paths, deep nesting).


AGENTS = ("fuzz-a", "fuzz-b")
PATHS = ("notes/a.md", "notes/b.md", "log/one", "x.txt", "deep/er/still/f.md", "Notes/Case.MD")
TEXTS = ("", "one\n", "one\ntwo\nthree\n", "no newline", "a\r\nb\r\n", "tab\there\n", "é ü ß 😀\n", "x" * 500)
UNICODE_PATHS = ("é/ü.md", "😀.md", "\u202egnp.md", "a\u200bb.md", "ﬁle.md", "日本/語.md", "\u0301.md")
TRAVERSAL = ("../x.md", "a/../../b", "/etc/passwd", "./a.md", "a//b", "a/", "C:\\x", "%2e%2e/x", "~/x", "a/./b")
NASTY = ("", " ", "\x00", "a\x00b", "\t", "\r\n", "\x7f", "\ufeff", "\uffff", "a" * 300, "-", ".", "*", "a?b")
HUGE_INTS = (2**31, 2**63, 2**64 + 1, 10**30, -(10**30), -1, -(2**63) - 1, 2**53 + 1)
MIB = 1024 * 1024


@dataclass(frozen=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    kind: str  # "valid" or the name of the mutation
    refused: bool  # the mutation breaks the schema, so the call must be refused


def valid_value(name: str, schema: dict[str, Any], rng: random.Random) -> Any:
    if "enum" in schema:
        return rng.choice(schema["enum"])
    kind = schema.get("type")
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "integer":
        return rng.choice((-1, 0, 1, 1, 2, 3, 5, 10, 100))
    if name == "agent_id":
        return rng.choice(AGENTS)
    if name in ("path", "prefix"):
        return rng.choice(PATHS) if name == "path" else rng.choice(("", "notes/", "log", "x"))
    if name == "request_id":
        return f"req-{rng.randrange(50)}"
    if name == "cursor":
        return rng.choice(("", "notes/a.md", "zzz"))
    return rng.choice(TEXTS)


def valid_call(tool: str, schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    return {
        name: valid_value(name, prop, rng)
        for name, prop in properties.items()
        if name in required or rng.random() < 0.3
    }


def wrong_type(schema: dict[str, Any], rng: random.Random) -> Any:
    """A value of another JSON type that no lax conversion turns into the right one ("7" would pass as 7)."""
    choices: list[Any] = [[1, 2], {"a": 1}, 1.5]
    choices.append("text" if schema.get("type") != "string" else 7)
    return rng.choice(choices)


def deep(levels: int) -> Any:
    value: Any = "bottom"
    for level in range(levels):
        value = [value] if level % 2 else {"k": value}
    return value


def broken_call(tool: str, schema: dict[str, Any], rng: random.Random) -> Call:
    """A valid-shaped call with one mutation; `refused` when the mutation breaks the schema itself."""
    arguments = valid_call(tool, schema, rng)
    properties: dict[str, Any] = schema.get("properties", {})
    names = list(properties)
    strings = [n for n in names if properties[n].get("type") == "string" and "enum" not in properties[n]]
    integers = [n for n in names if properties[n].get("type") == "integer"]
    mutation = rng.choice(
        ("wrong_type", "missing", "extra", "huge_int", "mega", "nul", "unicode_path", "traversal", "nested", "nasty")
    )
    if mutation == "wrong_type":
        name = rng.choice(names)
        arguments[name] = wrong_type(properties[name], rng)
        return Call(tool, arguments, mutation, refused=True)
    if mutation == "missing" and schema.get("required"):
        arguments.pop(rng.choice(schema["required"]), None)
        return Call(tool, arguments, mutation, refused=True)
    if mutation == "extra":
        arguments[rng.choice(("extra", "agentId", "Path", "__proto__", "content2"))] = "x"
        return Call(tool, arguments, mutation, refused=True)
    if mutation == "huge_int" and integers:
        arguments[rng.choice(integers)] = rng.choice(HUGE_INTS)
        return Call(tool, arguments, mutation, refused=False)
    if mutation == "nested":
        arguments[rng.choice(names)] = deep(rng.randrange(2, 60))
        return Call(tool, arguments, mutation, refused=True)
    if not strings:
        return Call(tool, arguments, "valid", refused=False)
    name = rng.choice(strings)
    if mutation == "mega":
        arguments[name] = rng.choice(("x", "é", "\x01")) * rng.choice((64 * 1024 + 1, MIB + 1))
    elif mutation == "nul":
        arguments[name] = f"{arguments.get(name, 'a')}\x00{rng.choice(TEXTS)}"
    elif mutation == "unicode_path":
        arguments[name] = rng.choice(UNICODE_PATHS)
    elif mutation == "traversal":
        arguments[name] = rng.choice(TRAVERSAL)
    else:
        arguments[name] = rng.choice(NASTY)
    return Call(tool, arguments, mutation, refused=False)


def calls(schemas: dict[str, dict[str, Any]], seed: int, count: int) -> Iterator[Call]:
    """`count` calls, about half valid-shaped and half broken, plus the odd unknown tool."""
    rng = random.Random(seed)
    tools = sorted(schemas)
    for _ in range(count):
        roll = rng.random()
        if roll < 0.01:
            yield Call(rng.choice(("nope", "", "read-file", "READ_FILE", "a" * 500)), {}, "unknown_tool", True)
            continue
        tool = rng.choice(tools)
        if roll < 0.5:
            yield Call(tool, valid_call(tool, schemas[tool], rng), "valid", refused=False)
        else:
            yield broken_call(tool, schemas[tool], rng)


def compact(payload: Any) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def call_message(request_id: int, call: Call) -> bytes:
    """The call as a compact tools/call request."""
    params = {"name": call.tool, "arguments": call.arguments}
    return compact({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


# --------------------------------------------------------------------------------------------------------------
# fuzz_raw.py: Seeded raw JSON-RPC messages for the transports, each with the ids its answer must carry: lone
# surrogate escapes (in an argument, the tool name, the method, a key, the id), deep nesting, params that are not an
# object, wrong jsonrpc, batches, odd and missing ids, garbage, cut, non-UTF-8 and oversized messages (the id first or
# last), CRs as JSON whitespace, a leading byte-order mark. Whatever has no id to be found is answered with id null
# (None); only a notification or a blank line is not answered at all.


@dataclass(frozen=True)
class Raw:
    """A raw message: its bytes, and the ids its answers must carry (None: id null; none: no answer at all)."""

    data: bytes
    answer_ids: tuple[Any, ...]
    kind: str


def raw_messages(seed: int, count: int, *, line_bound: int) -> Iterator[Raw]:
    """Malformed (and some well-formed) JSON-RPC messages with unique ids, for stdio lines and HTTP bodies."""
    rng = random.Random(seed)
    for n in range(count):
        rid = 1_000_000 + n
        read = {"name": "read_file", "arguments": {"agent_id": "fuzz-a", "path": rng.choice(PATHS)}}
        request = {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": read}
        kind = rng.choice(RAW_KINDS)
        yield RAW_BUILDERS[kind](rng, rid, request, line_bound)


def _surrogate_in(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    where = rng.choice(("path", "name", "method", "key"))
    escape = rng.choice(("\\ud800", "\\udfff", "\\udc00x", "\\ud83d"))
    text = compact(request).decode()
    if where == "path":
        text = text.replace('"path":"', f'"path":"{escape}', 1)
    elif where == "name":
        text = text.replace('"read_file"', f'"read{escape}_file"', 1)
    elif where == "method":
        text = text.replace('"tools/call"', f'"tools/{escape}"', 1)
    else:
        text = text.replace('"agent_id"', f'"agent{escape}"', 1)
    return Raw(text.encode(), (rid,), f"surrogate_{where}")


def _surrogate_id(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    text = compact({**request, "id": "__ID__"}).decode().replace('"__ID__"', f'"s{rid}\\ud800"')
    return Raw(text.encode(), (f"s{rid}\ud800",), "surrogate_id")


def _nested(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    levels = rng.choice((150, 199, 202, 300, 1000, 5000))
    body = {**request, "params": {"name": "read_file", "arguments": {"agent_id": "fuzz-a", "path": "__DEEP__"}}}
    data = compact(body).replace(b'"__DEEP__"', b"[" * levels + b"1" + b"]" * levels)
    return Raw(data, (rid,), "nested")


def _params(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    params = rng.choice(([1, 2], "text", 3, True, []))
    return Raw(compact({**request, "params": params}), (rid,), "params_not_object")


def _version(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    body = {**request, "jsonrpc": rng.choice(("1.0", "2", 2.0, None, ""))}
    if rng.random() < 0.3:
        del body["jsonrpc"]
    return Raw(compact(body), (rid,), "jsonrpc_version")


def _batch(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    items: list[Any] = [{**request, "id": f"b{rid}-{i}"} for i in range(rng.randrange(0, 4))]
    items.insert(0, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    ids = tuple(item["id"] for item in items if "id" in item) or (None,)  # a notification alone: one answer, id null
    return Raw(compact(items), ids, "batch")


def _odd_id(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    choice = rng.choice(("huge", "negative", "float", "string", "empty_string", "long_string"))
    value: Any = {
        "huge": 10**30 + rid,
        "negative": -rid,
        "float": rid + 0.5,
        "string": f"id-{rid}",
        "empty_string": "",
        "long_string": f"{rid}-" + "i" * 5000,
    }[choice]
    return Raw(compact({**request, "id": value}), (value,), f"id_{choice}")


def _no_id(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    body = {k: v for k, v in request.items() if k != "id"}
    if rng.random() < 0.5:
        body["id"] = rng.choice((None, True, {"a": 1}, [1]))
    if body.get("id") is None:
        return Raw(compact(body), (), "no_id")  # a notification (id null too, to the SDK): not answered
    return Raw(compact(body), (None,), "no_id_wrong_type")  # an invalid request whose id cannot be used: id null


def _garbage(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    full = compact(request)
    choice = rng.choice(("cut", "bytes", "text", "number", "utf8", "nan", "trailing"))
    if choice == "cut":
        data = full[: rng.randrange(len(full) // 2, len(full) - 1)]
        return Raw(data, (rid,), "cut")  # the id comes before params, so it can still be answered
    if choice == "utf8":
        return Raw(full.replace(b'"path":"', b'"path":"\xff\xfe', 1), (rid,), "invalid_utf8")
    if choice == "nan":
        return Raw(full.replace(b'"path":"', b'"x":NaN,"path":"', 1), (rid,), "nan")
    if choice == "trailing":
        return Raw(full + b" }", (rid,), "trailing")
    data = {
        "bytes": bytes(rng.randrange(1, 256) for _ in range(rng.randrange(1, 64))).replace(b"\n", b""),
        "text": rng.choice((b"hello", b"{", b"}", b"[]", b"null", b'"str"', b"{}", b'{"jsonrpc":"2.0"}')),
        "number": str(rng.randrange(10**6)).encode(),
    }[choice]
    blank = not data.strip(b" \t\r")  # stdio skips a blank line; HTTP answers any body
    return Raw(data, () if blank else (None,), f"garbage_{choice}")


def _cr(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    data = compact(request).replace(b",", b",\r", rng.randrange(1, 4))
    return Raw(data, (rid,), "cr_whitespace")


def _oversized(rng: random.Random, rid: int, request: dict[str, Any], bound: int) -> Raw:
    arguments = {"agent_id": "fuzz-a", "path": "big.md", "content": "y" * (bound + rng.randrange(1, 4096))}
    body = {**request, "params": {"name": "write_file", "arguments": arguments}}
    if rid % 2:  # the id as the last key (a nested "id" ahead of it is not the request's)
        body = {**{k: v for k, v in body.items() if k != "id"}, "id": rid}
        arguments["id"] = "nested"
        return Raw(compact(body), (rid,), "oversized_id_last")
    return Raw(compact(body), (rid,), "oversized")


def _valid(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    method = rng.choice(("ping", "tools/list", "tools/call", "nope/method"))
    body = request if method == "tools/call" else {"jsonrpc": "2.0", "id": rid, "method": method}
    if rid % 5 == 0:
        return Raw(b"\xef\xbb\xbf" + compact(body), (rid,), f"valid_{method}_bom")  # a UTF-8 byte-order mark first
    return Raw(compact(body), (rid,), f"valid_{method}")


RAW_BUILDERS = {
    "surrogate": _surrogate_in,
    "surrogate_id": _surrogate_id,
    "nested": _nested,
    "params": _params,
    "version": _version,
    "batch": _batch,
    "odd_id": _odd_id,
    "no_id": _no_id,
    "garbage": _garbage,
    "cr": _cr,
    "oversized": _oversized,
    "valid": _valid,
}
RAW_KINDS = tuple(kind for kind in RAW_BUILDERS for _ in range(1 if kind == "oversized" else 4))


# --------------------------------------------------------------------------------------------------------------
# fuzz_checks.py: What every fuzzed answer must satisfy, and a cheap, exact test that a call changed nothing in a
# SQLite store.


# Internals that must never reach a client: tracebacks, source or file-system paths, SQL, drivers, pydantic.
LEAK = re.compile(
    r"Traceback|File \"|\.py\", line|site-packages|/work/|/tmp/|/usr/|sqlite|psycopg|sqlalchemy|SQLAlchemy"
    r"|\bSELECT\b|\bINSERT\b|\bUPDATE \w+ SET\b|\bDELETE FROM\b|pydantic|ValidationError|validation errors? for"
    r"|union\[|JSONRPCRequest|JSONRPCNotification|\[type=|input_value=|Exception|Error\(|0x[0-9a-f]{8,}"
)
JSONRPC_CODES = {-32700, -32600, -32601, -32602, -32603, -32000, -32002}


def assert_clean(text: str, context: object) -> None:
    found = LEAK.search(text)
    assert found is None, f"{found.group(0)!r} leaked into {text[:300]!r} (for {str(context)[:300]})"


def assert_error_reply(reply: dict[str, Any], context: object) -> None:
    """A JSON-RPC error as the protocol has it: a known code and a clean one-line message."""
    error = reply["error"]
    assert error["code"] in JSONRPC_CODES, (reply, context)
    assert isinstance(error["message"], str) and error["message"] and "\n" not in error["message"], reply
    assert_clean(error["message"], context)


def assert_reply(reply: dict[str, Any], context: object) -> None:
    """A valid JSON-RPC answer: a result (tool errors in it clean too) or a clean error."""
    assert reply.get("jsonrpc") == "2.0", reply
    assert ("result" in reply) != ("error" in reply), reply
    if "error" in reply:
        assert_error_reply(reply, context)
        return
    result = reply["result"]
    assert isinstance(result, dict), reply
    if result.get("isError"):
        for item in result.get("content", []):
            assert_clean(item.get("text", ""), context)


def assert_answer(reply: dict[str, Any], commits: Commits, before: int, context: object, *, must_refuse: bool) -> bool:
    """A valid answer; if it refuses (a JSON-RPC error or a tool error), nothing was committed since `before`.
    Returns whether it refused."""
    assert_reply(reply, context)
    refused = "error" in reply or bool(reply["result"].get("isError"))
    if refused:
        assert commits.version() == before, f"a refused call committed: {context}"
    if must_refuse:
        assert refused, (context, reply)
    return refused


def assert_call_answer(reply: dict[str, Any], request_id: int, call: Call, commits: Commits, before: int) -> str:
    """The answer to a generated call: its id, and assert_answer's rules. Returns its outcome, e.g. nul:refused."""
    assert reply.get("id") == request_id, (call, reply)
    refused = assert_answer(reply, commits, before, call, must_refuse=call.refused)
    return f"{call.kind}:{'refused' if refused else 'ok'}"


class Commits:
    """Counts other connections' commits to a SQLite file (PRAGMA data_version changes on each one)."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def version(self) -> int:
        value: int = self._db.execute("PRAGMA data_version").fetchone()[0]
        return value

    def close(self) -> None:
        self._db.close()


def assert_http_answer(status: int, body: Any, raw: Raw, commits: Commits, before: int) -> None:
    """An HTTP answer to a raw body: one JSON-RPC answer per id it had (id null when it had none), a refusal
    with a 4xx status (or 200, the SDK's own method errors) that committed nothing."""
    answers = body if isinstance(body, list) else [body]
    for reply in answers:
        assert_reply(reply, raw.kind)
        if "error" in reply:
            assert status in (200, 400, 413), (raw.kind, status)
            assert commits.version() == before, f"a refused {raw.kind} committed"
    expected = [repr(i) for i in raw.answer_ids] or ["None"]
    if raw.kind == "oversized_id_last" and status == 413 and body.get("id") is None:
        expected = ["None"]  # refused after its first part, as a server does with a Content-Length over the bound
    assert sorted(repr(reply["id"]) for reply in answers) == sorted(expected), (raw.kind, str(body)[:300])


# --------------------------------------------------------------------------------------------------------------
# fuzz_stdio.py: Fuzzing over stdio: a server process fed raw bytes on stdin (its stdout read line by line with
# timeouts), and the runs the tests and bench/fuzz.py share: generated tool calls as raw lines, malformed JSON-RPC
# envelopes.


class RawStdio:
    def __init__(self, command: list[str], env: dict[str, str], stderr: IO[bytes]) -> None:
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float) -> dict[str, Any]:
        """The next line the server writes, parsed; fails on a timeout (a hang) or the end of stdout (a death)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        assert line is not None, f"the server closed stdout (exit code {self.process.poll()})"
        assert line.endswith(b"\n")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self, timeout: float) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# Kinds the server takes as they are (a CR as JSON whitespace, any string or integer id); all others are refused.
ANSWERED_AS_SENT = ("valid_", "cr_", "id_string", "id_huge", "id_negative", "id_empty_string", "id_long_string")


def handshake(server: RawStdio, timeout: float) -> dict[str, dict[str, Any]]:
    """initialize (2025-11-25) and tools/list; each tool's input schema by name."""
    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}
    server.send(compact({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}))
    assert "result" in server.reply(timeout)
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    server.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    return {tool["name"]: tool["inputSchema"] for tool in server.reply(timeout)["result"]["tools"]}


def call_lines(
    server: RawStdio, commits: Commits, schemas: dict[str, dict[str, Any]], seed: int, count: int, timeout: float
) -> Counter[str]:
    """Generated tool calls as raw lines, one at a time: each answered with its id, a refusal committing nothing."""
    outcomes: Counter[str] = Counter()
    for n, generated in enumerate(calls(schemas, seed, count)):
        before = commits.version()
        server.send(call_message(n, generated))
        outcomes[assert_call_answer(server.reply(timeout), n, generated, commits, before)] += 1
    return outcomes


def envelopes(server: RawStdio, commits: Commits, seed: int, count: int, bound: int, timeout: float) -> Counter[str]:
    """Malformed JSON-RPC lines: every id answered once (a batch: each of its ids; none to be found: id null),
    nothing else written, and the server still answering a ping after each line it must not answer."""
    kinds: Counter[str] = Counter()
    for n, raw in enumerate(raw_messages(seed, count, line_bound=bound)):
        before = commits.version()
        server.send(raw.data)
        answered = []
        for _ in raw.answer_ids:
            reply = server.reply(timeout)
            assert_answer(reply, commits, before, raw.kind, must_refuse=not raw.kind.startswith(ANSWERED_AS_SENT))
            answered.append(reply["id"])
        assert sorted(map(repr, answered)) == sorted(map(repr, raw.answer_ids)), (raw.kind, raw.data[:200])
        if not raw.answer_ids:
            server.send(b'{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}' % n)
            assert server.reply(timeout) == {"jsonrpc": "2.0", "id": f"ping-{n}", "result": {}}, raw.kind
        kinds[raw.kind] += 1
    return kinds


# --------------------------------------------------------------------------------------------------------------
# fuzz


MAX_FILE_BYTES = 64 * 1024
LINE_BOUND = 6 * MAX_FILE_BYTES + 64 * 1024  # scratchpad_mcp.wire.max_message_bytes of those limits
TIMEOUT = 30.0
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def environment(db: Path, **more: str) -> dict[str, str]:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRATCHPAD_", "ANTHROPIC_", "MCP_"))}
    # No background index pass: its commits (the backlog the calls' writes left) would count as a refused call's.
    env.update(SCRATCHPAD_DB_PATH=str(db), SCRATCHPAD_MAX_FILE_BYTES=str(MAX_FILE_BYTES), SCRATCHPAD_INDEX_EVERY="0")
    env.update(more)
    return env


def over_stdio(folder: Path, seed: int, count: int, raw: int) -> Counter[str]:
    db = folder / "stdio.db"
    with (folder / "stdio.stderr").open("wb") as errlog:
        server = RawStdio(server_command(), environment(db, SCRATCHPAD_LOG_LEVEL="WARNING"), errlog)
        try:
            schemas = handshake(server, TIMEOUT)
            commits = Commits(db)
            try:
                seen = call_lines(server, commits, schemas, seed, count, TIMEOUT)
                kinds = envelopes(server, commits, seed, raw, LINE_BOUND, TIMEOUT)
                seen.update({f"raw {kind}": n for kind, n in kinds.items()})
            finally:
                commits.close()
            assert server.close(TIMEOUT) == 0, "the server did not end cleanly at the end of stdin"
        finally:
            server.kill()
    return seen


def over_http(folder: Path, seed: int, count: int, raw: int) -> Counter[str]:
    import subprocess

    import httpx2

    db = folder / "http.db"
    port = free_port()
    env = environment(db, MCP_TRANSPORT="http", PORT=str(port), SCRATCHPAD_AUTH="none", SCRATCHPAD_LOG_LEVEL="WARNING")
    log = folder / "http.stderr"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            server_command(), env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
        )
    server = ServerProcess("http", port, process, log)
    seen: Counter[str] = Counter()
    try:
        server.wait_healthy(TIMEOUT * 2)
        with httpx2.Client(base_url=server.base, headers=HEADERS, timeout=TIMEOUT) as http:
            listed = http.post("/mcp", content=b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}').json()
            schemas = {tool["name"]: tool["inputSchema"] for tool in listed["result"]["tools"]}
            commits = Commits(db)
            try:
                for n, generated in enumerate(calls(schemas, seed, count)):
                    before = commits.version()
                    reply = http.post("/mcp", content=call_message(n, generated)).json()
                    seen[assert_call_answer(reply, n, generated, commits, before)] += 1
                for message in raw_messages(seed, raw, line_bound=LINE_BOUND):
                    before = commits.version()
                    response = http.post("/mcp", content=message.data)
                    accepted = not message.answer_ids and response.status_code == 202  # a notification taken
                    if not accepted:
                        assert_http_answer(response.status_code, response.json(), message, commits, before)
                    seen[f"raw {message.kind}"] += 1
            finally:
                commits.close()
        assert process.poll() is None, "the HTTP server died"
    finally:
        server.stop()
    return seen


def report(transport: str, seen: Counter[str], seconds: float) -> None:
    total = sum(seen.values())
    print(f"\n{transport}: {total:,} messages in {seconds:.1f} s ({total / seconds:,.0f}/s), all answered as required")
    for kind, n in sorted(seen.items()):
        print(f"  {kind:32} {n:7,}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--calls", type=int, default=50_000, help="generated tool calls per transport (50,000)")
    parser.add_argument("--raw", type=int, default=20_000, help="malformed JSON-RPC messages per transport (20,000)")
    parser.add_argument("--seed", type=int, default=1, help="the generators' seed (1); a failure repeats with it")
    parser.add_argument("--no-http", action="store_true", help="stdio only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="scratchpad-fuzz-") as folder:
        runs = [("stdio", over_stdio)] + ([] if args.no_http else [("http", over_http)])
        for transport, run in runs:
            started = time.monotonic()
            try:
                seen = run(Path(folder), args.seed, args.calls, args.raw)
            except AssertionError as failure:
                stderr = (Path(folder) / f"{transport}.stderr").read_text(errors="replace")
                print(f"FAILED over {transport} (seed {args.seed}): {str(failure)[:2000]}", file=sys.stderr)
                print(f"the server's last log lines:\n{stderr[-3000:]}", file=sys.stderr)
                return 1
            report(transport, seen, time.monotonic() - started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
