"""Lean JSON schemas: what a model reads about every tool, every turn, without pydantic's bloat.

pydantic writes a `title` for every property and for the root, and an optional argument as
`anyOf: [T, null]` with `default: null`. A model needs neither: an optional argument is a plain
type that is simply not required. Input schemas also say `additionalProperties: false`, which
the server enforces (an unknown argument is refused, never ignored).
"""

from __future__ import annotations

import json
from typing import Any

_NULL = {"type": "null"}


def lean(schema: dict[str, Any], *, closed: bool = False) -> dict[str, Any]:
    """`schema` without titles or nullable wrappers; `closed` adds additionalProperties: false at the root."""
    result: dict[str, Any] = _lean(schema)
    if closed:
        result["additionalProperties"] = False
    return result


def _lean(node: Any) -> Any:
    if isinstance(node, list):
        return [_lean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _lean(sub) for name, sub in value.items()}
        else:
            out[key] = _lean(value)
    return _without_null(out)


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """`anyOf: [T, null]` (default null) becomes T; with several non-null choices only null is dropped."""
    choices = node.get("anyOf")
    if not isinstance(choices, list) or _NULL not in choices:
        return node
    rest = [choice for choice in choices if choice != _NULL]
    node = {key: value for key, value in node.items() if key != "anyOf"}
    if node.get("default", ...) is None:
        del node["default"]
    if len(rest) == 1:
        return {**rest[0], **node}
    return {"anyOf": rest, **node}


def unchecked_rows(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema whose lists of objects name their rows' fields in a description instead of a row schema.

    A client validates a reply against its tool's output schema, every row against the row schema (jsonschema in
    the Python SDK: ~40 ms for 1,000 files, more than the call itself); a list stays a list, rows go unchecked.
    """
    definitions = schema.get("$defs", {})
    properties = {}
    for name, prop in schema.get("properties", {}).items():
        row = prop.get("items", {}).get("$ref", "") if prop.get("type") == "array" else ""
        fields = definitions.get(row.removeprefix("#/$defs/"), {}).get("properties")
        properties[name] = {"type": "array", "description": f"of {{{', '.join(fields)}}}"} if fields else prop
    result = {**schema, "properties": properties}
    text = json.dumps(result)
    used = {key: value for key, value in definitions.items() if f'"#/$defs/{key}"' in text}
    if used:
        result["$defs"] = used
    else:
        result.pop("$defs", None)
    return result


def property_names(schema: dict[str, Any]) -> list[str]:
    return list(schema.get("properties", {}))
