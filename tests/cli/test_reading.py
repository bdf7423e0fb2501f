"""cat, versions, diff, log, search and stats: what a person reads, and the JSON a script reads."""

from __future__ import annotations

import json

from scratchpad_core.service import Scratchpad
from tests.cli.conftest import NOTE, PLAN_V1, PLAN_V2


def test_cat_whole_lines_and_versions(filled: Scratchpad, inspect) -> None:
    assert inspect("cat", "-a", "alice", "plans/plan.md").out == PLAN_V2
    assert inspect("cat", "-a", "alice", "plans/plan.md", "--version", "1").out == PLAN_V1
    assert inspect("cat", "-a", "alice", "plans/plan.md", "--lines", "2:3").out == "step one, done\nstep two\n"
    assert inspect("cat", "-a", "alice", "plans/plan.md", "--lines", "3:").out == "step two\nstep three\n"
    assert inspect("cat", "-a", "alice", "plans/plan.md", "--lines", ":1").out == "goal: ship\n"
    read = json.loads(inspect("cat", "-a", "alice", "plans/plan.md", "--lines", "2:2", "--json").out)
    assert read == {"path": "plans/plan.md", "current_version": 2, "content": "step one, done\n", "start_line": 2,
                    "end_line": 2, "total_lines": 4}  # fmt: skip
    assert inspect("cat", "-a", "alice", "notes.txt").out == NOTE  # text as stored


def test_versions(filled: Scratchpad, inspect) -> None:
    done = inspect("versions", "-a", "alice", "plans/plan.md")
    lines = done.out.splitlines()
    assert lines[0].split()[:4] == ["version", "bytes", "lines", "created"]
    assert [line.split()[:3] for line in lines[1:]] == [["1", str(len(PLAN_V1)), "3"], ["2", str(len(PLAN_V2)), "4"]]
    assert [line.rstrip().split("  ")[-1] for line in lines[1:]] == ["library", "key k1 (planner)"]  # who
    listing = json.loads(inspect("versions", "-a", "alice", "plans/plan.md", "--json").out)
    assert [v["by"] for v in listing["versions"]] == ["library", "key k1 (planner)"]
    assert listing["current_version"] == 2 and [v["version"] for v in listing["versions"]] == [1, 2]
    assert listing["versions"][1]["sha256"] == filled.list_versions("alice", "plans/plan.md").versions[1].sha256


def test_diff_is_plain_when_piped(filled: Scratchpad, inspect) -> None:
    filled.write_file("alice", "plans/plan.md", PLAN_V2 + "step four\n")
    expected = [
        "--- plans/plan.md@1", "+++ plans/plan.md@2", "@@ -1,3 +1,4 @@", " goal: ship", "-step one",
        "+step one, done", " step two", "+step three",
    ]  # fmt: skip
    explicit = inspect("diff", "-a", "alice", "plans/plan.md", "1", "2")
    assert explicit.code == 0 and explicit.out.splitlines() == expected and "\x1b[" not in explicit.out
    latest = inspect(
        "diff", "-a", "alice", "plans/plan.md"
    ).out.splitlines()  # the current version against the one before
    assert latest[:2] == ["--- plans/plan.md@2", "+++ plans/plan.md@3"] and latest[-1] == "+step four"
    to_current = inspect("diff", "-a", "alice", "plans/plan.md", "1").out.splitlines()
    assert to_current[1] == "+++ plans/plan.md@3" and "+step four" in to_current
    backwards = json.loads(inspect("diff", "-a", "alice", "plans/plan.md", "3", "1", "--json").out)
    assert (backwards["from"], backwards["to"]) == (3, 1) and "-step four\n" in backwards["diff"]


def test_log_since_tail_and_json(filled: Scratchpad, inspect) -> None:
    everything = inspect("log", "-a", "alice", "runs/today.log").out.splitlines()
    assert [line.split("  ")[0] for line in everything] == ["#1", "#2", "#3", "#4", "#5"]
    assert everything[0].endswith("  library  entry 1") and everything[4].endswith("  stdio  entry 5")
    since = inspect("log", "-a", "alice", "runs/today.log", "--since", "3").out.splitlines()
    assert [line.split("  ")[-1] for line in since] == ["entry 4", "entry 5"]
    tail = inspect("log", "-a", "alice", "runs/today.log", "--tail", "2", "--json").out.splitlines()
    assert [json.loads(line)["entry"] for line in tail] == ["entry 4", "entry 5"]
    assert [json.loads(line)["by"] for line in tail] == ["library", "stdio"]
    assert json.loads(tail[-1])["id"] == 5  # the --since a script continues with


def test_a_long_log_is_read_page_by_page(filled: Scratchpad, inspect) -> None:
    for number in range(6, 251):
        filled.append_log("alice", "runs/today.log", f"entry {number}")
    lines = inspect("log", "-a", "alice", "runs/today.log", "--json").out.splitlines()
    assert [json.loads(line)["id"] for line in lines] == list(range(1, 251))


def test_search_by_words(filled: Scratchpad, inspect) -> None:
    """The default: passages (path:line: each of their lines) and entries (path#entry: text), best first."""
    found = inspect("search", "-a", "alice", "what is the goal?")
    assert found.out.splitlines() == ["plans/plan.md:1: goal: ship", "plans/plan.md:2: step one, done"]
    steps = inspect("search", "-a", "alice", "entry 3")
    assert steps.out.splitlines()[0] == "runs/today.log#3: entry 3"
    passages = json.loads(inspect("search", "-a", "alice", "step three", "--json").out)
    assert [(m["path"], m["line"], m["end_line"]) for m in passages["matches"]] == [
        ("plans/plan.md", 3, 4), ("plans/plan.md", 1, 2)]  # fmt: skip
    assert "files_searched" not in passages
    limited = inspect("search", "-a", "alice", "entry", "--limit", "1")
    assert len(limited.out.splitlines()) == 1 and "more results than 1" in limited.err
    refused = inspect("search", "-a", "alice", "?!")
    assert refused.code != 0 and "no word" in refused.err
    assert "pass --exact to find punctuation" in refused.err and "exact=true" not in refused.err  # its own terms


def test_search_with_no_match_says_so_and_exits_1_as_grep_does(filled: Scratchpad, inspect) -> None:
    for args, said in (
        (("nowhere",), "no match for the words 'nowhere' in alice's files and logs."),
        (("STEP Z", "--exact"), "no match for the text 'STEP Z' in alice's files and logs."),
        (
            ("^zz$", "--regex", "--prefix", "plans/"),
            "no match for the regular expression '^zz$' in alice's files and logs under plans/.",
        ),
    ):
        done = inspect("search", "-a", "alice", *args)
        assert (done.code, done.out) == (1, ""), args
        assert done.error == f"scratchpad-mcp: {said}"
    as_json = inspect("search", "-a", "alice", "nowhere", "--json")
    assert as_json.code == 1 and json.loads(as_json.out)["matches"] == []
    assert as_json.error == "scratchpad-mcp: no match for the words 'nowhere' in alice's files and logs."
    found = inspect("search", "-a", "alice", "step", "--json")
    assert found.code == 0 and "no match" not in found.err and json.loads(found.out)["matches"]
    assert inspect("search", "-a", "alice", "step").code == 0


def test_search_exact_and_regex(filled: Scratchpad, inspect) -> None:
    literal = inspect("search", "-a", "alice", "STEP T", "--exact")
    assert literal.out.splitlines() == ["plans/plan.md:3: step two", "plans/plan.md:4: step three"]
    found = json.loads(inspect("search", "-a", "alice", r"^step \w+$", "--regex", "--json").out)
    assert [(m["path"], m["line"]) for m in found["matches"]] == [("plans/plan.md", 3), ("plans/plan.md", 4)]
    assert found["files_searched"] == 2
    limited = inspect("search", "-a", "alice", "step", "--exact", "--limit", "1")
    assert len(limited.out.splitlines()) == 1 and "more results than 1" in limited.err


def test_search_exact_and_regex_find_log_entries_after_the_files(filled: Scratchpad, inspect) -> None:
    filled.append_log("alice", "runs/today.log", "step six\nwith a second line")
    literal = inspect("search", "-a", "alice", "STEP", "--exact")
    assert literal.out.splitlines() == [
        "plans/plan.md:2: step one, done",
        "plans/plan.md:3: step two",
        "plans/plan.md:4: step three",
        "runs/today.log#6: step six␊with a second line",  # an entry on one line, its line ends shown
    ]
    found = json.loads(inspect("search", "-a", "alice", r"^entry [45]$", "--regex", "--json").out)
    assert found["matches"] == [{"path": "runs/today.log", "entry": 4, "text": "entry 4"},
                                {"path": "runs/today.log", "entry": 5, "text": "entry 5"}]  # fmt: skip
    assert (found["count"], found["has_more"]) == (2, False)
    limited = inspect("search", "-a", "alice", "^(step|entry)", "--regex", "--limit", "4")
    assert limited.out.splitlines()[-1] == "runs/today.log#1: entry 1" and "more results than 4" in limited.err


def test_stats(filled: Scratchpad, inspect) -> None:
    done = inspect("stats", "-a", "alice")
    table = {line.split("  ")[0]: line.split() for line in done.out.splitlines()[1:]}
    assert table["files"][1:] == ["2", "1,000", "0%"] and table["log entries"][2] == "5"
    stats = json.loads(inspect("stats", "-a", "alice", "--json").out)
    assert stats["file_count"] == 2 and stats["log_count"] == 5 and stats["quota"]["files"] == 1000
    assert stats["last_activity"] is not None


def test_inspection_changes_nothing(filled: Scratchpad, inspect) -> None:
    """Not even the agent's operation counter: a person looking is not the agent's call."""
    before = filled.get_usage_stats("alice")
    for args in (("agents",), ("files", "-a", "alice"), ("cat", "-a", "alice", "notes.txt"),
                 ("versions", "-a", "alice", "plans/plan.md"), ("diff", "-a", "alice", "plans/plan.md"),
                 ("logs", "-a", "alice"), ("log", "-a", "alice", "runs/today.log"), ("search", "-a", "alice", "step"),
                 ("stats", "-a", "alice")):  # fmt: skip
        assert inspect(*args).code == 0, args
    after = filled.get_usage_stats("alice")
    assert after.total_operations == before.total_operations + 1  # this call of get_usage_stats only
    assert (after.total_bytes, after.bytes_saved) == (before.total_bytes, before.bytes_saved)
