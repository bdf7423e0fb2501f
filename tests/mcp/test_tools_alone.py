"""Each tool is a module-level function that can be read and run alone: given the Calls it runs with and its
arguments, it returns the use case, which runs against a real store for the agent it is given."""

from __future__ import annotations

import pytest
from mcp import Client

from scratchpad_core.results import Space
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server.tools import TOOLS, files, logs, overview
from scratchpad_mcp.server.tools.arguments import Calls
from tests.mcp.conftest import serve


def calls_on(store: Scratchpad, spaces: list[Space] | None = None) -> Calls:
    return Calls(store, max_read_bytes=None, actor=lambda: "test", spaces=lambda: spaces)


def test_a_file_tool_runs_alone(store: Scratchpad) -> None:
    calls = calls_on(store)
    written = files.write_file(calls, "me", "notes.md", "one\ntwo\n")("me")
    assert (written.path, written.version) == ("notes.md", 1)
    edited = files.edit_file(calls, "me", "notes.md", "two", "2")("me")
    assert edited.version == 2
    read = files.read_file(calls, "me", "notes.md")("me")
    assert read.content == "one\n2\n"
    assert store.list_versions("me", "notes.md").versions[-1].by == "test"  # the actor the Calls name


def test_a_log_tool_runs_alone(store: Scratchpad) -> None:
    calls = calls_on(store)
    assert logs.append_log(calls, "me", "run.log", "started")("me").entry_id == 1
    page = logs.read_log(calls, "me", "run.log")("me")
    assert [entry.entry for entry in page.entries] == ["started"]


def test_usage_lists_the_spaces_of_the_keys_own_agent(store: Scratchpad) -> None:
    spaces = [Space("me", "write"), Space("team", "read")]
    assert overview.get_usage_stats(calls_on(store, spaces), "me")("me").spaces == spaces
    assert overview.get_usage_stats(calls_on(store, spaces), "team")("team").spaces is None


@pytest.mark.anyio
async def test_the_table_is_the_servers_tools_in_order(store: Scratchpad) -> None:
    async with Client(serve(store)) as client:
        listed = await client.list_tools()
    assert [tool.name for tool in listed.tools] == [tool.function.__name__ for tool in TOOLS]
    assert len(TOOLS) == 16


def test_read_changes_alone_pages_by_the_read_bound(store: Scratchpad) -> None:
    """Without max_bytes a page is bounded by the server's read bound, as read_file is."""
    store.write_file("me", "a.md", "x" * 300)
    store.write_file("me", "b.md", "y" * 300)
    bounded = Calls(store, 400, lambda: "test", lambda: None)
    first = overview.read_changes(bounded, "me")("me")
    assert first.has_more and len(first.items) == 1
    rest = overview.read_changes(bounded, "me", since=first.cursor)("me")
    assert not rest.has_more and [item["path"] for item in first.items + rest.items] == ["a.md", "b.md"]
