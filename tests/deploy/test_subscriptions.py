"""Subscriptions through real server processes and real MCP clients: over stdio on both protocol revisions, and
over streamable HTTP on two replicas of one Postgres database, where a write on one replica reaches a listener on
the other within a second, and a key hears only of its own agent's files."""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import psycopg
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated, ServerEvent

from scratchpad_mcp.server.subscriptions import MAX_LISTEN_STREAMS, MAX_SUBSCRIPTIONS, RECHECK_KEY_S
from tests.deploy.conftest import TEST_TIMEOUT, Team, connect, http_client, revoke_key, unique
from tests.mcp.helpers import console_script, ok, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

NOTICE_S = 1.0  # a change reaches its subscriber within this


def stdio(db: Path, handler: Any = None, mode: str = "auto") -> Client:
    params = StdioServerParameters(
        command=console_script(), env=server_env(SCRATCHPAD_DB_PATH=str(db)), cwd=str(db.parent)
    )
    return Client(params, mode=mode, message_handler=handler)


def updates_into(updated: list[str]) -> Any:
    """A client message handler that notes the URI of each resource-updated notification (2025-11-25)."""

    async def handler(message: Any) -> None:
        params = getattr(getattr(message, "root", message), "params", None)
        if type(message).__name__ == "ResourceUpdatedNotification" and params is not None:
            updated.append(params.uri)

    return handler


async def events_within(subscription: AsyncIterator[ServerEvent], seconds: float) -> list[ServerEvent]:
    heard: list[ServerEvent] = []
    with anyio.move_on_after(seconds):
        async for event in subscription:
            heard.append(event)
    return heard


async def hold_streams(group: anyio.abc.TaskGroup, client: Client, streams: list[list[str]]) -> None:
    """Open one listen stream per list of URIs, held in `group` until it is cancelled; return once all are open."""
    opened = anyio.Event()
    held = 0

    async def hold(uris: list[str]) -> None:
        nonlocal held
        async with client.listen(resource_subscriptions=uris, resources_list_changed=True):
            held += 1
            if held == len(streams):
                opened.set()
            await anyio.sleep_forever()

    for uris in streams:
        group.start_soon(hold, uris)
    await opened.wait()


async def test_stdio_listen_hears_the_subscribed_file_and_the_listing(tmp_path: Path) -> None:
    plan = "scratchpad://agents/bot/files/plan.md"
    with anyio.fail_after(TEST_TIMEOUT):
        async with stdio(tmp_path / "s.db") as client:
            assert client.protocol_version == "2026-07-28"
            await ok(client, "write_file", {"agent_id": "bot", "path": "plan.md", "content": "one\n"})
            async with client.listen(resource_subscriptions=[plan], resources_list_changed=True) as subscription:
                await ok(client, "write_file", {"agent_id": "bot", "path": "other.md", "content": "x"})
                await ok(
                    client, "edit_file", {"agent_id": "bot", "path": "plan.md", "old_str": "one", "new_str": "two"}
                )
                heard = await events_within(subscription, NOTICE_S)
    assert ResourceUpdated(uri=plan) in heard
    assert ResourcesListChanged() in heard  # other.md appeared
    assert ResourceUpdated(uri="scratchpad://agents/bot/files/other.md") not in heard  # not subscribed


async def test_stdio_resources_subscribe_on_the_2025_revision(tmp_path: Path) -> None:
    plan = "scratchpad://agents/bot/files/plan.md"
    updated: list[str] = []
    handler = updates_into(updated)
    with anyio.fail_after(TEST_TIMEOUT), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # subscribe_resource is deprecated at 2026-07-28: this is the older revision
        async with stdio(tmp_path / "s.db", handler, mode="legacy") as client:
            assert client.protocol_version == "2025-11-25"
            assert client.server_capabilities.resources is not None and client.server_capabilities.resources.subscribe
            await client.subscribe_resource(plan)  # before the file exists: it is told when it appears
            await ok(client, "write_file", {"agent_id": "bot", "path": "plan.md", "content": "one\n"})
            await ok(client, "write_file", {"agent_id": "bot", "path": "unwatched.md", "content": "x"})
            with anyio.move_on_after(NOTICE_S):
                while not updated:
                    await anyio.sleep(0.02)
            await client.unsubscribe_resource(plan)
            await ok(client, "write_file", {"agent_id": "bot", "path": "plan.md", "content": "two\n"})
            await anyio.sleep(0.3)
            with pytest.raises(MCPError) as raised:
                await client.subscribe_resource("scratchpad://agents/bot/files/../x")
            assert "Resource not found" in raised.value.error.message
            for n in range(MAX_SUBSCRIPTIONS):
                await client.subscribe_resource(f"scratchpad://agents/bot/files/f{n}.md")
            with pytest.raises(MCPError) as raised:
                await client.subscribe_resource("scratchpad://agents/bot/files/one-too-many.md")
            assert f"already watches {MAX_SUBSCRIPTIONS} files" in raised.value.error.message
    assert updated == [plan]


async def test_a_stdio_client_is_bounded_over_all_its_streams(tmp_path: Path) -> None:
    files = [f"scratchpad://agents/bot/files/f{n}.md" for n in range(MAX_SUBSCRIPTIONS)]
    with anyio.fail_after(TEST_TIMEOUT):
        async with stdio(tmp_path / "s.db") as client, anyio.create_task_group() as group:
            await hold_streams(group, client, [files[:60]] + [[]] * (MAX_LISTEN_STREAMS - 1))
            with pytest.raises(MCPError) as raised:  # 60 watched: 41 more would pass the bound
                async with client.listen(resource_subscriptions=files[:41]):
                    pass
            assert "60 files already, 41 in this request" in raised.value.error.message
            with pytest.raises(MCPError) as raised:  # a ninth stream
                async with client.listen(resources_list_changed=True):
                    pass
            assert f"already holds {MAX_LISTEN_STREAMS} listen streams" in raised.value.error.message
            group.cancel_scope.cancel()


@pytest.mark.postgres
async def test_a_write_on_one_replica_reaches_a_listener_on_the_other(team: Team) -> None:
    agent, stranger = unique("listened"), unique("stranger")
    key, other = team.keys(agent, stranger)
    plan = "scratchpad://files/plan.md"
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(team.replicas[0].mcp_url, key.secret) as writer,
            connect(team.replicas[1].mcp_url, key.secret) as listener,
            connect(team.replicas[1].mcp_url, other.secret) as eavesdropper,
            connect(team.replicas[0].mcp_url, other.secret) as stranger_writer,
        ):
            await ok(writer, "write_file", {"path": "plan.md", "content": "one\n"})
            async with (
                listener.listen(resource_subscriptions=[plan], resources_list_changed=True) as subscription,
                eavesdropper.listen(resource_subscriptions=[plan], resources_list_changed=True) as stray,
            ):
                started = anyio.current_time()
                await ok(writer, "edit_file", {"path": "plan.md", "old_str": "one", "new_str": "two"})
                first = await anext(aiter(subscription))
                assert first == ResourceUpdated(uri=plan)
                assert anyio.current_time() - started < NOTICE_S
                # The other key's agent writes a file of the same path: the first listener hears nothing of it.
                await ok(stranger_writer, "write_file", {"path": "plan.md", "content": "theirs\n"})
                assert await events_within(stray, NOTICE_S) == [ResourceUpdated(uri=plan), ResourcesListChanged()]
                assert await events_within(subscription, 0.5) == []

            listing = await listener.list_resources(cache_mode="bypass")
            assert [r.uri for r in listing.resources] == [plan]
            read = await listener.read_resource(plan, cache_mode="bypass")
            assert read.contents[0].text == "two\n"  # type: ignore[union-attr]
            templates = await listener.list_resource_templates()
            assert [t.uri_template for t in templates.resource_templates] == [
                "scratchpad://files/{path}",
                "scratchpad://agents/{agent_id}/files/{path}",  # an agent the key has a grant on
                "scratchpad://agents/{agent_id}/changes",  # read_changes' cursor (issue 31)
            ]


@pytest.mark.postgres
async def test_http_on_the_2025_revision_is_not_offered_subscriptions(team: Team) -> None:
    (key,) = team.keys(unique("legacy"))
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            http_client(key.secret) as http,
            Client(streamable_http_client(team.replicas[0].mcp_url, http_client=http), mode="legacy") as client,
        ):
            assert client.protocol_version == "2025-11-25"
            resources = client.server_capabilities.resources
            assert resources is not None and not resources.subscribe
            await ok(client, "write_file", {"path": "a.md", "content": "x"})
            listing = await client.list_resources()
            assert [r.uri for r in listing.resources] == ["scratchpad://files/a.md"]


@pytest.mark.postgres
async def test_listen_streams_are_bounded_per_key(team: Team) -> None:
    (key,) = team.keys(unique("bounded"))
    url = team.replicas[0].mcp_url
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, key.secret) as client, connect(url, key.secret) as same_key:
            too_many = [f"scratchpad://files/f{n}.md" for n in range(MAX_SUBSCRIPTIONS + 1)]
            with pytest.raises(MCPError) as raised:
                async with client.listen(resource_subscriptions=too_many):
                    pass
            assert "Too many subscriptions" in raised.value.error.message
            async with anyio.create_task_group() as group:
                await hold_streams(group, client, [[]] * MAX_LISTEN_STREAMS)
                with pytest.raises(MCPError) as raised:  # the same key through another client session
                    async with same_key.listen(resources_list_changed=True):
                        pass
                assert f"already holds {MAX_LISTEN_STREAMS} listen streams" in raised.value.error.message
                group.cancel_scope.cancel()


@pytest.mark.postgres
async def test_a_revoked_key_stops_hearing_and_a_feed_closes_with_its_last_listener(team: Team) -> None:
    (key,) = team.keys(unique("revoked"))
    plan = "scratchpad://files/plan.md"
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(team.replicas[1].mcp_url, key.secret) as listener,
            listener.listen(resource_subscriptions=[plan]) as subscription,
        ):
            assert listeners(team.database) >= 1
            await anyio.to_thread.run_sync(revoke_key, team.database, key)
            with anyio.fail_after(RECHECK_KEY_S + 10), pytest.raises(Exception) as ended:
                async for _ in subscription:
                    pass
            assert "revoked" in str(ended.value) or "ended" in str(ended.value).lower()
        with anyio.fail_after(10):  # no subscriber left on any replica: writers stop sending notices
            while listeners(team.database):
                await anyio.sleep(0.1)


def listeners(database: str) -> int:
    with psycopg.connect(database.replace("postgresql+psycopg://", "postgresql://")) as connection:
        row = connection.execute("SELECT count(*) FROM change_listeners").fetchone()
        assert row is not None
        return int(row[0])
