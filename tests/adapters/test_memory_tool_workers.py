"""Two workers, each with its own store (its own connection pool) on one Postgres database, share one agent's
memory through ScratchpadMemoryTool: no edit is lost, and each sees the other's files."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.memory_tool import ScratchpadMemoryTool
from scratchpad_core.service import Scratchpad
from tests.conftest import create_postgres_database, drop_postgres_database

AGENT = "research-bot"
EDITS = 15


@pytest.fixture
def postgres_url() -> Iterator[str]:
    url = create_postgres_database("scratchpad_memory_tool")
    yield url
    drop_postgres_database(url)


def worker(store: Scratchpad, name: str, start: threading.Barrier, errors: list[BaseException]) -> None:
    memory = ScratchpadMemoryTool(store, AGENT)
    try:
        start.wait()
        for i in range(EDITS):
            memory.call(
                {"command": "insert", "path": "/memories/shared.md", "insert_line": 0, "insert_text": f"{name}{i}"}
            )
            memory.call({"command": "create", "path": f"/memories/{name}/{i}.md", "file_text": f"{name} {i}\n"})
        memory.call({"command": "rename", "old_path": f"/memories/{name}", "new_path": f"/memories/done/{name}"})
    except BaseException as error:
        errors.append(error)


@pytest.mark.postgres
def test_two_workers_share_one_agents_memory(postgres_url: str) -> None:
    stores = [open_store(postgres_url), open_store(postgres_url)]
    try:
        ScratchpadMemoryTool(stores[0], AGENT).call(
            {"command": "create", "path": "/memories/shared.md", "file_text": "end\n"}
        )
        start = threading.Barrier(2)
        errors: list[BaseException] = []
        threads = [
            threading.Thread(target=worker, args=(s, n, start, errors)) for s, n in zip(stores, "ab", strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert errors == []

        lines = stores[1].read_file(AGENT, "shared.md").content.splitlines()  # type: ignore[union-attr]
        assert sorted(lines) == sorted([*(f"a{i}" for i in range(EDITS)), *(f"b{i}" for i in range(EDITS)), "end"])
        for name in "ab":  # each worker's own lines stay in its order (each went on top)
            assert [line for line in lines if line.startswith(name)] == [f"{name}{i}" for i in reversed(range(EDITS))]
        assert stores[0].list_versions(AGENT, "shared.md").current_version == 1 + 2 * EDITS

        view = ScratchpadMemoryTool(stores[1], AGENT).call({"command": "view", "path": "/memories/done"})
        assert isinstance(view, str)
        assert view.splitlines()[1:4] == ["4K\t/memories/done", "4K\t/memories/done/a/", "4B\t/memories/done/a/0.md"]
        assert len(stores[0].list_files(AGENT, "done/").files) == 2 * EDITS
        usage = stores[0].get_usage_stats(AGENT)
        assert usage.file_count == 1 + 2 * EDITS
    finally:
        for store in stores:
            store.close()
