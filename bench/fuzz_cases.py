"""Seeded generators: tool calls from each tool's input schema (valid-shaped or deliberately broken), and raw
JSON-RPC messages for the transports (broken envelopes, batches, odd ids, garbage, deep nesting)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

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


def call_message(request_id: int, call: Call) -> bytes:
    """The call as a compact tools/call request."""
    params = {"name": call.tool, "arguments": call.arguments}
    return compact({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


@dataclass(frozen=True)
class Raw:
    """A raw message: its bytes, and the id its answer must carry (None: nothing to answer)."""

    data: bytes
    answer_ids: tuple[Any, ...]
    kind: str


def compact(payload: Any) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


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
    ids = tuple(item["id"] for item in items if "id" in item)
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
    return Raw(compact(body), (), "no_id")


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
    return Raw(data, (), f"garbage_{choice}")


def _cr(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    data = compact(request).replace(b",", b",\r", rng.randrange(1, 4))
    return Raw(data, (rid,), "cr_whitespace")


def _oversized(rng: random.Random, rid: int, request: dict[str, Any], bound: int) -> Raw:
    body = {**request, "params": {"name": "write_file", "arguments": {"agent_id": "fuzz-a", "path": "big.md"}}}
    body["params"]["arguments"]["content"] = "y" * (bound + rng.randrange(1, 4096))
    return Raw(compact(body), (rid,), "oversized")


def _valid(rng: random.Random, rid: int, request: dict[str, Any], _: int) -> Raw:
    method = rng.choice(("ping", "tools/list", "tools/call", "nope/method"))
    body = request if method == "tools/call" else {"jsonrpc": "2.0", "id": rid, "method": method}
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
