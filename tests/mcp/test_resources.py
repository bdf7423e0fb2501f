"""Files as resources, through a real MCP client on both protocol revisions: listed by cursor with their metadata,
read as text, named by a template; a missing or foreign URI is the protocol's resource-not-found error."""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server.resources import PAGE
from tests.mcp.conftest import serve

pytestmark = pytest.mark.anyio

MODES = ["legacy", "auto"]  # the 2025-11-25 handshake, and the 2026-07-28 discover mode


@pytest.fixture(params=MODES)
async def connected(request: pytest.FixtureRequest, store: Scratchpad) -> AsyncIterator[Client]:
    async with Client(serve(store), mode=request.param) as client:
        yield client


def uri(agent: str, path: str) -> str:
    return f"scratchpad://agents/{agent}/files/{path}"


async def test_files_are_listed_with_their_metadata(connected: Client, store: Scratchpad) -> None:
    store.write_file("bot", "notes/plan.md", "step 1\n")
    store.write_file("bot", "notes/plan.md", "step 1\nstep 2\n")
    store.write_file("bot", "data.json", '{"a": 1}')
    store.write_file("other", "a.txt", "x")
    store.write_file("bot", "gone.md", "soon deleted")
    store.delete_file("bot", "gone.md")
    listing = await connected.list_resources()
    assert listing.next_cursor is None
    by_uri = {r.uri: r for r in listing.resources}
    assert list(by_uri) == [uri("bot", "data.json"), uri("bot", "notes/plan.md"), uri("other", "a.txt")]
    plan = by_uri[uri("bot", "notes/plan.md")]
    assert (plan.name, plan.size, plan.mime_type, plan.meta) == (
        "bot/notes/plan.md",
        14,
        "text/markdown",
        {"version": 2},
    )
    assert by_uri[uri("bot", "data.json")].mime_type == "application/json"
    assert by_uri[uri("other", "a.txt")].mime_type == "text/plain"
    assert plan.annotations is not None and plan.annotations.last_modified is not None
    modified = datetime.datetime.fromisoformat(plan.annotations.last_modified)
    updated = store.list_files("bot").files[1].updated_at
    assert abs(modified.timestamp() * 1000 - updated) < 1


async def test_a_long_listing_pages_by_cursor(connected: Client, store: Scratchpad) -> None:
    paths = [f"f{n:03}.md" for n in range(PAGE * 2 + 5)]
    for path in paths:
        store.write_file("many", path, path)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await connected.list_resources(cursor=cursor)
        pages += 1
        seen += [r.uri for r in page.resources]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert pages == 3
    assert seen == [uri("many", path) for path in paths]


async def test_a_file_reads_as_its_current_text(connected: Client, store: Scratchpad) -> None:
    store.write_file("bot", "notes/plan.md", "old\n")
    store.write_file("bot", "notes/plan.md", "<b>new</b>\n")
    read = await connected.read_resource(uri("bot", "notes/plan.md"), cache_mode="bypass")
    (content,) = read.contents
    assert (content.text, content.mime_type, content.meta) == ("<b>new</b>\n", "text/markdown", {"version": 2})  # type: ignore[union-attr]
    assert (read.ttl_ms, read.cache_scope) == (0, "private")


async def test_the_template_names_any_agents_file(connected: Client) -> None:
    templates = (await connected.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == [
        "scratchpad://agents/{agent_id}/files/{path}",
        "scratchpad://agents/{agent_id}/changes",  # read_changes' cursor (issue 31)
    ]


@pytest.mark.parametrize(
    "bad",
    [
        uri("bot", "missing.md"),
        uri("nobody", "notes/plan.md"),
        "scratchpad://files/notes/plan.md",  # the keyed form: over stdio a URI names its agent
        "scratchpad://agents/bot/files/../secret",
        "scratchpad://agents/b@d/files/notes/plan.md",
        "scratchpad://agents/bot/files/notes%2Fplan.md",  # a path needs no escapes: an escape names no file
        "file:///etc/passwd",
    ],
)
async def test_a_uri_that_names_no_file_is_not_found(connected: Client, store: Scratchpad, bad: str) -> None:
    store.write_file("bot", "notes/plan.md", "x")
    with pytest.raises(MCPError) as raised:
        await connected.read_resource(bad, cache_mode="bypass")
    assert raised.value.error.code == INVALID_PARAMS
    assert "Resource not found" in raised.value.error.message
    assert raised.value.error.data == {"uri": bad}


async def test_a_deleted_file_is_not_found_and_leaves_the_listing(connected: Client, store: Scratchpad) -> None:
    store.write_file("bot", "plan.md", "x")
    assert [r.uri for r in (await connected.list_resources(cache_mode="bypass")).resources] == [uri("bot", "plan.md")]
    store.delete_file("bot", "plan.md")
    assert (await connected.list_resources(cache_mode="bypass")).resources == []
    with pytest.raises(MCPError):
        await connected.read_resource(uri("bot", "plan.md"), cache_mode="bypass")


async def test_a_bad_cursor_is_refused(connected: Client) -> None:
    with pytest.raises(MCPError) as raised:
        await connected.list_resources(cursor="not a cursor")
    assert raised.value.error.code == INVALID_PARAMS
    assert "cursor" in raised.value.error.message
