"""Use-case results to MCP tool results: structured content plus the same JSON as compact text."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from mcp.types import CallToolResult, TextContent


def plain(value: Any) -> Any:
    """Dataclasses to dicts, leaving out fields that are None."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(item) for f in dataclasses.fields(value) if (item := getattr(value, f.name)) is not None}
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def compact_json(payload: Any) -> str:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def success(result: Any) -> CallToolResult:
    payload = plain(result)
    return CallToolResult(content=[TextContent(type="text", text=compact_json(payload))], structured_content=payload)


def failure(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)
