"""Agent teams over HTTP with keys: a real MCP client on the ASGI app in process (one SQLite file); the key's
grants decide which agents its calls may use, read afresh on every request. (Listen streams need a real server
process, whose responses stream: tests/deploy/test_agent_teams.py.)"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from bench.common import definition_bytes
from scratchpad_adapters import open_backend
from scratchpad_adapters.factory import Backend
from scratchpad_core.access.grants import parse_grant
from scratchpad_core.limits import Limits
from scratchpad_mcp.app import http_app
from scratchpad_mcp.settings import Settings
from tests.mcp.helpers import ok, refused
from tests.mcp.test_token_surface import DEFINITIONS_BUDGET

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:4321"  # the Host header must carry the port (DNS-rebinding protection)
WRITES: dict[str, dict[str, Any]] = {
    "write_file": {"path": "plan.md", "content": "x"},
    "edit_file": {"path": "plan.md", "old_str": "tasks", "new_str": "jobs"},
    "insert_lines": {"path": "plan.md", "line": 0, "text": "top"},
    "restore_version": {"path": "plan.md", "version": 1},
    "delete_file": {"path": "plan.md"},
    "append_log": {"path": "findings.log", "entry": "e"},
    "delete_log": {"path": "findings.log"},
}
READS: dict[str, dict[str, Any]] = {
    "read_file": {"path": "plan.md"},
    "list_versions": {"path": "plan.md"},
    "list_files": {},
    "search_files": {"query": "tasks"},
    "read_log": {"path": "findings.log"},
    "list_logs": {},
    "get_usage_stats": {},
    "read_changes": {},
}


@dataclass
class Deployment:
    backend: Backend
    http: httpx2.AsyncClient

    def key(self, agent: str, *grants: str, read_only: bool = False) -> tuple[str, str]:
        key, secret = self.backend.keys.create(agent, read_only=read_only, grants=[parse_grant(g) for g in grants])
        return key.id, secret

    @contextlib.asynccontextmanager
    async def client(self, secret: str) -> AsyncIterator[Client]:
        headers = {"Authorization": f"Bearer {secret}"}
        async with (
            httpx2.AsyncClient(transport=self.http._transport, base_url=BASE, headers=headers) as http,
            Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client,
        ):
            yield client

    def state(self) -> list[tuple[str, str, int]]:
        """Every file and log of the team's agents: what a refusal must leave as it was."""
        store = self.backend.store
        rows = []
        for agent in ("team-plan", "team-findings", "worker-1", "worker-2"):
            rows += [(agent, f.path, f.current_version) for f in store.list_files(agent).files]
            rows += [(agent, log.path, log.entries) for log in store.list_logs(agent).logs]
        return rows


def settings(**extra: str) -> Settings:
    return Settings.from_env({"MCP_TRANSPORT": "http", "SCRATCHPAD_AUTH": "keys", **extra})


@contextlib.asynccontextmanager
async def deployed(tmp_path: Path, limits: Limits | None = None, **extra: str) -> AsyncIterator[Deployment]:
    backend = open_backend(f"sqlite:///{tmp_path}/team.db", limits=limits)
    app = http_app(settings(**extra), backend)
    try:
        transport = httpx2.ASGITransport(app=app)
        async with app.router.lifespan_context(app), httpx2.AsyncClient(transport=transport, base_url=BASE) as http:
            yield Deployment(backend, http)
    finally:
        backend.close()


@pytest.fixture
async def team(tmp_path: Path) -> AsyncIterator[Deployment]:
    async with deployed(tmp_path) as deployment:
        store = deployment.backend.store
        store.write_file("team-plan", "plan.md", "tasks\n")
        store.write_file("team-plan", "plan.md", "tasks: 1\n")
        store.append_log("team-plan", "findings.log", "first")
        yield deployment


async def test_a_write_grant_lets_a_key_read_and_change_another_agent(team: Deployment) -> None:
    key_id, secret = team.key("worker-1", "team-plan:write")
    async with team.client(secret) as client:
        plan = {"agent_id": "team-plan"}
        assert (await ok(client, "read_file", {**plan, "path": "plan.md"}))["content"] == "tasks: 1\n"
        written = await ok(
            client, "write_file", {**plan, "path": "plan.md", "content": "claimed\n", "expected_version": 2}
        )
        assert written["version"] == 3
        await ok(client, "append_log", {**plan, "path": "findings.log", "entry": "done"})
        versions = (await ok(client, "list_versions", {**plan, "path": "plan.md"}))["versions"]
        assert versions[-1]["version"] == 3 and versions[-1]["by"] == f"key:{key_id}"
        entries = (await ok(client, "read_log", {**plan, "path": "findings.log", "show_by": True}))["entries"]
        assert [e["by"] for e in entries] == ["library", f"key:{key_id}"]
        # its own agent stays the default
        await ok(client, "write_file", {"path": "own.md", "content": "mine"})
    assert [f.path for f in team.backend.store.list_files("worker-1").files] == ["own.md"]


@pytest.mark.parametrize("tool", WRITES)
async def test_a_read_grant_reads_and_every_writing_tool_is_refused(
    team: Deployment, tool: str, caplog: pytest.LogCaptureFixture
) -> None:
    key_id, secret = team.key("worker-1", "team-plan:read")
    before = team.state()
    async with team.client(secret) as client:
        for name, args in READS.items():
            if name != "get_usage_stats":
                await ok(client, name, {"agent_id": "team-plan", **args})
        with caplog.at_level(logging.WARNING, logger="scratchpad.auth"):
            message = await refused(client, tool, {"agent_id": "team-plan", **WRITES[tool]})
    assert message == (
        f"API key {key_id} has only a read grant on agent team-plan and this tool changes data; nothing was run. "
        f"An operator allows it with `scratchpad-mcp keys grant {key_id} team-plan --write`."
    )
    assert team.state() == before
    failures = [r for r in caplog.records if getattr(r, "event", None) == "auth_failure"]
    assert [r.reason for r in failures] == ["no_grant"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("tool", [*READS, *WRITES])
async def test_a_key_without_a_grant_is_refused_every_tool(team: Deployment, tool: str) -> None:
    key_id, secret = team.key("worker-2", "team-findings:write")
    before = team.state()
    async with team.client(secret) as client:
        message = await refused(client, tool, {"agent_id": "team-plan", **{**READS, **WRITES}[tool]})
    option = "--write" if tool in WRITES else "--read"
    assert message == (
        f"API key {key_id} (agent worker-2) has no grant on agent team-plan; nothing was run. "
        f"An operator allows it with `scratchpad-mcp keys grant {key_id} team-plan {option}`."
    )
    assert team.state() == before


@pytest.mark.parametrize(
    ("agent_id", "rule"),
    [("bad agent", "only the characters"), ("", "non-empty"), ("x" * 200, "at most 128 characters")],
)
async def test_a_malformed_agent_id_meets_the_agent_id_rule_not_a_grant(
    team: Deployment, agent_id: str, rule: str, caplog: pytest.LogCaptureFixture
) -> None:
    _, secret = team.key("worker-1", "team-plan:read")
    before = team.state()
    async with team.client(secret) as client:
        with caplog.at_level(logging.WARNING, logger="scratchpad.auth"):
            message = await refused(client, "read_file", {"agent_id": agent_id, "path": "plan.md"})
    assert message.startswith("Invalid agent_id: ") and rule in message, message
    assert [r for r in caplog.records if getattr(r, "event", None) == "auth_failure"] == []
    assert team.state() == before


async def test_get_usage_stats_of_the_own_agent_lists_the_keys_spaces(team: Deployment) -> None:
    _, secret = team.key("worker-1", "team-plan:write", "team-findings:read")
    async with team.client(secret) as client:
        own = await ok(client, "get_usage_stats", {})
        assert own["spaces"] == [
            {"agent": "worker-1", "access": "write"},
            {"agent": "team-findings", "access": "read"},
            {"agent": "team-plan", "access": "write"},
        ]
        shared = await ok(client, "get_usage_stats", {"agent_id": "team-plan"})
        assert "spaces" not in shared and shared["file_count"] == 1  # the namespace's usage, not the key's
    _, reader = team.key("reviewer", read_only=True)
    async with team.client(reader) as client:
        assert (await ok(client, "get_usage_stats", {}))["spaces"] == [{"agent": "reviewer", "access": "read"}]


async def test_a_grant_change_holds_on_the_next_request_of_a_connected_client(team: Deployment) -> None:
    key_id, secret = team.key("worker-1")
    plan = {"agent_id": "team-plan", "path": "plan.md"}
    async with team.client(secret) as client:
        assert "has no grant on agent team-plan" in await refused(client, "read_file", plan)
        team.backend.keys.grant(key_id, parse_grant("team-plan:read"))
        await ok(client, "read_file", plan)
        team.backend.keys.ungrant(key_id, "team-plan")
        assert "has no grant on agent team-plan" in await refused(client, "read_file", plan)


async def test_request_ids_are_the_keys_own(team: Deployment) -> None:
    one, two = team.key("worker-1", "team-plan:write")[1], team.key("worker-2", "team-plan:write")[1]
    entry = {"agent_id": "team-plan", "path": "findings.log", "entry": "same", "request_id": "r-1"}
    async with team.client(one) as first, team.client(two) as second:
        a = await ok(first, "append_log", entry)
        b = await ok(second, "append_log", entry)
        assert (a["entry_id"], b["entry_id"]) == (2, 3)  # two keys: two requests
        assert await ok(first, "append_log", entry) == a  # a repeat by the same key: the first result
        assert await ok(second, "append_log", entry) == b
    assert team.backend.store.read_log("team-plan", "findings.log").last_entry_id == 3


async def test_quotas_are_the_namespaces_and_say_whose(tmp_path: Path) -> None:
    async with deployed(tmp_path, Limits(quota_files=2)) as team:
        _, one = team.key("worker-1", "team-plan:write")
        _, two = team.key("worker-2", "team-plan:write")
        async with team.client(one) as first, team.client(two) as second:
            await ok(first, "write_file", {"agent_id": "team-plan", "path": "a", "content": "1"})
            await ok(second, "write_file", {"agent_id": "team-plan", "path": "b", "content": "1"})
            message = await refused(first, "write_file", {"agent_id": "team-plan", "path": "c", "content": "1"})
            assert message.startswith("Agent team-plan's file quota exceeded: team-plan already has 2 of 2 files.")
            await ok(first, "write_file", {"path": "own", "content": "1"})  # its own agent's quota is its own


async def test_rate_limits_count_per_key_wherever_it_acts(tmp_path: Path) -> None:
    async with deployed(tmp_path, SCRATCHPAD_RATE_LIMIT="0.01", SCRATCHPAD_RATE_BURST="2") as team:
        _, busy = team.key("worker-1", "team-plan:read")
        _, idle = team.key("worker-2", "team-plan:read")
        async with team.client(busy) as first, team.client(idle) as second:
            await ok(first, "list_files", {})
            await ok(first, "list_files", {"agent_id": "team-plan"})
            message = await refused(first, "list_files", {"agent_id": "team-plan"})
            assert message.startswith("Rate limit exceeded for this API key: nothing was changed.")
            assert "Rate limit" in await refused(first, "list_files", {})
            await ok(second, "list_files", {"agent_id": "team-plan"})  # another key on the same agent


async def test_the_keyed_tool_definitions_say_it_within_the_budget(team: Deployment) -> None:
    _, secret = team.key("worker-1")
    async with team.client(secret) as client:
        tools = (await client.list_tools()).tools
    described: dict[str, Any] = {t.name: t.input_schema["properties"]["agent_id"]["description"] for t in tools}
    assert described["read_file"] == "Omit: your key's, or a granted one."
    assert described["write_file"] == "Omit: your key's, or one granted write."
    assert definition_bytes(tools) <= DEFINITIONS_BUDGET


async def test_resources_page_over_the_own_agent_then_every_readable_one(team: Deployment) -> None:
    _, secret = team.key("worker-1", "team-plan:read", "handbook:read")
    team.backend.store.write_file("worker-1", "mine.md", "mine")
    team.backend.store.write_file("worker-2", "theirs.md", "not granted")
    async with team.client(secret) as client:
        uris, cursor = [], None
        while True:
            page = await client.list_resources(cursor=cursor, cache_mode="bypass")
            uris += [(r.uri, r.name) for r in page.resources]
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert uris == [
            ("scratchpad://files/mine.md", "mine.md"),
            ("scratchpad://agents/team-plan/files/plan.md", "team-plan/plan.md"),
        ]  # handbook has no files; worker-2 is not granted
        read = await client.read_resource("scratchpad://agents/team-plan/files/plan.md", cache_mode="bypass")
        assert read.contents[0].text == "tasks: 1\n"  # type: ignore[union-attr]
        with pytest.raises(MCPError) as raised:
            await client.read_resource("scratchpad://agents/worker-2/files/theirs.md", cache_mode="bypass")
        assert "has no grant on agent worker-2" in raised.value.error.message
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == [
            "scratchpad://files/{path}",
            "scratchpad://agents/{agent_id}/files/{path}",
            "scratchpad://agents/{agent_id}/changes",
        ]
