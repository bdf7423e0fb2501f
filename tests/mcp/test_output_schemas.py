"""Output schemas a client validates every reply against: lists keep their type and name their rows' fields, but
carry no row schema (a client would check each of 1,000 rows), and every reply still matches its schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from jsonschema.validators import validator_for  # type: ignore[import-untyped]
from mcp import Client

from scratchpad_mcp.server.replies import plain
from scratchpad_mcp.server.schemas import unchecked_rows
from tests.mcp.helpers import check_reply

pytestmark = pytest.mark.anyio

LISTS = {
    "list_files": ("files", "of {path, current_version, bytes, created_at, updated_at}"),
    "read_log": ("entries", "of {id, entry, created_at, by}"),
    "list_logs": ("logs", "of {path, entries, bytes, last_entry_id, updated_at}"),
    "list_versions": ("versions", "of {version, bytes, lines, sha256, created_at, by}"),
    "search_files": ("matches", "of {path, line, end_line, entry, text}"),
}


async def test_lists_name_their_row_fields_without_a_row_schema(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name, (field, description) in LISTS.items():
        schema = tools[name].output_schema
        assert schema is not None
        assert schema["properties"][field] == {"type": "array", "description": description}, name
        assert "$defs" not in schema, name  # the row's definition went with its only use
    usage = tools["get_usage_stats"].output_schema
    assert usage is not None and usage["properties"]["quota"] == {"$ref": "#/$defs/Quota"}  # objects keep theirs
    assert "Quota" in usage["$defs"]


async def test_every_reply_matches_its_output_schema(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    agent = {"agent_id": "bot"}
    check_reply(await client.call_tool("write_file", {**agent, "path": "notes/a.md", "content": "one\ntwo\n"}))
    check_reply(await client.call_tool("append_log", {**agent, "path": "logs/run", "entry": "started"}))
    calls: dict[str, dict[str, Any]] = {
        "list_files": {},
        "read_log": {"path": "logs/run"},
        "list_logs": {},
        "list_versions": {"path": "notes/a.md"},
        "search_files": {"query": "two"},
        "get_usage_stats": {},
    }
    for name, arguments in calls.items():
        reply = check_reply(await client.call_tool(name, {**agent, **arguments}))
        schema = tools[name].output_schema
        assert schema is not None
        assert not list(validator_for(schema)(schema).iter_errors(reply)), name
        field = LISTS.get(name, ("", ""))[0]
        assert not field or reply[field], name  # a row to check against, had there been a row schema


def test_unchecked_rows_leaves_other_properties_and_shared_definitions() -> None:
    row = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
    schema: dict[str, Any] = {
        "type": "object",
        "$defs": {"Row": row},
        "properties": {
            "rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}},
            "first": {"$ref": "#/$defs/Row"},
            "names": {"type": "array", "items": {"type": "string"}},
        },
    }
    result = unchecked_rows(schema)
    assert result["properties"]["rows"] == {"type": "array", "description": "of {a, b}"}
    assert result["properties"]["first"] == {"$ref": "#/$defs/Row"}
    assert result["properties"]["names"] == {"type": "array", "items": {"type": "string"}}
    assert result["$defs"] == {"Row": row}  # still used by `first`
    assert schema["properties"]["rows"]["items"] == {"$ref": "#/$defs/Row"}  # the input is left as it was


@dataclass(frozen=True)
class Inner:
    name: str
    note: str | None = None


@dataclass(frozen=True)
class Outer:
    rows: list[Inner]
    by_key: dict[str, Inner]
    pair: tuple[int, int]
    missing: int | None = None


def test_plain_turns_dataclasses_into_dicts_without_none_fields() -> None:
    value = Outer([Inner("a"), Inner("b", "x")], {"k": Inner("c")}, (1, 2))
    assert plain(value) == {
        "rows": [{"name": "a"}, {"name": "b", "note": "x"}],
        "by_key": {"k": {"name": "c"}},
        "pair": (1, 2),
    }
    assert plain(value) == plain(value)  # the field names it caches give the same answer again
    assert plain(Inner) is Inner  # a class is a value, not a dataclass instance


@dataclass(frozen=True)
class Row:
    path: str
    size: int
    by: str | None = None


def test_plain_rows_of_scalars_are_copies_in_field_order() -> None:
    """A row of scalars is read off its instance in one step (scratchpad_mcp.server.replies): the same dict as field
    by field, in the fields' order, a copy (changing it changes nothing of the row), None left out where allowed."""
    row = Row("a.md", 3)
    out = plain(row)
    assert out == {"path": "a.md", "size": 3} and list(out) == ["path", "size"]
    out["size"] = 99
    assert row.size == 3 and plain(row) == {"path": "a.md", "size": 3}
    assert list(plain(Row("b.md", 1, "key:1"))) == ["path", "size", "by"]
    odd = Row("c.md", 2)
    object.__setattr__(odd, "cached", "not a field")  # something else on the instance: field by field instead
    assert plain(odd) == {"path": "c.md", "size": 2}
