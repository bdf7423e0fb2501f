"""read_changes proved with real processes (issue 31): two HTTP replicas on one PostgreSQL database (and two on
one SQLite file), 8 writers with keys of their own and write grants on a shared agent write, edit, rename, delete
and append at once; a reader with a read grant loops read_changes through either replica until they stop, then
rebuilds every file and log from the replies alone: it must equal the store exactly (content, versions,
entries)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from scratchpad_core.hunks import apply_hunks
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import TEST_TIMEOUT, Key, cli, connect, unique
from tests.mcp.helpers import ok
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow, pytest.mark.postgres]

WRITERS = 8
ROUNDS = 12


@pytest.fixture(scope="module", params=["postgres", "sqlite"])
def replicas(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, list[Server]]]:
    folder: Path = tmp_path_factory.mktemp("changes")
    database = create_postgres_database("scratchpad_changes") if request.param == "postgres" else (
        f"sqlite:///{folder / 'changes.db'}"
    )  # fmt: skip
    env = {"SCRATCHPAD_AUTH": "keys", "SCRATCHPAD_DATABASE_URL": database, "SCRATCHPAD_MAX_VERSIONS": "1000"}
    try:
        with running(folder, {"one": env, "two": env}) as servers:
            yield database, [servers["one"], servers["two"]]
    finally:
        if request.param == "postgres":
            drop_postgres_database(database)


def key(database: str, agent: str, grant: str) -> Key:
    done = cli(database, "keys", "create", "--agent", agent, "--grant", grant)
    note = re.search(rf"key (\S+) for agent {agent} \(", done.stderr)
    assert note is not None, done.stderr
    return Key(note[1], agent, done.stdout.strip(), False)


class Rebuild:
    def __init__(self) -> None:
        self.files: dict[str, tuple[int, str]] = {}
        self.logs: dict[str, dict[int, str]] = {}
        self.cursor: str | None = None

    async def catch_up(self, client: Client, space: str) -> None:
        while True:
            args = {"agent_id": space} | ({} if self.cursor is None else {"since": self.cursor})
            reply = await ok(client, "read_changes", args)
            for item in reply["items"]:
                self.apply(item)
            self.cursor = reply["cursor"]
            if not reply.get("has_more"):
                return

    def apply(self, item: dict[str, Any]) -> None:
        if "path" in item:
            path = item["path"]
            if item.get("deleted"):
                del self.files[path]
            elif "diff" in item:
                held_version, held = self.files[path]
                assert held_version == item["from_version"], item
                self.files[path] = (item["to_version"], apply_hunks(held, item["diff"]))
            else:
                self.files[path] = (item["version"], item["content"])
            return
        if item.get("deleted"):
            del self.logs[item["log"]]
            return
        entries = {} if item.get("created") else self.logs.get(item["log"], {})
        self.logs[item["log"]] = entries | {e["id"]: e["entry"] for e in item["entries"]}


async def write_for_a_while(url: str, secret: str, space: str, writer: int) -> None:
    rng = random.Random(writer)
    at = {"agent_id": space}
    async with connect(url, secret) as client:
        for turn in range(ROUNDS):
            path = f"w{writer}/note-{turn % 3}.md"
            await ok(client, "write_file", {**at, "path": path, "content": f"writer {writer} turn {turn}\nline\n"})
            await ok(client, "insert_lines", {**at, "path": path, "line": -1, "text": f"more {turn}"})
            await ok(client, "append_log", {**at, "path": f"log-{writer % 3}", "entry": f"w{writer} t{turn}"})
            if rng.random() < 0.3:
                await ok(client, "delete_file", {**at, "path": path})
            if turn == ROUNDS // 2 and writer % 3 == 0:
                await ok(client, "delete_log", {**at, "path": f"log-{writer % 3}"})


async def test_a_reader_rebuilds_the_space_exactly_from_read_changes(replicas: tuple[str, list[Server]]) -> None:
    database, servers = replicas
    space = unique("space")
    writers = [key(database, unique(f"writer-{n}"), f"{space}:write") for n in range(WRITERS)]
    reader = key(database, unique("reader"), f"{space}:read")
    rebuild = Rebuild()
    done = anyio.Event()
    with anyio.fail_after(TEST_TIMEOUT * 4):
        async with connect(servers[0].mcp_url, reader.secret) as a, connect(servers[1].mcp_url, reader.secret) as b:

            async def read_until_done() -> None:
                turn = 0
                while not done.is_set():
                    await rebuild.catch_up((a, b)[turn % 2], space)
                    turn += 1
                    await anyio.sleep(0.05)

            async with anyio.create_task_group() as group:
                group.start_soon(read_until_done)
                async with anyio.create_task_group() as writing:
                    for n, writer in enumerate(writers):
                        writing.start_soon(write_for_a_while, servers[n % 2].mcp_url, writer.secret, space, n)
                done.set()
            await rebuild.catch_up(b, space)
            listing = await ok(a, "list_files", {"agent_id": space})
            files = {}
            for file in listing["files"]:
                read = await ok(a, "read_file", {"agent_id": space, "path": file["path"]})
                files[file["path"]] = (read["current_version"], read["content"])
            logs = {}
            for log in (await ok(a, "list_logs", {"agent_id": space}))["logs"]:
                page = await ok(a, "read_log", {"agent_id": space, "path": log["path"], "limit": 100})
                logs[log["path"]] = {e["id"]: e["entry"] for e in page["entries"]}
    assert rebuild.files == files
    assert rebuild.logs == logs
