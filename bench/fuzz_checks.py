"""What every fuzzed answer must satisfy, and a cheap, exact test that a call changed nothing in a SQLite store."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

from bench.fuzz_cases import Call
from bench.fuzz_raw import Raw

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
