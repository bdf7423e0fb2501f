"""search_files through a real MCP client, over stdio and over streamable HTTP (server processes): words by default
(passages and entries, best first), exact and regex as before, hostile and wordless queries, the definitions."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.helpers import START_TIMEOUT, console_script, ok, refused, server_env
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

A = {"agent_id": "finder"}
NOTES = "# Standup\nWe moved the API to Postgres on Monday.\nThe cache stays.\n\nDeployment is friday.\n"


async def scenario(client: Client) -> None:
    await ok(client, "write_file", {**A, "path": "notes/standup.md", "content": NOTES})
    await ok(client, "write_file", {**A, "path": "notes/other.md", "content": "nothing relevant here\n"})
    await ok(client, "append_log", {**A, "path": "journal", "entry": "Deployed the café menu, finally"})
    tool = {t.name: t for t in (await client.list_tools()).tools}["search_files"]
    assert "exact" in tool.input_schema["properties"]
    assert tool.input_schema["properties"]["max_results"]["default"] == 10

    found = await ok(client, "search_files", {**A, "query": "When did we move the API to Postgres?"})
    assert found["matches"][0] == {
        "path": "notes/standup.md",
        "line": 1,
        "end_line": 3,
        "text": "# Standup\nWe moved the API to Postgres on Monday.\nThe cache stays.",
    }
    assert found["has_more"] is False and "files_searched" not in found
    deploy = await ok(client, "search_files", {**A, "query": "DEPLOYING cafe"})
    assert [(m["path"], m.get("line"), m.get("entry")) for m in deploy["matches"]] == [
        ("journal", None, 1),
        ("notes/standup.md", 4, None),
    ]
    assert deploy["matches"][0] == {"path": "journal", "entry": 1, "text": "Deployed the café menu, finally"}
    logs_only = await ok(client, "search_files", {**A, "query": "deploy", "prefix": "jour"})
    assert [m["path"] for m in logs_only["matches"]] == ["journal"]
    one = await ok(client, "search_files", {**A, "query": "deploy", "max_results": 1})
    assert (one["count"], one["has_more"]) == (1, True)

    exact = await ok(client, "search_files", {**A, "query": "the API to", "exact": True})
    assert exact == {
        "matches": [{"path": "notes/standup.md", "line": 2, "text": "We moved the API to Postgres on Monday."}],
        "count": 1,
        "has_more": False,
        "files_searched": 2,
    }
    regex = await ok(client, "search_files", {**A, "query": r"^the \w+ stays", "regex": True})
    assert [(m["path"], m["line"]) for m in regex["matches"]] == [("notes/standup.md", 3)]

    for hostile in ('"unbalanced', "NEAR(a b) OR -x", "a' OR '1'='1", "postgres*"):
        reply = await ok(client, "search_files", {**A, "query": hostile})
        assert isinstance(reply["matches"], list)
    assert "no word" in await refused(client, "search_files", {**A, "query": "?!"})
    assert "max_results" in await refused(client, "search_files", {**A, "query": "x", "max_results": 201})


async def test_word_search_over_stdio(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "stdio.db"))
    with anyio.fail_after(START_TIMEOUT * 2):
        async with Client(StdioServerParameters(command=console_script(), args=[], env=env)) as client:
            await scenario(client)


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("http-search")
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(folder / "http.db")}
    with running(folder, {"http": env}) as servers:
        yield servers["http"]


async def test_word_search_over_http(http_server: Server) -> None:
    with anyio.fail_after(START_TIMEOUT * 2):
        async with (
            httpx2.AsyncClient() as http,
            Client(streamable_http_client(http_server.mcp_url, http_client=http)) as client,
        ):
            await scenario(client)
