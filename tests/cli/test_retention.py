"""`retention set|list|clear` and `db prune` as a person runs them, on a SQLite file and on Postgres; a rule set
here applies from the next call of a store that was already open (another replica)."""

from __future__ import annotations

import json
from collections.abc import Callable

from scratchpad_adapters import open_store
from tests.cli.conftest import Done

Run = Callable[..., Done]


def test_set_list_change_and_clear(inspect: Run, url: str) -> None:
    rule = ("--logs", "runs/", "--keep-entries", "100", "--max-age", "30d")
    done = inspect("retention", "set", "--agent", "ghost", *rule)
    assert done.code == 0, done.err
    assert done.out == "set: ghost logs runs/: keep the newest 100 entries; drop entries older than 30d\n"
    assert "drops a batch at each append" in done.err
    files = inspect("retention", "set", "--agent", "ghost", "--files", "tmp/", "--max-age", "7d")
    assert "reads as deleted once expired" in files.err and "append" not in files.err
    assert inspect("retention", "clear", "--agent", "ghost", "--files", "tmp/").code == 0
    assert inspect("retention", "set", "--agent", "alice", "--logs", "", "--max-age", "36h").code == 0
    assert inspect("retention", "set", "--agent", "ghost", "--logs", "runs/", "--keep-entries", "5").code == 0
    listed = inspect("retention", "list")
    assert listed.code == 0
    rows = [line.split() for line in listed.out.splitlines()]
    assert rows == [
        ["agent", "kind", "prefix", "keep", "entries", "max", "age"],
        ["alice", "logs", "(all)", "-", "36h"],
        ["ghost", "logs", "runs/", "5", "30d"],  # only keep-entries changed
    ]
    as_json = json.loads(inspect("retention", "list", "--agent", "ghost", "--json").out)
    assert as_json == [
        {"agent_id": "ghost", "kind": "logs", "prefix": "runs/", "keep_entries": 5, "max_age": 30 * 86_400}
    ]
    cleared = inspect("retention", "clear", "--agent", "ghost", "--logs", "runs/")
    assert (cleared.code, cleared.out) == (0, "cleared: ghost logs runs/\n")
    again = inspect("retention", "clear", "--agent", "ghost", "--logs", "runs/")
    assert again.code == 1
    assert again.error == (
        "scratchpad-mcp: No retention rule on logs 'runs/' of agent 'ghost'; `retention list` shows the rules."
    )
    assert json.loads(inspect("retention", "list", "--json").out)[0]["agent_id"] == "alice"


def test_set_on_a_prefix_with_a_rule_changes_only_the_limits_given_and_prints_the_rule(inspect: Run) -> None:
    def set_rule(*limits: str) -> Done:
        return inspect("retention", "set", "--agent", "a", "--logs", "runs/", *limits)

    new = set_rule("--keep-entries", "1000", "--max-age", "30d")
    assert new.out == "set: a logs runs/: keep the newest 1,000 entries; drop entries older than 30d\n"
    changed = set_rule("--max-age", "7d")
    assert changed.out == "set: a logs runs/: keep the newest 1,000 entries; drop entries older than 7d\n"
    assert set_rule("--keep-entries", "none").out == "set: a logs runs/: drop entries older than 7d\n"
    assert (
        set_rule("--keep-entries", "20").out
        == "set: a logs runs/: keep the newest 20 entries; drop entries older than 7d\n"
    )
    assert set_rule("--max-age", "none").out == "set: a logs runs/: keep the newest 20 entries\n"
    last = set_rule("--keep-entries", "none")
    assert (last.code, last.out) == (1, "")
    assert last.error == (
        "scratchpad-mcp: Invalid retention rule: without keep-entries the rule on logs 'runs/' of agent 'a' would "
        "keep everything; clear the rule instead. Nothing was set."
    )
    nothing_to_remove = inspect("retention", "set", "--agent", "a", "--logs", "other/", "--max-age", "none")
    assert "has no rule on logs 'other/' to remove max-age from" in nothing_to_remove.error
    files = inspect("retention", "set", "--agent", "a", "--files", "tmp/", "--max-age", "1h")
    assert files.out == "set: a files tmp/: expire 1h after the last write\n"
    assert (
        "a files rule takes max-age only"
        in inspect("retention", "set", "--agent", "a", "--files", "tmp/", "--keep-entries", "none").error
    )
    assert json.loads(inspect("retention", "list", "--json").out) == [
        {"agent_id": "a", "kind": "files", "prefix": "tmp/", "keep_entries": None, "max_age": 3600},
        {"agent_id": "a", "kind": "logs", "prefix": "runs/", "keep_entries": 20, "max_age": None},
    ]
    shown = inspect("retention", "set", "--help").out
    assert "none removes this limit" in shown and "retention clear" in shown


def test_a_bad_rule_is_refused_in_one_line_and_sets_nothing(inspect: Run) -> None:
    assert inspect("retention", "set", "--agent", "a", "--logs", "runs/", "--keep-entries", "7").code == 0
    neither = inspect("retention", "set", "--agent", "a", "--logs", "runs/")
    assert neither.code == 1
    assert neither.error.startswith("scratchpad-mcp: Invalid retention rule: give keep-entries N, max-age DURATION")
    weeks = inspect("retention", "set", "--agent", "a", "--logs", "runs/", "--max-age", "2w")
    assert weeks.error == (
        "scratchpad-mcp: Invalid duration '2w': write a whole number and a unit, e.g. 90s, 15m, 12h or 30d."
    )
    zero = inspect("retention", "set", "--agent", "a", "--logs", "runs/", "--keep-entries", "0")
    assert "must be positive" in zero.error
    both = inspect("retention", "set", "--agent", "a", "--logs", "x/", "--files", "y/", "--max-age", "1d")
    assert "exactly one of the two" in both.error
    word = inspect("retention", "set", "--agent", "a", "--logs", "runs/", "--keep-entries", "many")
    assert word.code == 2 and "'many' is not a whole number (or none, to remove the limit)" in word.err
    assert [r["keep_entries"] for r in json.loads(inspect("retention", "list", "--json").out)] == [7]


def test_a_rule_applies_from_the_next_call_of_a_store_already_open(inspect: Run, url: str) -> None:
    with open_store(url) as first, open_store(url) as second:
        for i in range(1, 6):
            first.append_log("alice", "run.log", f"e{i}")
        assert inspect("retention", "set", "--agent", "alice", "--logs", "run.log", "--keep-entries", "2").code == 0
        second.append_log("alice", "run.log", "e6")  # the next append, on another store: one batch goes
        page = first.read_log("alice", "run.log")
        assert ([e.id for e in page.entries], page.first_entry_id) == ([5, 6], 5)
        assert first.get_usage_stats("alice").log_count == 2
        assert inspect("retention", "clear", "--agent", "alice", "--logs", "run.log").code == 0
        first.append_log("alice", "run.log", "e7")
        assert second.read_log("alice", "run.log").total == 3


def test_db_prune_catches_up_and_db_check_agrees(inspect: Run, url: str) -> None:
    with open_store(url) as store:
        for i in range(1, 201):
            store.append_log("alice", "big.log", f"entry {i:03}")
        store.append_log("alice", "other.log", "kept")
    assert inspect("retention", "set", "--agent", "alice", "--logs", "big", "--keep-entries", "10").code == 0
    done = inspect("db", "prune")
    assert (done.code, done.out) == (0, "pruned 190 entries (1,710 bytes) of 1 logs\n")
    assert inspect("db", "prune").out == "pruned 0 entries (0 bytes) of 0 logs\n"
    with open_store(url) as store:
        assert [e.entry for e in store.read_log("alice", "big.log").entries][:1] == ["entry 191"]
        stats = store.get_usage_stats("alice")
        assert (stats.log_count, stats.logs) == (11, 2)
    checked = inspect("db", "check")
    assert checked.code == 0, checked.out
