"""Seeded raw JSON-RPC messages for the transports, each with the ids its answer must carry: lone surrogate escapes
(in an argument, the tool name, the method, a key, the id), deep nesting, params that are not an object, wrong
jsonrpc, batches, odd and missing ids, garbage, cut, non-UTF-8 and oversized messages (the id first or last), CRs
as JSON whitespace, a leading byte-order mark. Whatever has no id to be found is answered with id null (None); only
a notification or a blank line is not answered at all."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from bench.fuzz_cases import PATHS, compact


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
