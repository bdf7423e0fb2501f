"""Who changed what, through real clients: over stdio (the transport), over HTTP without keys ("http") and with
API keys (the key's id and label), shown per version by list_versions and per log entry by read_log when asked."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.deploy.conftest import connect, create_keys
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, server_env
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def change_and_read(client: Client, agent: dict[str, str]) -> tuple[list[str], list[dict[str, Any]]]:
    """Write, edit and append, then who made each version, and the log read with and without show_by."""
    await ok(client, "write_file", {**agent, "path": "plan.md", "content": "one\n"})
    await ok(client, "edit_file", {**agent, "path": "plan.md", "old_str": "one", "new_str": "1"})
    await ok(client, "append_log", {**agent, "path": "run.log", "entry": "started"})
    versions = (await ok(client, "list_versions", {**agent, "path": "plan.md"}))["versions"]
    plain = (await ok(client, "read_log", {**agent, "path": "run.log"}))["entries"]
    assert [sorted(e) for e in plain] == [["created_at", "entry", "id"]]  # not asked: the reply does not grow
    shown = (await ok(client, "read_log", {**agent, "path": "run.log", "show_by": True}))["entries"]
    return [v["by"] for v in versions], shown


async def test_over_stdio_changes_are_by_stdio(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            versions, entries = await change_and_read(client, {"agent_id": "a"})
    assert versions == ["stdio", "stdio"]
    assert [(e["entry"], e["by"]) for e in entries] == [("started", "stdio")]


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[dict[str, Server]]:
    database = f"sqlite:///{tmp_path / 'team.db'}"
    specs = {
        "keys": {"SCRATCHPAD_DATABASE_URL": database, "SCRATCHPAD_AUTH": "keys"},
        "open": {"SCRATCHPAD_DB_PATH": str(tmp_path / "open.db"), "SCRATCHPAD_AUTH": "none"},
    }
    with running(tmp_path, specs) as started:
        yield started


async def test_over_http_changes_are_by_the_key_or_by_http(servers: dict[str, Server]) -> None:
    database = servers["keys"].env["SCRATCHPAD_DATABASE_URL"]
    laptop, ci = create_keys(database, ("team-bot", False, "laptop"), ("team-bot", False, ""))
    with anyio.fail_after(START_TIMEOUT):
        async with connect(servers["keys"].mcp_url, laptop.secret) as client:
            versions, entries = await change_and_read(client, {})
        async with connect(servers["keys"].mcp_url, ci.secret) as client:
            await ok(client, "insert_lines", {"path": "plan.md", "line": 0, "text": "top"})
            later = (await ok(client, "list_versions", {"path": "plan.md"}))["versions"]
        async with connect(servers["open"].mcp_url) as client:
            open_versions, open_entries = await change_and_read(client, {"agent_id": "b"})
    by_laptop = f"key:{laptop.id} (laptop)"
    assert versions == [by_laptop, by_laptop]
    assert [e["by"] for e in entries] == [by_laptop]
    assert [v["by"] for v in later] == [by_laptop, by_laptop, f"key:{ci.id}"]  # a key without a label: its id
    assert open_versions == ["http", "http"] and [e["by"] for e in open_entries] == ["http"]
