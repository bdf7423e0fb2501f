"""Who changed what: every version and log entry records its actor; read_log shows it only when asked; export and
import carry it; rows from before the migration read "unknown"."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.transfer.exporter import export
from scratchpad_adapters.sql.transfer.importer import import_
from scratchpad_core.actors import MAX_ACTOR_CHARS
from scratchpad_core.errors import InvalidInput
from scratchpad_core.results import LogEntryOut
from scratchpad_core.service import Scratchpad
from tests.conftest import SQL_ONLY, FakeSummarizer
from tests.recount import Recounter

A = "agent-a"


def bys(store: Scratchpad, path: str) -> list[tuple[int, str]]:
    return [(v.version, v.by) for v in store.list_versions(A, path).versions]


def test_versions_record_who_made_them(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "one\n")
    store.write_file(A, "f.md", "two\n", actor="planner")
    store.edit_file(A, "f.md", "two", "2", actor="editor")
    store.insert_lines(A, "f.md", -1, "end", actor="inserter")
    store.restore_version(A, "f.md", 1, actor="restorer")
    assert bys(store, "f.md") == [(1, "library"), (2, "planner"), (3, "editor"), (4, "inserter"), (5, "restorer")]


def test_a_write_that_makes_no_version_records_nothing(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "same", actor="first")
    assert store.write_file(A, "f.md", "same", actor="second").unchanged
    assert bys(store, "f.md") == [(1, "first")]


def test_moved_versions_keep_who_made_them(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "x", actor="writer")
    store.rename_file(A, "a.md", "b.md")
    assert bys(store, "b.md") == [(1, "writer")]


def test_read_log_shows_who_appended_only_when_asked(store: Scratchpad) -> None:
    store.append_log(A, "run.log", "first")
    store.append_log(A, "run.log", "second", actor="worker-2")
    plain = store.read_log(A, "run.log")
    assert [e.by for e in plain.entries] == [None, None]  # the default reply does not grow
    shown = store.read_log(A, "run.log", show_by=True)
    assert [(e.entry, e.by) for e in shown.entries] == [("first", "library"), ("second", "worker-2")]
    tail = store.read_log(A, "run.log", tail=1, show_by=True)
    assert tail.entries == [LogEntryOut(2, "second", tail.entries[0].created_at, "worker-2")]


def test_a_bad_actor_is_refused_and_changes_nothing(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.md", "x")
    before = recount.snapshot(A)
    for bad in ("", "a" * (MAX_ACTOR_CHARS + 1), "nul\x00"):
        with pytest.raises(InvalidInput, match="actor"):
            store.write_file(A, "f.md", "y", actor=bad)
        with pytest.raises(InvalidInput, match="actor"):
            store.append_log(A, "l", "y", actor=bad)
    assert recount.snapshot(A) == before
    store.write_file(A, "f.md", "y", actor="a" * MAX_ACTOR_CHARS)
    assert bys(store, "f.md")[-1] == (2, "a" * MAX_ACTOR_CHARS)


@SQL_ONLY
def test_export_and_import_carry_who(database_url: str, tmp_path: Path) -> None:
    with open_store(database_url, summarizer=FakeSummarizer()) as store:
        store.write_file(A, "f.md", "one", actor="key:k1 (laptop)")
        store.append_log(A, "run.log", "e", actor="stdio")
    engine = make_engine(database_url)
    out = io.StringIO()
    export(engine, out)
    engine.dispose()
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [r["by"] for r in records if r["type"] in ("version", "entry")] == ["key:k1 (laptop)", "stdio"]

    target = f"sqlite:///{tmp_path / 'target.db'}"
    older = "\n".join(  # an export made before actors were recorded: no "by" at all
        json.dumps({k: v for k, v in r.items() if k != "by"}) for r in records
    )
    open_store(target).close()
    engine = make_engine(target)
    import_(engine, io.StringIO(older + "\n"))
    engine.dispose()
    with open_store(target) as store:
        assert bys(store, "f.md") == [(1, "unknown")]
        assert [e.by for e in store.read_log(A, "run.log", show_by=True).entries] == ["unknown"]


@SQL_ONLY
def test_rows_from_before_the_migration_read_unknown(database_url: str) -> None:
    with open_store(database_url, summarizer=FakeSummarizer()) as store:
        store.write_file(A, "f.md", "one", actor="someone")
        store.append_log(A, "run.log", "e", actor="someone")
    script = ScriptDirectory.from_config(migrate.alembic_config())
    (actors,) = [r for r in script.walk_revisions() if (r.doc or "").startswith("Who changed what")]
    assert isinstance(actors.down_revision, str)
    engine = make_engine(database_url)
    try:
        migrate.downgrade(engine, actors.down_revision)
        migrate.upgrade(engine)
    finally:
        engine.dispose()
    with open_store(database_url, summarizer=FakeSummarizer()) as store:
        assert bys(store, "f.md") == [(1, "unknown")]
        assert [e.by for e in store.read_log(A, "run.log", show_by=True).entries] == ["unknown"]
        store.write_file(A, "f.md", "two", actor="later")
        assert bys(store, "f.md") == [(1, "unknown"), (2, "later")]
