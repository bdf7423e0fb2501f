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
    assert len(TOOLS) == 15
