"""`scratchpad-mcp changes`: read_changes on the command line (issue 31), for a person and for a script."""

from __future__ import annotations

import json

from scratchpad_core.service import Scratchpad
from tests.cli.conftest import PLAN_V2


def test_changes_lists_everything_then_what_came_since_the_cursor(filled: Scratchpad, inspect) -> None:
    first = inspect("changes", "--agent", "alice")
    lines = first.out.splitlines()
    assert first.code == 0
    assert lines[0] == f"created  plans/plan.md  v2  {len(PLAN_V2):,} B"
    assert lines[2:4] == ["log  runs/today.log: 5 new", "  #1  library  entry 1"]
    assert lines[-1].startswith("cursor: ")
    cursor = lines[-1].removeprefix("cursor: ")
    filled.edit_file("alice", "plans/plan.md", "step two", "step 2")
    filled.rename_file("alice", "notes.txt", "notes.md")
    filled.append_log("alice", "runs/today.log", "entry 6", actor="w1")
    since = inspect("changes", "--agent", "alice", "--since", cursor).out.splitlines()
    assert since[:4] == [
        "changed  plans/plan.md  v2 -> v3  +1 -1 lines",
        "renamed  notes.txt -> notes.md  v1",
        "deleted  notes.txt",
        "log  runs/today.log: 1 new",
    ]
    assert since[4] == "  #6  w1  entry 6"


def test_changes_json_prefix_and_a_bad_cursor(filled: Scratchpad, inspect) -> None:
    rows = [
        json.loads(line) for line in inspect("changes", "-a", "alice", "--prefix", "plans/", "--json").out.splitlines()
    ]
    assert [row.get("path") for row in rows[:-1]] == ["plans/plan.md"] and "cursor" in rows[-1]
    bad = inspect("changes", "-a", "alice", "--since", "nope")
    assert bad.code == 1
    assert bad.err.splitlines()[-1] == (
        "scratchpad-mcp: Invalid --since: pass the cursor the last `changes` printed, unchanged (or leave --since out)."
    )
