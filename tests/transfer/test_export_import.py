"""Export and import: SQLite -> Postgres -> SQLite keeps everything and exports byte-identical."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_adapters.sql.transfer.exporter import export
from scratchpad_adapters.sql.transfer.importer import import_
from scratchpad_core.errors import InvalidInput
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer
from tests.recount import SqlRecounter

CLI = str(Path(sys.executable).with_name("scratchpad-mcp"))


def fill(store: Scratchpad) -> None:
    for i in range(13):  # 13 writes: versions 4..13 retained
        store.write_file("alice", "notes/plan.md", f"# Plan v{i}\n" + "- step é 日本\n" * i)
    store.write_file("alice", "long.txt", "x" * 9000)
    store.summarize_file("alice", "long.txt")
    store.write_file("bob", "crlf.txt", "one\r\ntwo\r\nno final newline")
    for i in range(250):
        store.append_log("alice", "journal", f"entry {i} ✓")
    store.append_log("bob", "a/log", "only one")
    store.read_file("alice", "notes/plan.md", since_version=5)  # counts an operation and bytes saved


def exported(url: str, agent: str | None = None) -> str:
    engine = make_engine(url)
    out = io.StringIO()
    try:
        export(engine, out, agent=agent)
    finally:
        engine.dispose()
    return out.getvalue()


def imported(url: str, text: str, replace: bool = False) -> None:
    open_store(url).close()  # migrate the target first, as the CLI does
    engine = make_engine(url)
    try:
        import_(engine, io.StringIO(text), replace=replace)
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_round_trip_sqlite_postgres_sqlite_is_byte_identical(tmp_path: Path, postgres_url: str) -> None:
    source = f"sqlite:///{tmp_path / 'source.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        fill(store)
    first = exported(source)
    imported(postgres_url, first)
    second = exported(postgres_url)
    assert second == first
    back = f"sqlite:///{tmp_path / 'back.db'}"
    imported(back, second)
    assert exported(back) == first

    summarizer = FakeSummarizer()
    with open_store(postgres_url, summarizer=summarizer) as store:
        assert [v.version for v in store.list_versions("alice", "notes/plan.md").versions] == list(range(4, 14))
        assert store.read_file("alice", "notes/plan.md", version=4).content == "# Plan v3\n" + "- step é 日本\n" * 3
        assert store.read_file("bob", "crlf.txt").content == "one\r\ntwo\r\nno final newline"
        assert store.summarize_file("alice", "long.txt").cached is True and summarizer.calls == []
        page = store.read_log("alice", "journal", 200)
        assert [e.id for e in page.entries] == list(range(201, 251)) and page.entries[0].entry == "entry 200 ✓"
        assert store.write_file("alice", "notes/plan.md", "next").version == 14  # numbering carries on
        assert store.append_log("alice", "journal", "next").entry_id == 251
        stats = store.get_usage_stats("alice")
    source_ops = json.loads(first.splitlines()[1])["operations"]
    assert stats.total_operations == source_ops + 7  # alice's seven calls above, on top of the imported count
    recounter = SqlRecounter(postgres_url)
    try:
        with open_store(postgres_url) as store:
            recounter.check(store, "alice")
            recounter.check(store, "bob")
    finally:
        recounter.close()


def test_import_refuses_an_agent_with_data_unless_replacing(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        fill(store)
    dump = exported(source)
    with open_store(target) as store:
        store.write_file("bob", "mine.md", "keep me")
    with pytest.raises(InvalidInput, match=r"'bob' already has data.*--replace"):
        imported(target, dump)
    with open_store(target) as store:  # all or nothing: alice was not imported either
        assert store.list_files("alice").count == 0
        assert store.read_file("bob", "mine.md").content == "keep me"
    imported(target, dump, replace=True)
    assert exported(target) == dump


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda text: text.rsplit("\n", 2)[0] + "\n", "truncated"),
        (lambda text: '{"type":"header","format":"other","version":1}\n' + text.split("\n", 1)[1], "not a"),
        (lambda text: text.replace('"type":"version"', '"type":"mystery"', 1), "unexpected record type"),
        (lambda text: text.replace("\n", "\n{not json\n", 1), "not JSON"),
    ],
)
def test_a_bad_import_is_refused_and_loads_nothing(tmp_path: Path, mangle: object, message: str) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        fill(store)
    with pytest.raises(InvalidInput, match=message):
        imported(target, mangle(exported(source)))  # type: ignore[operator]
    with open_store(target) as store:
        assert store.list_files("alice").count == 0 and store.list_logs("bob").count == 0


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRATCHPAD_")}
    return subprocess.run([CLI, *args], input=stdin, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_cli_export_and_import_show_progress_and_filter_by_agent(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        fill(store)
    dump = tmp_path / "dump.jsonl"
    done = run_cli("--database", source, "export", "-o", str(dump))
    assert done.returncode == 0, done.stderr
    assert "exported 2 agents, 3 files, 12 versions, 1 summary, 2 logs, 251 entries: done" in done.stderr
    assert dump.read_text(encoding="utf-8") == exported(source)

    only_bob = run_cli("--database", source, "export", "--agent", "bob")
    assert only_bob.returncode == 0 and only_bob.stdout == exported(source, agent="bob")
    assert [json.loads(line)["type"] for line in only_bob.stdout.splitlines()] == [
        "header", "agent", "file", "version", "log", "entry", "end"
    ]  # fmt: skip

    loaded = run_cli("--database", target, "import", str(dump))
    assert loaded.returncode == 0, loaded.stderr
    assert "imported 2 agents" in loaded.stderr and exported(target) == dump.read_text(encoding="utf-8")
    again = run_cli("--database", target, "import", "-", stdin=dump.read_text(encoding="utf-8"))
    assert again.returncode == 1 and "already has data" in again.stderr and "Traceback" not in again.stderr


def test_the_export_leaves_the_index_out_and_an_import_rebuilds_it(tmp_path: Path) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        fill(store)
    dump = exported(source)
    assert "search" not in {json.loads(line)["type"] for line in dump.splitlines()}
    with open_store(target) as store:
        store.write_file("bob", "stale.md", "a word only bob's old data held: zeppelin\n")
    imported(target, dump, replace=True)  # bob's index is replaced with the imported data's
    with open_store(target) as store:
        assert [(m.path, m.line) for m in store.search_files("alice", "plan").matches] == [("notes/plan.md", 1)]
        assert [m.entry for m in store.search_files("alice", "entry 249", max_results=1).matches] == [250]
        assert store.search_files("bob", "zeppelin").matches == []
        assert [m.path for m in store.search_files("bob", "two").matches] == ["crlf.txt"]
    engine = make_engine(target)
    try:
        report = check(engine, Limits())
    finally:
        engine.dispose()
    assert report.ok, list(report.lines())
