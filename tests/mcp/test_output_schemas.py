"""Output schemas a client validates every reply against, and the tools without one: a reply holding a list of rows
is text only (a client would parse, validate and copy each of 1,000 rows as structured content); every other reply
matches its schema."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from jsonschema.validators import validator_for  # type: ignore[import-untyped]
from mcp import Client

from scratchpad_mcp.server.replies import plain
from scratchpad_mcp.server.schemas import lists_rows
from tests.mcp.helpers import TEXT_ONLY, check_reply

pytestmark = pytest.mark.anyio

LISTS = {  # the tools replying with lists of rows, and the list
    "list_files": "files",
    "read_log": "entries",
    "list_logs": "logs",
    "list_versions": "versions",
    "search_files": "matches",
}


async def test_lists_of_rows_reply_in_text_without_an_output_schema(client: Client) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert {name for name, tool in tools.items() if tool.output_schema is None} == set(LISTS) == TEXT_ONLY
    usage = tools["get_usage_stats"].output_schema
    assert usage is not None and usage["properties"]["quota"] == {"$ref": "#/$defs/Quota"}  # objects keep theirs
    assert "Quota" in usage["$defs"]


async def test_every_reply_matches_its_output_schema_or_is_text_only(client: Client) -> None:
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
        "read_file": {"path": "notes/a.md"},
    }
    for name, arguments in calls.items():
        result = await client.call_tool(name, {**agent, **arguments})
        reply = check_reply(result)
        schema = tools[name].output_schema
        if name in LISTS:
            assert schema is None and result.structured_content is None, name
            assert reply[LISTS[name]], name  # the rows are in the text
            continue
        assert schema is not None and result.structured_content == reply, name
        assert not list(validator_for(schema)(schema).iter_errors(reply)), name


def test_lists_rows_finds_lists_of_objects_only() -> None:
    row = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}}
    rows: dict[str, Any] = {
        "type": "object",
        "$defs": {"Row": row},
        "properties": {"rows": {"type": "array", "items": {"$ref": "#/$defs/Row"}}},
    }
    assert lists_rows(rows)
    one: dict[str, Any] = {
        "type": "object",
        "$defs": {"Row": row},
        "properties": {"first": {"$ref": "#/$defs/Row"}, "names": {"type": "array", "items": {"type": "string"}}},
    }
    assert not lists_rows(one)


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
