"""Two replicas on one Postgres database serve the same agent consistently."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from tests.deploy.conftest import TEST_TIMEOUT, Team, connect, text_of, unique
from tests.mcp.helpers import ok, refused

CALLS = 16

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]


async def test_a_write_on_one_replica_is_read_on_the_other(team: Team) -> None:
    (key,) = team.keys(unique("replicated"))
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(team.replicas[0].mcp_url, key.secret) as one,
            connect(team.replicas[1].mcp_url, key.secret) as two,
        ):
            await ok(one, "write_file", {"path": "plan.md", "content": "step 1\nstep 2\nstep 3\n"})
            first = await ok(two, "read_file", {"path": "plan.md"})
            assert (first["current_version"], first["content"]) == (1, "step 1\nstep 2\nstep 3\n")

            edited = await ok(two, "edit_file", {"path": "plan.md", "old_str": "step 2", "new_str": "step 2 (done)"})
            assert edited["version"] == 2
            await ok(one, "insert_lines", {"path": "plan.md", "line": -1, "text": "step 4"})

            diff = await ok(two, "read_file", {"path": "plan.md", "since_version": 1, "context": 0})
            assert diff["current_version"] == 3
            changes = [chunk for chunk in diff["diff"] if chunk["op"] != "skip"]
            assert changes == [
                {"op": "remove", "lines": ["step 2"]},
                {"op": "add", "lines": ["step 2 (done)"]},
                {"op": "add", "lines": ["step 4"]},
            ], diff["diff"]
            unchanged = await ok(one, "read_file", {"path": "plan.md", "since_version": 3})
            assert unchanged["unchanged"] is True

            # A stale expected_version is a conflict on the other replica too.
            assert "Version conflict" in await refused(
                one, "write_file", {"path": "plan.md", "content": "stale", "expected_version": 2}
            )

            await ok(one, "write_file", {"path": "notes/a.md", "content": "a\n"})
            await ok(two, "write_file", {"path": "notes/b.md", "content": "b\n"})
            await ok(two, "append_log", {"path": "events", "entry": "from two"})
            await ok(one, "append_log", {"path": "events", "entry": "from one"})
            listings = [await ok(client, "list_files", {}) for client in (one, two)]
            assert listings[0] == listings[1]
            assert [f["path"] for f in listings[0]["files"]] == ["notes/a.md", "notes/b.md", "plan.md"]
            logs = [await ok(client, "read_log", {"path": "events"}) for client in (one, two)]
            assert logs[0] == logs[1]
            assert [e["entry"] for e in logs[0]["entries"]] == ["from two", "from one"]
            usages = [await ok(client, "get_usage_stats", {}) for client in (one, two)]
            assert usages[0]["file_count"] == usages[1]["file_count"] == 3


async def first_calls(team: Team, secret: str) -> tuple[dict[int, str], dict[str, Any]]:
    """CALLS calls at once (writes and appends), alternating replicas; the refusals by call, and the usage after."""
    refusals: dict[int, str] = {}
    async with (
        connect(team.replicas[0].mcp_url, secret) as one,
        connect(team.replicas[1].mcp_url, secret) as two,
    ):

        async def call(i: int) -> None:
            client = (one, two)[i % 2]
            if i % 3 == 2:
                reply = await client.call_tool("append_log", {"path": "journal", "entry": f"entry {i}"})
            else:
                reply = await client.call_tool("write_file", {"path": f"first/{i}.md", "content": f"{i}\n"})
            if reply.is_error:
                refusals[i] = text_of(reply)

        async with anyio.create_task_group() as group:
            for i in range(CALLS):
                group.start_soon(call, i)
        return refusals, await ok(one, "get_usage_stats", {})


async def test_a_new_agents_first_calls_may_run_concurrently(team: Team) -> None:
    """An agent's very first calls arriving together (parallel tool calls, or two replicas) must all succeed.

    They race to create the agent's usage row; the loser must not mistake that for a full quota.
    """
    keys = team.keys(*(unique(f"fresh{attempt}") for attempt in range(3)))
    with anyio.fail_after(TEST_TIMEOUT):
        for key in keys:
            refusals, usage = await first_calls(team, key.secret)
            assert refusals == {}, refusals
            appends = len([i for i in range(CALLS) if i % 3 == 2])
            assert (usage["file_count"], usage["log_count"]) == (CALLS - appends, appends)
