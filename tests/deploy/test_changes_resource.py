"""scratchpad://agents/{agent_id}/changes (issue 31) through real server processes and real MCP clients: reading it
gives the current read_changes cursor; a listener (subscriptions/listen, or resources/subscribe on 2025-11-25)
hears of any change of the agent's files or logs, through either replica of one PostgreSQL database."""

from __future__ import annotations

import warnings
from pathlib import Path

import anyio
import pytest
from mcp.shared.subscriptions import ResourceUpdated

from tests.deploy.conftest import TEST_TIMEOUT, Team, connect, unique
from tests.deploy.test_subscriptions import NOTICE_S, events_within, stdio, updates_into
from tests.mcp.helpers import ok

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

BOT = {"agent_id": "bot"}
CHANGES = "scratchpad://agents/bot/changes"


async def test_stdio_reading_gives_the_cursor_and_listen_hears_logs_and_files(tmp_path: Path) -> None:
    with anyio.fail_after(TEST_TIMEOUT):
        async with stdio(tmp_path / "s.db") as client:
            await ok(client, "write_file", {**BOT, "path": "plan.md", "content": "one\n"})
            read = await client.read_resource(CHANGES, cache_mode="bypass")
            cursor = read.contents[0].text  # type: ignore[union-attr]
            async with client.listen(resource_subscriptions=[CHANGES]) as subscription:
                await ok(client, "append_log", {**BOT, "path": "findings", "entry": "found"})
                assert await events_within(subscription, NOTICE_S) == [ResourceUpdated(uri=CHANGES)]
                await ok(client, "write_file", {**BOT, "path": "other.md", "content": "x"})
                assert ResourceUpdated(uri=CHANGES) in await events_within(subscription, NOTICE_S)
            since = await ok(client, "read_changes", {**BOT, "since": cursor})
    assert [item.get("path", item.get("log")) for item in since["items"]] == ["findings", "other.md"]


async def test_stdio_resources_subscribe_hears_the_changes(tmp_path: Path) -> None:
    updated: list[str] = []
    handler = updates_into(updated)
    with anyio.fail_after(TEST_TIMEOUT), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        async with stdio(tmp_path / "s.db", handler, mode="legacy") as client:
            await client.subscribe_resource(CHANGES)
            await ok(client, "append_log", {**BOT, "path": "findings", "entry": "found"})
            with anyio.move_on_after(NOTICE_S):
                while not updated:
                    await anyio.sleep(0.02)
    assert updated[:1] == [CHANGES]


@pytest.mark.postgres
async def test_a_change_on_one_replica_reaches_a_changes_listener_on_the_other(team: Team) -> None:
    agent = unique("changes")
    (key,) = team.keys(agent)
    uri = f"scratchpad://agents/{agent}/changes"
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(team.replicas[0].mcp_url, key.secret) as writer,
            connect(team.replicas[1].mcp_url, key.secret) as listener,
        ):
            cursor = (await listener.read_resource(uri, cache_mode="bypass")).contents[0].text  # type: ignore[union-attr]
            async with listener.listen(resource_subscriptions=[uri]) as subscription:
                started = anyio.current_time()
                await ok(writer, "append_log", {"path": "findings", "entry": "one"})
                assert await anext(aiter(subscription)) == ResourceUpdated(uri=uri)
                assert anyio.current_time() - started < NOTICE_S
            since = await ok(listener, "read_changes", {"since": cursor})
    (item,) = since["items"]
    assert item["log"] == "findings" and item["created"] is True and [e["entry"] for e in item["entries"]] == ["one"]
