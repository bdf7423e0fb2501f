"""agents, files and logs: readable tables, --json, and long listings paged by --cursor."""

from __future__ import annotations

import json
import re

from scratchpad_adapters import open_store
from scratchpad_core.service import Scratchpad
from tests.cli.conftest import NOTE, PLAN_V2


def rows(table: str) -> list[list[str]]:
    """The table's lines after its header, split on runs of two or more spaces."""
    lines = table.rstrip("\n").splitlines()
    return [re.split(r"\s{2,}", line.strip()) for line in lines[1:]]


def test_agents_table_and_json(filled: Scratchpad, inspect) -> None:
    done = inspect("agents")
    assert done.code == 0, done.err
    header = done.out.splitlines()[0].split()
    assert header[:5] == ["agent", "files", "logs", "entries", "bytes"] and "activity" in header
    alice, bob = rows(done.out)
    assert alice[:4] == ["alice", "2", "1", "5"] and bob[:4] == ["bob", "1", "0", "0"]
    assert alice[5].endswith("of files") and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ", alice[6])

    listing = json.loads(inspect("agents", "--json").out)
    assert listing["next_cursor"] is None
    first = listing["agents"][0]
    stats = filled.get_usage_stats("alice")
    assert first["agent"] == "alice" and first["bytes"] == stats.total_bytes and first["log_entries"] == 5
    assert first["quota_use"]["files"] == round(2 / filled.limits.quota_files, 4)
    assert first["last_activity"] >= filled.list_files("alice").files[0].updated_at


def test_agents_page_by_cursor(url: str, inspect) -> None:
    with open_store(url) as store:
        for number in range(7):
            store.write_file(f"agent-{number}", "a.md", "a")
    seen: list[str] = []
    cursor: list[str] = []
    for _ in range(5):
        page = json.loads(inspect("agents", "--json", "--limit", "3", *cursor).out)
        seen += [agent["agent"] for agent in page["agents"]]
        if page["next_cursor"] is None:
            break
        assert len(page["agents"]) == 3
        cursor = ["--cursor", page["next_cursor"]]
    assert seen == [f"agent-{number}" for number in range(7)]
    table = inspect("agents", "--limit", "3")
    assert len(rows(table.out)) == 3 and "continue with --cursor 'agent-2'" in table.err


def test_files_table_prefix_and_paging(url: str, filled: Scratchpad, inspect) -> None:
    done = inspect("files", "--agent", "alice")
    assert done.code == 0, done.err
    sizes = [str(len(NOTE.encode())), str(len(PLAN_V2.encode()))]
    assert [row[:3] for row in rows(done.out)] == [["notes.txt", "1", sizes[0]], ["plans/plan.md", "2", sizes[1]]]
    only = json.loads(inspect("files", "-a", "alice", "--prefix", "plans/", "--json").out)
    assert [f["path"] for f in only["files"]] == ["plans/plan.md"] and only["files"][0]["current_version"] == 2

    for number in range(25):
        filled.write_file("carol", f"f/{number:02}.md", "x")
    paths: list[str] = []
    cursor: list[str] = []
    while True:
        page = json.loads(inspect("files", "-a", "carol", "--json", "--limit", "10", *cursor).out)
        paths += [f["path"] for f in page["files"]]
        if page["next_cursor"] is None:
            break
        cursor = ["--cursor", page["next_cursor"]]
    assert paths == [f"f/{number:02}.md" for number in range(25)]


def test_logs_table_and_paging(filled: Scratchpad, inspect) -> None:
    for name in ("a", "b", "c"):
        filled.append_log("alice", f"more/{name}.log", "x")
    done = inspect("logs", "-a", "alice")
    assert rows(done.out)[-1][:4] == ["runs/today.log", "5", "35", "5"]
    first = json.loads(inspect("logs", "-a", "alice", "--json", "--limit", "2").out)
    assert [g["path"] for g in first["logs"]] == ["more/a.log", "more/b.log"] and first["next_cursor"] == "more/b.log"
    rest = json.loads(inspect("logs", "-a", "alice", "--json", "--cursor", "more/b.log").out)
    assert [g["path"] for g in rest["logs"]] == ["more/c.log", "runs/today.log"] and rest["next_cursor"] is None
