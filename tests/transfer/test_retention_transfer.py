"""Export and import with retention rules (issue 28): an export carries each agent's rules (on logs and on files)
and leaves out the files that have expired (not yet pruned); an import restores the rules, replacing the agent's
as it replaces its data; an export of version 1 (before rules) still imports."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.factory import open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.transfer.exporter import export
from scratchpad_core.errors import InvalidInput
from scratchpad_core.retention.rules import FILES, LOGS, RetentionRule
from scratchpad_core.service import Scratchpad
from tests.transfer.test_export_import import exported, imported, run_cli

HOUR = 3_600_000
RULES = [
    RetentionRule("alice", FILES, "tmp/", None, 3_600),
    RetentionRule("alice", LOGS, "runs/", 1_000, 30 * 86_400),
    RetentionRule("ghost", LOGS, "", 5, None),  # an agent that holds nothing but a rule
]


def fill(url: str) -> None:
    """alice: tmp/old.md and notes.md written two hours ago (tmp/ expires after an hour), tmp/new.md now, a log."""
    backend = open_backend(url)
    try:
        earlier = time.time_ns() // 1_000_000 - 2 * HOUR
        past = Scratchpad(backend.unit_of_work, backend.store.limits, clock=lambda: earlier)
        past.write_file("alice", "tmp/old.md", "expired\n")
        past.write_file("alice", "notes.md", "kept\n")
        store = backend.store
        store.write_file("alice", "tmp/new.md", "fresh\n")
        store.append_log("alice", "runs/a.log", "entry")
        store.set_retention("alice", files="tmp/", max_age="1h")
        store.set_retention("alice", logs="runs/", keep_entries=1000, max_age="30d")
        store.set_retention("ghost", logs="", keep_entries=5)
    finally:
        backend.close()


def records(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def as_version_1(text: str) -> str:
    """The export as the release before rules wrote it: version 1, no rule records, no rules count."""
    kept = [r for r in records(text) if r["type"] != "rule"]
    kept[0]["version"] = 1
    del kept[-1]["counts"]["rules"]
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in kept)


def test_the_export_carries_the_rules_and_leaves_expired_files_out(tmp_path: Path) -> None:
    source = f"sqlite:///{tmp_path / 's.db'}"
    fill(source)
    dump = records(exported(source))
    assert dump[0] == {"type": "header", "format": "scratchpad-export", "version": 2}
    assert [r for r in dump if r["type"] == "rule"] == [
        {"type": "rule", "kind": "files", "prefix": "tmp/", "keep_entries": None, "max_age": 3600},
        {"type": "rule", "kind": "logs", "prefix": "runs/", "keep_entries": 1000, "max_age": 2592000},
        {"type": "rule", "kind": "logs", "prefix": "", "keep_entries": 5, "max_age": None},
    ]
    assert [r["path"] for r in dump if r["type"] == "file"] == ["notes.md", "tmp/new.md"]
    assert [r["agent_id"] for r in dump if r["type"] == "agent"] == ["alice", "ghost"]
    assert dump[-1]["counts"] == {"agents": 2, "rules": 3, "files": 2, "versions": 2, "summaries": 0, "logs": 1,
                                  "entries": 1}  # fmt: skip
    engine = make_engine(source)
    try:
        before = io.StringIO()
        export(engine, before, now=time.time_ns() // 1_000_000 - 3 * HOUR)  # an hour before tmp/old.md was written
    finally:
        engine.dispose()
    assert [r["path"] for r in records(before.getvalue()) if r["type"] == "file"] == [
        "notes.md", "tmp/new.md", "tmp/old.md"
    ]  # fmt: skip


@pytest.mark.postgres
def test_rules_survive_sqlite_postgres_sqlite_byte_identical(tmp_path: Path, postgres_url: str) -> None:
    source = f"sqlite:///{tmp_path / 's.db'}"
    fill(source)
    first = exported(source)
    imported(postgres_url, first)
    assert exported(postgres_url) == first
    back = f"sqlite:///{tmp_path / 'back.db'}"
    imported(back, exported(postgres_url))
    assert exported(back) == first
    with open_store(postgres_url) as store:
        assert store.list_retention() == RULES
        assert [f.path for f in store.list_files("alice").files] == ["notes.md", "tmp/new.md"]


def test_an_import_replaces_the_agents_rules_as_it_replaces_its_data(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    fill(source)
    dump = exported(source)
    with open_store(target) as store:
        store.set_retention("ghost", files="scratch/", max_age="1d")  # ghost's only data here: a rule
        store.set_retention("bob", logs="x/", keep_entries=3)  # not in the export: left alone
    with pytest.raises(InvalidInput, match=r"'ghost' already has data \(files, logs, counters or retention rules\)"):
        imported(target, dump)
    with open_store(target) as store:  # nothing was imported
        assert [r.agent_id for r in store.list_retention()] == ["bob", "ghost"]
    imported(target, dump, replace=True)
    with open_store(target) as store:
        assert store.list_retention() == [*RULES[:2], RetentionRule("bob", LOGS, "x/", 3, None), RULES[2]]
    assert [r["agent_id"] for r in records(exported(target)) if r["type"] == "agent"] == ["alice", "bob", "ghost"]
    imported(target, as_version_1(dump), replace=True)  # an older export holds no rules: the agents have none
    with open_store(target) as store:
        assert store.list_retention() == [RetentionRule("bob", LOGS, "x/", 3, None)]
        assert [f.path for f in store.list_files("alice").files] == ["notes.md", "tmp/new.md"]


def test_an_export_of_version_1_still_imports(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    fill(source)
    old = as_version_1(exported(source))
    imported(target, old)
    with open_store(target) as store:
        assert store.list_retention() == []
        assert store.read_log("alice", "runs/a.log").total == 1
    with pytest.raises(InvalidInput, match="line 3: unexpected record type 'rule'"):  # v1 had none
        lines = old.splitlines(keepends=True)
        rule = '{"type":"rule","kind":"logs","prefix":"","keep_entries":5,"max_age":null}\n'
        imported(f"sqlite:///{tmp_path / 'u.db'}", "".join([*lines[:2], rule, *lines[2:]]))


Mangle = Callable[[list[dict[str, Any]]], None]


def first_rule(change: Callable[[dict[str, Any]], None]) -> Mangle:
    return lambda rs: change(next(r for r in rs if r["type"] == "rule"))


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (first_rule(lambda r: r.update(kind="dirs")), "line 3: the rule record needs 'kind' as one of logs, files"),
        (first_rule(lambda r: r.update(max_age="1h")), "needs 'max_age' as a whole number or null (got '1h')"),
        (first_rule(lambda r: r.update(keep_entries=5)), "keep-entries is for logs; a files rule takes max-age only"),
        (first_rule(lambda r: r.update(max_age=None)), "Invalid retention rule: give keep-entries N, max-age"),
        (first_rule(lambda r: r.update(prefix="/abs")), "Invalid files prefix '/abs': no path starts so"),
        (first_rule(lambda r: r.update(max_age=0)), "Invalid duration '0s': it must be positive"),
        (lambda rs: rs.insert(3, dict(rs[2])), "line 4: the files rule on 'tmp/' is defined twice for this agent"),
        (lambda rs: rs[0].update(version=3), "export format version 3 is not supported; this scratchpad-mcp reads"),
        (lambda rs: rs[-1]["counts"].update(rules=2), "the end record counts"),
    ],
)
def test_a_bad_rule_record_is_refused_and_loads_nothing(tmp_path: Path, mangle: Mangle, message: str) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    fill(source)
    rs = records(exported(source))
    mangle(rs)
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        imported(target, "".join(json.dumps(r) + "\n" for r in rs))
    assert str(caught.value).count("\n") == 0
    with open_store(target) as store:
        assert store.list_retention() == [] and store.list_files("alice").count == 0


def test_cli_export_and_import_carry_the_rules(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    fill(source)
    dump = tmp_path / "dump.jsonl"
    done = run_cli("--database", source, "export", "-o", str(dump))
    assert done.returncode == 0, done.stderr
    assert "exported 2 agents, 3 rules, 2 files, 2 versions, 0 summaries, 1 log, 1 entry: done" in done.stderr
    assert "tmp/old.md" not in dump.read_text(encoding="utf-8")
    loaded = run_cli("--database", target, "import", str(dump))
    assert loaded.returncode == 0, loaded.stderr
    listed = run_cli("--database", target, "retention", "list", "--json")
    assert json.loads(listed.stdout) == [vars(rule) for rule in RULES]


def test_the_export_leaves_out_log_entries_past_their_age(tmp_path: Path) -> None:
    """As read_log: entries past their rule's max_age, not yet dropped, are not exported; a log all of whose entries
    are is left out whole; the import then reads what the source showed."""
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    backend = open_backend(source)
    try:
        earlier = time.time_ns() // 1_000_000 - 2 * HOUR
        past = Scratchpad(backend.unit_of_work, backend.store.limits, clock=lambda: earlier)
        for entry in ("old one", "old two"):
            past.append_log("alice", "runs/a.log", entry)
        past.append_log("alice", "runs/gone.log", "old")
        backend.store.append_log("alice", "runs/a.log", "new")
        backend.store.set_retention("alice", logs="runs/", max_age="1h")
    finally:
        backend.close()
    dump = exported(source)
    assert [(r["path"], r["id"], r["entry"]) for r in records(dump) if r["type"] == "entry"] == [
        ("runs/a.log", 3, "new")
    ]
    assert [r["path"] for r in records(dump) if r["type"] == "log"] == ["runs/a.log"]
    assert "old" not in dump.replace('"entry":"new"', "")
    imported(target, dump)
    with open_store(target) as store:
        assert [(e.id, e.entry) for e in store.read_log("alice", "runs/a.log").entries] == [(3, "new")]
        assert store.get_usage_stats("alice").log_count == 1
