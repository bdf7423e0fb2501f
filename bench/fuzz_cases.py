"""Seeded tool calls from each tool's input schema: valid-shaped, or deliberately broken (wrong types, missing and
extra fields, huge integers, megabyte strings, NUL, unicode and traversal paths, deep nesting)."""

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


def compact(payload: Any) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def call_message(request_id: int, call: Call) -> bytes:
    """The call as a compact tools/call request."""
    params = {"name": call.tool, "arguments": call.arguments}
    return compact({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})
