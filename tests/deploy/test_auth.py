"""API keys from outside: 401 before any tool runs, agent binding, read-only keys, `keys list`, hashes only."""

from __future__ import annotations

import hashlib
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from sqlalchemy import create_engine, select, text

from scratchpad_adapters.sql.schema.tables import api_keys
from tests.deploy.conftest import (
    TEST_TIMEOUT,
    Team,
    cli,
    connect,
    post,
    raw_call,
    raw_result,
    revoke_key,
    rpc_body,
    unique,
)
from tests.mcp.helpers import ok, refused

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]

UNKNOWN_SECRET = "spk_000000000000_thisKeyWasNeverCreatedByAnyoneAtAll0123456789"


def leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


async def client_is_refused(url: str, secret: str | None) -> None:
    """The mcp SDK client cannot call a tool with this key: it raises (an MCPError inside the task groups)."""
    with pytest.raises(BaseException) as caught:
        async with connect(url, secret) as client:
            await client.call_tool("list_files", {})
    assert any(isinstance(leaf, MCPError) for leaf in leaves(caught.value)), repr(caught.value)


def assert_401(response: Any) -> None:
    assert response.status_code == 401, (response.status_code, response.text[:300])
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "result" not in response.text


# --------------------------------------------------------------------------- 1. 401 before any tool runs


async def test_requests_without_a_valid_key_get_401_and_run_nothing(team: Team) -> None:
    agent = unique("auth401")
    (key,) = team.keys(agent)
    url = team.replicas[0].mcp_url
    write = {"path": "unauthorized.md", "content": "must not be stored"}
    with anyio.fail_after(TEST_TIMEOUT):
        for secret in (None, UNKNOWN_SECRET, "not-even-a-key", "spk_"):
            assert_401(raw_call(url, secret, "write_file", write))
            assert_401(raw_call(url, secret, "write_file", {**write, "agent_id": agent}))
        # Another scheme, a Bearer with nothing after it, or the bare secret.
        for header in (f"Basic {key.secret}", "Bearer", key.secret):
            assert_401(post(url, rpc_body("write_file", write), {"Authorization": header}))
        await client_is_refused(url, None)
        await client_is_refused(url, UNKNOWN_SECRET)

        async with connect(url, key.secret) as client:
            assert "File not found" in await refused(client, "read_file", {"path": "unauthorized.md"})
            assert (await ok(client, "list_files", {}))["count"] == 0


async def test_a_revoked_key_is_refused_at_once_on_every_replica(team: Team) -> None:
    agent = unique("revoke")
    key, other = team.keys(agent, agent)
    first, second = (replica.mcp_url for replica in team.replicas)
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(first, key.secret) as client:
            await ok(client, "write_file", {"path": "before.md", "content": "written before revocation\n"})
        async with connect(second, key.secret) as client:
            assert (await ok(client, "read_file", {"path": "before.md"}))["current_version"] == 1

        await anyio.to_thread.run_sync(revoke_key, team.database, key)

        # The very next request, on either replica, is refused; the write does not happen.
        assert_401(raw_call(second, key.secret, "write_file", {"path": "after.md", "content": "too late"}))
        assert_401(raw_call(first, key.secret, "write_file", {"path": "after.md", "content": "too late"}))
        assert_401(raw_call(first, key.secret, "read_file", {"path": "before.md"}))
        await client_is_refused(first, key.secret)
        await client_is_refused(second, key.secret)

        # The agent's other key still works, and shows that nothing changed.
        async with connect(second, other.secret) as client:
            listing = await ok(client, "list_files", {})
            assert [f["path"] for f in listing["files"]] == ["before.md"]
            assert listing["files"][0]["current_version"] == 1


# --------------------------------------------------------------------------- 2. agent binding


async def test_the_key_names_the_agent(team: Team) -> None:
    a, b = unique("bind-a"), unique("bind-b")
    key_a, key_b = team.keys(a, b)
    url = team.replicas[0].mcp_url
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(url, key_a.secret) as client:
            tools = (await client.list_tools()).tools
            assert {"write_file", "read_file", "edit_file", "append_log", "get_usage_stats"} <= {t.name for t in tools}
            for listed in tools:
                assert "agent_id" in listed.input_schema["properties"], listed.name
                assert "agent_id" not in listed.input_schema.get("required", []), listed.name

            # agent_id omitted: acts for the key's agent.
            written = await ok(client, "write_file", {"path": "mine.md", "content": "agent a's note\n"})
            assert written["version"] == 1
            # agent_id equal to the key's agent: the same namespace.
            read = await ok(client, "read_file", {"agent_id": a, "path": "mine.md"})
            assert read["content"] == "agent a's note\n"
            assert (await ok(client, "append_log", {"agent_id": a, "path": "events", "entry": "one"}))["entry_id"] == 1

            # Another agent_id: an authorization error, and nothing runs.
            for tool, arguments in [
                ("write_file", {"path": "stolen.md", "content": "written as b"}),
                ("append_log", {"path": "events", "entry": "as b"}),
                ("read_file", {"path": "mine.md"}),
                ("list_files", {}),
                ("delete_file", {"path": "mine.md"}),
            ]:
                message = await refused(client, tool, {"agent_id": b, **arguments})
                assert f"API key {key_a.id} (agent {a}) has no grant on agent {b}" in message, message
                assert "nothing was run" in message

        async with connect(team.replicas[1].mcp_url, key_b.secret) as client:
            assert (await ok(client, "list_files", {}))["count"] == 0
            assert (await ok(client, "list_logs", {}))["logs"] == []
            assert "File not found" in await refused(client, "read_file", {"path": "stolen.md"})
            # ... and b cannot reach a's namespace either.
            assert "has no grant on agent" in await refused(client, "read_file", {"agent_id": a, "path": "mine.md"})

        async with connect(team.replicas[1].mcp_url, key_a.secret) as client:
            assert (await ok(client, "read_file", {"path": "mine.md"}))["current_version"] == 1
            assert (await ok(client, "read_log", {"path": "events"}))["last_entry_id"] == 1


# --------------------------------------------------------------------------- 3. read-only keys

WRITE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("write_file", {"path": "doc.md", "content": "overwritten\n"}),
    ("write_file", {"path": "new.md", "content": "new file\n"}),
    ("edit_file", {"path": "doc.md", "old_str": "two", "new_str": "TWO"}),
    ("insert_lines", {"path": "doc.md", "line": 0, "text": "top"}),
    ("append_log", {"path": "journal", "entry": "from a read-only key"}),
    ("restore_version", {"path": "doc.md", "version": 1}),
    ("delete_file", {"path": "doc.md"}),
    ("delete_log", {"path": "journal"}),
]


async def test_read_only_keys_may_call_only_read_only_tools(team: Team) -> None:
    agent = unique("readonly")
    writer, reader = team.keys(agent, (agent, True, "dashboard"))
    first, second = (replica.mcp_url for replica in team.replicas)
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(first, writer.secret) as client:
            await ok(client, "write_file", {"path": "doc.md", "content": "one\n"})
            await ok(client, "write_file", {"path": "doc.md", "content": "one\ntwo\n"})
            await ok(client, "append_log", {"path": "journal", "entry": "first entry"})
            before = await ok(client, "get_usage_stats", {})

        async with connect(second, reader.secret) as client:
            assert (await ok(client, "read_file", {"path": "doc.md"}))["content"] == "one\ntwo\n"
            diff = await ok(client, "read_file", {"path": "doc.md", "since_version": 1})
            assert diff["current_version"] == 2
            assert [f["path"] for f in (await ok(client, "list_files", {}))["files"]] == ["doc.md"]
            assert [e["entry"] for e in (await ok(client, "read_log", {"path": "journal"}))["entries"]] == [
                "first entry"
            ]
            assert (await ok(client, "list_versions", {"path": "doc.md"}))["path"] == "doc.md"
            assert (await ok(client, "search_files", {"query": "two"}))["matches"]
            assert (await ok(client, "list_logs", {}))["logs"][0]["path"] == "journal"
            usage = await ok(client, "get_usage_stats", {})
            assert usage["file_count"] == before["file_count"] == 1

            for tool, arguments in WRITE_CALLS:
                message = await refused(client, tool, arguments)
                assert "read-only" in message, (tool, message)
            # Explicitly naming its own agent does not help either.
            assert "read-only" in await refused(client, "write_file", {"agent_id": agent, **WRITE_CALLS[0][1]})

        async with connect(first, writer.secret) as client:
            doc = await ok(client, "read_file", {"path": "doc.md"})
            assert (doc["current_version"], doc["content"]) == (2, "one\ntwo\n")
            assert [f["path"] for f in (await ok(client, "list_files", {}))["files"]] == ["doc.md"]
            log = await ok(client, "read_log", {"path": "journal"})
            assert [e["entry"] for e in log["entries"]] == ["first entry"]
            assert len((await ok(client, "list_versions", {"path": "doc.md"}))["versions"]) == 2
            after = await ok(client, "get_usage_stats", {})
            for name in ("total_bytes", "file_count", "log_count", "logs"):
                assert after.get(name) == before.get(name), name


# --------------------------------------------------------------------------- 4. keys list, hashes only


def parse_keys_list(output: str) -> dict[str, dict[str, str]]:
    """`keys list` rows by key id, cut at the header's column positions."""
    lines = output.splitlines()
    header = lines[0]
    names = ["id", "agent", "access", "created", "last used", "revoked", "grants", "label"]
    starts = [header.index(name) for name in names]
    assert starts == sorted(starts), header
    rows = {}
    for line in lines[1:]:
        cells = [
            line[start : (starts[i + 1] if i + 1 < len(starts) else None)].strip() for i, start in enumerate(starts)
        ]
        rows[cells[0]] = dict(zip(names, cells, strict=True))
    return rows


def test_keys_list_shows_records_never_secrets(team: Team) -> None:
    agent = unique("listed")
    rw, ro = team.keys((agent, False, "ci runner"), (agent, True, "read dashboard"))
    listing = cli(team.database, "keys", "list")
    for key in (rw, ro):
        assert key.secret not in listing.stdout and key.secret not in listing.stderr
        assert key.random_part not in listing.stdout
    rows = parse_keys_list(listing.stdout)
    assert rows[rw.id]["agent"] == agent and rows[ro.id]["agent"] == agent
    assert rows[rw.id]["access"] == "read-write"
    assert rows[ro.id]["access"] == "read-only"
    assert rows[rw.id]["label"] == "ci runner"
    assert rows[ro.id]["label"] == "read dashboard"
    for key in (rw, ro):
        assert rows[key.id]["created"].endswith("Z") and rows[key.id]["created"][:2] == "20"
        assert rows[key.id]["last used"] == "-"
        assert rows[key.id]["revoked"] == "-"

    # After a call, "last used" shows when.
    raw_result(raw_call(team.replicas[1].mcp_url, ro.secret, "list_files", {}))
    rows = parse_keys_list(cli(team.database, "keys", "list").stdout)
    assert rows[ro.id]["last used"].endswith("Z") and rows[ro.id]["last used"][:2] == "20"
    assert rows[rw.id]["last used"] == "-"


def test_the_database_stores_only_a_hash(team: Team) -> None:
    agent = unique("hashed")
    (key,) = team.keys((agent, False, "hash check"))
    raw_result(raw_call(team.replicas[0].mcp_url, key.secret, "get_usage_stats", {}))
    engine = create_engine(team.database)
    try:
        with engine.connect() as connection:
            rows = [dict(row._mapping) for row in connection.execute(select(api_keys))]
            column_names = [c.name for c in api_keys.c]
            # Every text column of every table, to be sure the secret is nowhere else either.
            tables = connection.execute(
                text("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'")
            ).all()
            elsewhere = []
            for table, column in tables:
                found = connection.execute(
                    text(f'SELECT count(*) FROM "{table}" WHERE CAST("{column}" AS TEXT) LIKE :secret'),
                    {"secret": f"%{key.secret.split('_')[-1]}%"},
                ).scalar_one()
                if found:
                    elsewhere.append(f"{table}.{column}")
    finally:
        engine.dispose()
    mine = [row for row in rows if row["id"] == key.id]
    assert len(mine) == 1
    assert mine[0]["agent_id"] == agent
    assert mine[0]["key_hash"] == hashlib.sha256(key.secret.encode()).hexdigest()
    assert mine[0]["last_used_at"] is not None
    for name in column_names:
        assert key.secret not in str(mine[0][name]), name
    assert elsewhere == []
