"""Use-case results to MCP tool results: structured content plus the same JSON as compact text."""

from __future__ import annotations

import dataclasses
import json
import typing
from collections.abc import Callable
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic_core import PydanticSerializationError, to_json

_SCALARS = frozenset({str, int, float, bool, type(None)})
Convert = Callable[[Any], Any]
_CONVERTERS: dict[type, Convert] = {}  # each result dataclass's conversion, worked out once


def plain(value: Any) -> Any:
    """Dataclasses to dicts, leaving out fields that are None (once per reply: a listing has thousands of rows)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    convert = _CONVERTERS.get(kind)
    if convert is not None:
        return convert(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    convert = _CONVERTERS[kind] = _converter(kind)
    return convert(value)


def _converter(kind: type) -> Convert:
    """How plain() turns one dataclass into a dict. A row of scalars (a listing's file, a log entry) is copied off
    its instance dict, which holds its fields in their order (a dataclass's __init__ sets them), then loses the
    fields that may be None and are; anything else goes field by field."""
    names = tuple(field.name for field in dataclasses.fields(kind))
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        hints = {}
    types = {name: set(typing.get_args(hints.get(name)) or {hints.get(name)}) for name in names}
    optional = tuple(name for name in names if type(None) in types[name])
    count = len(names)

    def by_field(value: Any) -> dict[str, Any]:
        return {
            name: item if type(item) in _SCALARS else plain(item)
            for name in names
            if (item := getattr(value, name)) is not None
        }

    if hasattr(kind, "__slots__") or not all(found <= _SCALARS for found in types.values()):
        return by_field

    def flat(value: Any) -> dict[str, Any]:
        fields: dict[str, Any] = vars(value)
        if len(fields) != count:  # something else lives on the instance: not a plain row
            return by_field(value)
        row = fields.copy()
        for name in optional:
            if row[name] is None:
                del row[name]
        return row

    return flat


def compact_json(payload: Any) -> str:
    """Compact JSON with non-ASCII characters as they are. pydantic_core writes the same text as json.dumps with
    these options for what a result holds (strings, integers, booleans, None, lists, dicts with string keys),
    about four times as fast on a listing of 1,000 files (issue 9); json's encoder takes what it refuses (a lone
    surrogate). Not for floats (1e-07 comes out as 1e-7) or keys that are not strings: no result holds any."""
    try:
        return to_json(payload).decode()
    except PydanticSerializationError:
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def success(result: Any) -> CallToolResult:
    payload = plain(result)
    return CallToolResult(content=[TextContent(type="text", text=compact_json(payload))], structured_content=payload)


def failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def encoded_response(request_id: Any, reply: CallToolResult | None) -> bytes:
    """The JSON-RPC response carrying `reply` (None: an empty result), as the SDK's pipeline writes it for a 2025
    revision (the same keys in the same order), with the payload encoded once: a success's text is its structured
    content's compact JSON (see success), so it goes in as it is rather than being serialized a second time."""
    if reply is None:
        return f'{{"jsonrpc":"2.0","id":{compact_json(request_id)},"result":{{}}}}'.encode()
    block = reply.content[0]
    text = block.text if isinstance(block, TextContent) else ""
    head = f'{{"jsonrpc":"2.0","id":{compact_json(request_id)},"result":{{"content":[{{"text":{compact_json(text)}'
    tail = "" if reply.structured_content is None else f',"structuredContent":{text}'
    return f'{head},"type":"text"}}],"isError":{compact_json(reply.is_error)}{tail}}}}}'.encode()
