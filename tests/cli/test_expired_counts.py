"""`agents` and `stats` count what `files` lists (issue 28): files that have expired under a files rule and are
not yet pruned count nowhere, on a SQLite file and on Postgres (the command line reads on the wall clock)."""

from __future__ import annotations

import json
import time

from scratchpad_adapters.factory import open_backend
from scratchpad_core.service import Scratchpad
from tests.cli.conftest import Done
from tests.cli.test_listings import rows

HOUR = 3_600_000


def written_two_hours_ago(url: str) -> None:
    """alice: tmp/old.md (two versions) and notes.md, written two hours ago; tmp/ expires after an hour."""
    backend = open_backend(url)
    try:
        earlier = time.time_ns() // 1_000_000 - 2 * HOUR
        past = Scratchpad(backend.unit_of_work, backend.store.limits, clock=lambda: earlier)
        past.write_file("alice", "tmp/old.md", "o" * 100)
        past.write_file("alice", "tmp/old.md", "o" * 50)
        past.write_file("alice", "notes.md", "n" * 7)
        past.append_log("alice", "run.log", "entry")
        backend.store.set_retention("alice", files="tmp/", max_age="1h")
    finally:
        backend.close()


def test_agents_and_stats_count_what_files_lists(url: str, inspect) -> None:
    written_two_hours_ago(url)
    listed = json.loads(inspect("files", "--agent", "alice", "--json").out)["files"]
    assert [f["path"] for f in listed] == ["notes.md"]
    stats = json.loads(inspect("stats", "--agent", "alice", "--json").out)
    assert (stats["file_count"], stats["total_bytes"], stats["log_count"]) == (1, 7 + 5, 1)
    agents = json.loads(inspect("agents", "--json").out)["agents"]
    assert [(a["agent"], a["files"], a["bytes"]) for a in agents] == [("alice", 1, 12)]
    assert agents[0]["quota_use"]["files"] == round(1 / 1000, 4)
    table: Done = inspect("agents")
    assert rows(table.out)[0][:5] == ["alice", "1", "1", "1", "12"]
    shown = [row[:2] for row in rows(inspect("stats", "--agent", "alice").out)]
    assert ["files", "1"] in shown and ["bytes", "12"] in shown
    assert inspect("db", "prune").code == 0  # removing them for good changes no count
    assert json.loads(inspect("stats", "--agent", "alice", "--json").out)["file_count"] == 1
