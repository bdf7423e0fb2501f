"""Agent teams, proved with real processes: two HTTP replicas on one PostgreSQL (and one on a SQLite file), keys
with grants made by `scratchpad-mcp keys`, real MCP clients. Workers claim tasks by compare-and-set and report to
a shared log; a listener with a read grant hears every change; every refusal changes nothing; a shared quota
holds under concurrent writers; `db check` passes after each."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated

from scratchpad_mcp.server.subscriptions import RECHECK_KEY_S
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import TEST_TIMEOUT, Key, cli, connect, unique
from tests.mcp.helpers import check_error, ok, refused
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]

WORKERS = 8
TASKS = 24
QUOTA_FILES = 30
NOTICE_S = 1.0  # a change reaches a listener within this
STREAM_END_S = 5.0  # a listen stream on a grant taken away ends within this


@dataclass
class Deployment:
    database: str
    replicas: list[Server]


@pytest.fixture(scope="module")
def deployments(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Deployment]]:
    """Two replicas on one PostgreSQL database, and one on a SQLite file."""
    database = create_postgres_database("scratchpad_teams")
    folder: Path = tmp_path_factory.mktemp("teams")
    sqlite = f"sqlite:///{folder / 'team.db'}"
    common = {"SCRATCHPAD_AUTH": "keys", "SCRATCHPAD_MAX_VERSIONS": "100", "SCRATCHPAD_QUOTA_FILES": str(QUOTA_FILES)}
    postgres = {**common, "SCRATCHPAD_DATABASE_URL": database}
    try:
        specs = {"pg-a": postgres, "pg-b": postgres, "lite": {**common, "SCRATCHPAD_DATABASE_URL": sqlite}}
        with running(folder, specs) as servers:
            yield {
                "postgres": Deployment(database, [servers["pg-a"], servers["pg-b"]]),
                "sqlite": Deployment(sqlite, [servers["lite"]]),
            }
    finally:
        drop_postgres_database(database)


def make_keys(database: str, *specs: tuple[str, tuple[str, ...], bool]) -> list[Key]:
    """`keys create --agent A --grant G ...` for each (agent, grants, read_only), run at once."""

    def make(spec: tuple[str, tuple[str, ...], bool]) -> Key:
        agent, grants, read_only = spec
        args = ["keys", "create", "--agent", agent, *(["--read-only"] if read_only else [])]
        done = cli(database, *args, *(part for grant in grants for part in ("--grant", grant)))
        secret = done.stdout.strip()
        note = re.search(rf"key (\S+) for agent {agent} \(", done.stderr)
        assert note is not None and secret.startswith(f"spk_{note[1]}_"), done.stderr
        return Key(note[1], agent, secret, read_only)

    with ThreadPoolExecutor(len(specs)) as pool:
        return list(pool.map(make, specs))


def export(database: str) -> str:
    return cli(database, "export").stdout


def db_check(database: str) -> None:
    done = cli(database, "db", "check")  # exit 0, or the test fails with what it printed
    assert done.stdout.splitlines()[-1].startswith("OK: "), done.stdout  # after notes, if any


# --------------------------------------------------------------------------- 1. claims and reports


@pytest.mark.parametrize("backend", ["postgres", "sqlite"])
async def test_workers_claim_each_task_once_and_report_each_result_once(
    deployments: dict[str, Deployment], backend: str
) -> None:
    deployment = deployments[backend]
    plan, findings = unique("team-plan"), unique("team-findings")
    orchestrator, *workers = make_keys(
        deployment.database,
        (unique("orchestrator"), (f"{plan}:write",), False),
        *((unique(f"worker-{n}"), (f"{plan}:write", f"{findings}:write"), False) for n in range(WORKERS)),
    )
    tasks = [f"- [ ] task {n:02d}" for n in range(TASKS)]
    claimed: dict[str, str] = {}  # task -> worker key id, as each worker saw its claim succeed
    conflicts = 0

    async def work(worker: Key, url: str) -> None:
        nonlocal conflicts
        async with connect(url, worker.secret) as client:
            while True:
                read = await ok(client, "read_file", {"agent_id": plan, "path": "plan.md"})
                todo = [line for line in read["content"].splitlines() if line.startswith("- [ ] ")]
                if not todo:
                    return
                task = todo[0]
                mine = task.replace("- [ ] ", f"- [{worker.id}] ")
                claim = {"agent_id": plan, "path": "plan.md", "old_str": task, "new_str": mine,
                         "expected_version": read["current_version"]}  # fmt: skip
                result = await client.call_tool("edit_file", claim)
                if result.is_error:
                    assert "Version conflict" in check_error(result)
                    conflicts += 1
                    continue
                assert task not in claimed
                claimed[task] = worker.id
                entry = {"agent_id": findings, "path": "results.log", "entry": f"{task[6:]} done by {worker.id}",
                         "request_id": f"{worker.id}-{task[6:]}"}  # fmt: skip
                first = await ok(client, "append_log", entry)
                assert await ok(client, "append_log", entry) == first  # a retry by the same key: the same entry

    with anyio.fail_after(TEST_TIMEOUT):
        urls = [replica.mcp_url for replica in deployment.replicas]
        async with connect(urls[0], orchestrator.secret) as client:
            await ok(client, "write_file", {"agent_id": plan, "path": "plan.md", "content": "\n".join(tasks) + "\n"})
        async with anyio.create_task_group() as group:
            for n, worker in enumerate(workers):
                group.start_soon(work, worker, urls[n % len(urls)])
        async with connect(urls[-1], orchestrator.secret) as client:
            final = (await ok(client, "read_file", {"agent_id": plan, "path": "plan.md"}))["content"]
            versions = (await ok(client, "list_versions", {"agent_id": plan, "path": "plan.md"}))["versions"]
        async with connect(urls[0], workers[0].secret) as client:
            log = await ok(client, "read_log", {"agent_id": findings, "path": "results.log", "show_by": True})

    # every task claimed exactly once, and no claim lost: one version per claim
    assert sorted(claimed) == tasks
    assert final == "".join(f"{task.replace('- [ ] ', f'- [{claimed[task]}] ')}\n" for task in tasks)
    assert [v["version"] for v in versions] == list(range(1, TASKS + 2))
    # every version's `by` is the key that made it: the orchestrator's first, then each claimer's
    assert versions[0]["by"] == f"key:{orchestrator.id}"
    by_claim = {task: f"key:{key_id}" for task, key_id in claimed.items()}
    async with connect(urls[0], orchestrator.secret) as client:
        for version in versions[1:]:
            before = await ok(
                client, "read_file", {"agent_id": plan, "path": "plan.md", "version": version["version"] - 1}
            )
            after = await ok(client, "read_file", {"agent_id": plan, "path": "plan.md", "version": version["version"]})
            (task,) = set(before["content"].splitlines()) - set(after["content"].splitlines())
            assert version["by"] == by_claim[task]
    # every result present once, each by the key that claimed its task
    entries = log["entries"]
    assert len(entries) == TASKS and not log["has_more"]
    assert sorted(e["entry"] for e in entries) == sorted(f"{t[6:]} done by {claimed[t]}" for t in tasks)
    for entry in entries:
        assert entry["by"] == f"key:{entry['entry'].rsplit(' ', 1)[1]}"
    await anyio.to_thread.run_sync(db_check, deployment.database)


# --------------------------------------------------------------------------- 2. a listener on the other replica


async def test_a_listener_with_a_read_grant_hears_every_change_made_through_the_other_replica(
    deployments: dict[str, Deployment],
) -> None:
    deployment = deployments["postgres"]
    plan = unique("team-plan")
    writer_a, writer_b, reviewer = make_keys(
        deployment.database,
        (unique("writer"), (f"{plan}:write",), False),
        (unique("writer"), (f"{plan}:write",), False),
        (unique("reviewer"), (f"{plan}:read",), True),
    )
    uri = f"scratchpad://agents/{plan}/files/plan.md"
    a, b = (replica.mcp_url for replica in deployment.replicas)
    with anyio.fail_after(TEST_TIMEOUT):
        async with (
            connect(a, writer_a.secret) as first,
            connect(a, writer_b.secret) as second,
            connect(b, reviewer.secret) as listener,
        ):
            await ok(first, "write_file", {"agent_id": plan, "path": "plan.md", "content": "v1\n"})
            async with listener.listen(resource_subscriptions=[uri]) as subscription:
                heard = aiter(subscription)
                for n in range(2, 8):
                    writer = first if n % 2 else second  # whichever key made it
                    started = anyio.current_time()
                    await ok(writer, "write_file", {"agent_id": plan, "path": "plan.md", "content": f"v{n}\n"})
                    with anyio.fail_after(NOTICE_S):
                        assert await anext(heard) == ResourceUpdated(uri=uri)
                    assert anyio.current_time() - started < NOTICE_S


# --------------------------------------------------------------------------- 3. refusals change nothing


async def web_status(base: str, secret: str, agent: str) -> int:
    async with httpx2.AsyncClient(base_url=base, timeout=30) as http:
        signed = await http.post("/ui/signin", data={"key": secret}, follow_redirects=False)
        assert signed.status_code == 303, signed.text[:300]
        return (await http.get(f"/ui/a/{agent}")).status_code


async def test_every_refusal_on_both_replicas_changes_nothing(deployments: dict[str, Deployment]) -> None:
    deployment = deployments["postgres"]
    plan = unique("team-plan")
    owner, stranger, reader, leaving, revoked = make_keys(
        deployment.database,
        (unique("owner"), (f"{plan}:write",), False),
        (unique("stranger"), (), False),
        (unique("reader"), (f"{plan}:read",), False),
        (unique("leaving"), (f"{plan}:read",), False),
        (unique("revoked"), (f"{plan}:write",), False),
    )
    uri = f"scratchpad://agents/{plan}/files/plan.md"
    write = {"agent_id": plan, "path": "plan.md", "content": "taken over\n"}
    read = {"agent_id": plan, "path": "plan.md"}
    with anyio.fail_after(TEST_TIMEOUT):
        async with connect(deployment.replicas[0].mcp_url, owner.secret) as client:
            await ok(client, "write_file", {**write, "content": "the plan\n"})
            await ok(client, "append_log", {"agent_id": plan, "path": "events.log", "entry": "made"})
        for replica in deployment.replicas:  # the grant to take away is used once on each replica before
            async with connect(replica.mcp_url, leaving.secret) as client:
                await ok(client, "read_file", read)
        cli(deployment.database, "keys", "revoke", revoked.id)
        before = await anyio.to_thread.run_sync(export, deployment.database)

        for replica in deployment.replicas:
            async with connect(replica.mcp_url, stranger.secret) as client:
                for tool, args in (("read_file", read), ("list_files", {"agent_id": plan}), ("write_file", write),
                                   ("append_log", {"agent_id": plan, "path": "events.log", "entry": "x"})):  # fmt: skip
                    assert f"has no grant on agent {plan}" in await refused(client, tool, args)
                with pytest.raises(MCPError, match=f"has no grant on agent {plan}"):
                    await client.read_resource(uri, cache_mode="bypass")
                with pytest.raises(MCPError, match=f"has no grant on agent {plan}"):
                    async with client.listen(resource_subscriptions=[uri]):
                        pass
            assert await web_status(replica.base, stranger.secret, plan) == 403
            async with connect(replica.mcp_url, reader.secret) as client:
                message = await refused(client, "write_file", write)
                assert f"has only a read grant on agent {plan} and this tool changes data" in message
                assert await web_status(replica.base, reader.secret, plan) == 200
        for replica in deployment.replicas:
            response = httpx2.post(replica.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                   "params": {"name": "write_file", "arguments": write}},
                                   headers={"Authorization": f"Bearer {revoked.secret}",
                                            "Accept": "application/json, text/event-stream"}, timeout=30)  # fmt: skip
            assert response.status_code == 401

        # a grant taken away while a client is connected: the next call is refused, a listen stream ends
        async with (
            connect(deployment.replicas[0].mcp_url, leaving.secret) as first,
            connect(deployment.replicas[1].mcp_url, leaving.secret) as second,
            second.listen(resource_subscriptions=[uri]) as subscription,
        ):
            await anyio.to_thread.run_sync(cli, deployment.database, "keys", "ungrant", leaving.id, plan)
            started = anyio.current_time()
            for client in (first, second):
                assert f"has no grant on agent {plan}" in await refused(client, "read_file", read)
            with anyio.fail_after(STREAM_END_S), pytest.raises(Exception) as ended:
                async for _ in subscription:
                    pass
            assert "lost its grant" in str(ended.value) or "ended" in str(ended.value).lower()  # as the SDK says it
            assert anyio.current_time() - started < STREAM_END_S
        after = await anyio.to_thread.run_sync(export, deployment.database)
    assert after == before
    assert RECHECK_KEY_S < STREAM_END_S


# --------------------------------------------------------------------------- 4. a shared quota


async def test_a_shared_quota_filled_by_several_writers_at_once_is_never_exceeded(
    deployments: dict[str, Deployment],
) -> None:
    deployment = deployments["postgres"]
    box = unique("team-box")
    writers = make_keys(deployment.database, *((unique("filler"), (f"{box}:write",), False) for _ in range(6)))
    refusals: list[str] = []
    written: list[str] = []

    async def fill(writer: Key, client: Client) -> None:
        for n in range(10):  # 60 files wanted, 30 allowed
            args = {"agent_id": box, "path": f"{writer.id}/{n}.md", "content": "x"}
            result = await client.call_tool("write_file", args)
            (refusals if result.is_error else written).append(check_error(result) if result.is_error else args["path"])

    with anyio.fail_after(TEST_TIMEOUT):
        async with contextlib.AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(connect(deployment.replicas[n % 2].mcp_url, writer.secret))
                for n, writer in enumerate(writers)
            ]  # all connected first, then writing at once
            async with anyio.create_task_group() as group:
                for writer, client in zip(writers, clients, strict=True):
                    group.start_soon(fill, writer, client)
        async with connect(deployment.replicas[0].mcp_url, writers[0].secret) as client:
            stats = await ok(client, "get_usage_stats", {"agent_id": box})
    assert len(written) == QUOTA_FILES and stats["file_count"] == QUOTA_FILES
    assert len(refusals) == 6 * 10 - QUOTA_FILES
    assert all(r.startswith(f"Agent {box}'s file quota exceeded: {box} already has 30 of 30 files.") for r in refusals)
    await anyio.to_thread.run_sync(db_check, deployment.database)  # counters equal to a recount
