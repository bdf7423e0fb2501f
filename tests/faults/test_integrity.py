"""`db check` (scratchpad_adapters.sql.integrity.checking): each invariant broken by raw SQL in a real store is named.

A store is filled through the library (two agents; files with pruned versions, a summary, tombstones,
logs), then one rule is broken with plain SQL on a connection of the test's own (foreign keys off
where a row must lose its parent). The check must report exactly the rules that injection breaks,
say nothing about the other agent when scoped to it, and change no row.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.pool import NullPool

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity import rules as integrity_rules
from scratchpad_adapters.sql.integrity.checking import EXAMPLES, Report, Violation, check
from scratchpad_core.bounds import SUMMARY_THRESHOLD_CHARS
from scratchpad_core.limits import Limits
from scratchpad_core.model import sha256_hex
from tests.conftest import SQL_ONLY, FakeSummarizer
from tests.faults.commands import db_check
from tests.recount import SqlRecounter

LIMITS = Limits(max_versions=3, remembered_deletions=2)
LONG = "a line of a long file\n" * (SUMMARY_THRESHOLD_CHARS // 20)

_FILE = "(SELECT id FROM files WHERE agent_id = 'alice' AND path = '{}')"
_LOG = "(SELECT id FROM logs WHERE agent_id = 'alice' AND path = '{}')"
A, BIG, GONE, FILE_TOMB2 = _FILE.format("a.md"), _FILE.format("big.md"), _FILE.format("gone.md"), _FILE.format("x.md")
NOTES, OLD = _LOG.format("notes"), _LOG.format("old")
A_ROWS = f"(SELECT id FROM search_files WHERE file_id = {A})"  # the owner of a.md's word-search index rows
V9 = sha256_hex("v9\n")  # the hash of a content no version holds
NEW_VERSION = "INSERT INTO file_versions (file_id, version, content, bytes, lines, sha256, created_at) VALUES"
NEW_ENTRY = "INSERT INTO log_entries (log_id, entry_id, entry, bytes, created_at) VALUES"
NEW_SUMMARY = "INSERT INTO summaries (file_id, version, summary, model, created_at) VALUES"

# rule broken -> (the statements that break it, every rule the check must then report)
INJECTIONS: dict[str, tuple[list[str], set[str]]] = {
    "file-state": ([f"UPDATE files SET current_version = 0 WHERE id = {GONE}"], {"file-state"}),
    "head-missing": (
        [f"DELETE FROM file_versions WHERE file_id = {A} AND version = 5",
         "UPDATE agents SET bytes = bytes - 3 WHERE agent_id = 'alice'"],
        {"head-missing"},
    ),
    "version-gap": (
        [f"DELETE FROM file_versions WHERE file_id = {A} AND version = 4",
         "UPDATE agents SET bytes = bytes - 3 WHERE agent_id = 'alice'"],
        {"version-gap"},
    ),
    "head-mismatch": ([f"UPDATE files SET sha256 = 'beef' WHERE id = {A}"], {"head-mismatch"}),
    # Content changed behind the store's back is no longer what the word-search index holds: search-file too.
    "version-size": ([f"UPDATE file_versions SET content = 'v4!!' WHERE file_id = {A} AND version = 5"],
                     {"version-size", "version-hash", "search-file"}),  # another content: another hash too
    # the head's content replaced by another of the same size and lines: only its hash tells
    "version-hash": ([f"UPDATE file_versions SET content = 'zz' || char(10) WHERE file_id = {A} AND version = 5"],
                     {"version-hash", "search-file"}),
    "version-hash-old": ([f"UPDATE file_versions SET sha256 = '{V9}' WHERE file_id = {A} AND version = 3"],
                         {"version-hash"}),
    "version-lines": ([f"UPDATE file_versions SET lines = 2 WHERE file_id = {A} AND version = 4"], {"version-lines"}),
    "tombstone-versions": (
        [f"{NEW_VERSION} ({GONE}, 2, 'old', 3, 1, '{sha256_hex('old')}', 0)",
         "UPDATE agents SET bytes = bytes + 3 WHERE agent_id = 'alice'"],
        {"tombstone-versions"},
    ),
    "tombstone-head": ([f"UPDATE files SET bytes = 7 WHERE id = {GONE}"], {"tombstone-head"}),
    "summary-version": ([f"UPDATE summaries SET version = 7 WHERE file_id = {BIG}"], {"summary-version"}),
    "log-state": ([f"UPDATE logs SET entries = -1 WHERE id = {OLD}"], {"log-state"}),
    "log-counters": ([f"UPDATE logs SET bytes = bytes + 1 WHERE id = {NOTES}"], {"log-counters"}),
    "entry-gap": ([f"UPDATE log_entries SET entry_id = 0 WHERE log_id = {NOTES} AND entry_id = 1"],
                  {"entry-gap", "search-entry"}),  # the index holds entry 1, not 0
    "entry-head": ([f"UPDATE logs SET last_entry_id = last_entry_id + 1 WHERE id = {NOTES}"],
                   {"entry-head"}),  # the live entries are now 2..4, the index holds 1..3: a backlog (a note)
    "entry-size": ([f"UPDATE log_entries SET entry = 'twelve bytes' WHERE log_id = {NOTES} AND entry_id = 2"],
                   {"entry-size", "search-entry"}),
    "tombstone-entries": (
        [f"{NEW_ENTRY} ({OLD}, 2, 'late', 4, 0)",
         "UPDATE agents SET bytes = bytes + 4, log_entries = log_entries + 1 WHERE agent_id = 'alice'"],
        {"tombstone-entries"},
    ),
    "tombstone-log-id": ([f"UPDATE logs SET last_entry_id = 0 WHERE id = {OLD}"], {"tombstone-log-id"}),
    "counter-files": (["UPDATE agents SET files = files + 1 WHERE agent_id = 'alice'"], {"counter-files"}),
    "counter-bytes": (["UPDATE agents SET bytes = bytes - 1 WHERE agent_id = 'alice'"], {"counter-bytes"}),
    "counter-logs": (["UPDATE agents SET logs = 0 WHERE agent_id = 'alice'"], {"counter-logs"}),
    "counter-log-entries": (["UPDATE agents SET log_entries = 9 WHERE agent_id = 'alice'"], {"counter-log-entries"}),
    "counter-missing-row": (["DELETE FROM agents WHERE agent_id = 'alice'"],
                            {"counter-files", "counter-bytes", "counter-logs", "counter-log-entries"}),
    "remembered-files": (
        ["INSERT INTO files (agent_id, path, current_version, bytes, sha256, created_at, updated_at) "
         "VALUES ('alice', 'older.md', -1, 0, '', 0, 0)"],
        {"remembered-files"},
    ),
    "remembered-logs": (
        ["INSERT INTO logs (agent_id, path, last_entry_id, entries, bytes, created_at, updated_at) "
         "VALUES ('alice', 'older', 3, 0, 0, 0, 0)"],
        {"remembered-logs"},
    ),
    "orphan-versions": ([f"{NEW_VERSION} (9999, 1, 'x', 1, 1, 'x', 0)"], {"orphan-versions"}),
    "orphan-summaries": ([f"{NEW_SUMMARY} (9999, 1, 's', 'm', 0)"], {"orphan-summaries"}),
    "orphan-entries": ([f"{NEW_ENTRY} (9999, 1, 'x', 1, 0)"], {"orphan-entries"}),
    # the word-search index, changed behind the store's back
    "search-file": ([f"DELETE FROM search_rows WHERE owner = {A_ROWS}"], {"search-file", "search-counters"}),
    "search-file-text": ([f"UPDATE search_rows SET text = 'v9' WHERE owner = {A_ROWS}"], {"search-file"}),
    "search-terms": ([f"UPDATE search_rows SET length = length + 1 WHERE owner = {A_ROWS}"],
                     {"search-file", "search-counters"}),  # its terms are not its text's; the statistics differ
    "search-entry": ([f"UPDATE search_rows SET text = 'tw0' WHERE owner = -{NOTES} AND entry = 2"], {"search-entry"}),
    # the index's record behind its file while the row's marker says it is not: no search would catch it up
    "search-marker": ([f"UPDATE search_files SET version = version - 1 WHERE file_id = {A}"], {"search-marker"}),
    "search-marker-log": ([f"UPDATE search_logs SET last_entry = last_entry - 1 WHERE log_id = {NOTES}"],
                          {"search-marker"}),
    "search-counters": (["UPDATE search_agents SET documents = documents + 1 WHERE agent_id = 'alice'"],
                        {"search-counters"}),
    "orphan-search-rows": (["INSERT INTO search_rows (owner, entry, text, terms, length) VALUES (99999, 0, '', '', 0)"],
                           {"search-orphan"}),
}  # fmt: skip


@pytest.fixture
def filled(database_url: str) -> Iterator[str]:
    """alice: a.md at version 5 (3..5 kept), big.md summarized, two deleted files, two logs (one deleted); bob."""
    store = open_store(database_url, limits=LIMITS, summarizer=FakeSummarizer())
    for n in range(5):
        store.write_file("alice", "a.md", f"v{n}\n")
    store.write_file("alice", "big.md", LONG)
    store.summarize_file("alice", "big.md")
    for path in ("gone.md", "x.md"):
        store.write_file("alice", path, "soon gone")
        store.write_file("alice", path, "soon gone, really")
        store.delete_file("alice", path)
    for entry in ("one", "two", "three"):
        store.append_log("alice", "notes", entry)
    store.append_log("alice", "old", "first")
    store.delete_log("alice", "old")
    store.append_log("alice", "old2", "first")
    store.delete_log("alice", "old2")
    store.write_file("bob", "b.md", "bob's")
    store.append_log("bob", "journal", "day one")
    for agent in ("alice", "bob"):
        store.search_files(agent, "anything")  # the index caught up: no backlog
    store.close()
    yield database_url


def _raw(url: str) -> Engine:
    """An engine of the test's own with foreign keys off: some injections leave rows without their parent."""
    engine = create_engine(url, poolclass=NullPool)
    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _no_keys(dbapi_connection: object, _record: object) -> None:
            dbapi_connection.execute("PRAGMA foreign_keys=OFF")  # type: ignore[attr-defined]

    return engine


def inject(url: str, statements: list[str]) -> None:
    engine = _raw(url)
    with engine.begin() as connection:
        if engine.dialect.name == "postgresql":
            connection.execute(text("SET LOCAL session_replication_role = replica"))  # no foreign key triggers
        for statement in statements:
            connection.execute(text(_dialect(statement, connection)))
    engine.dispose()


def _dialect(statement: str, connection: Connection) -> str:
    return statement.replace("char(10)", "chr(10)") if connection.dialect.name == "postgresql" else statement


def run_check(url: str, agent: str | None = None) -> Report:
    engine = make_engine(url)
    try:
        return check(engine, LIMITS, agent)
    finally:
        engine.dispose()


@SQL_ONLY
def test_a_store_used_through_the_library_passes(filled: str) -> None:
    report = run_check(filled)
    assert report.ok, list(report.lines())
    assert report.checked == {"agent": 2, "file row": 5, "version": 5, "summary": 1, "log row": 4, "entry": 4}
    assert list(report.lines()) == [report.summary()]
    assert report.summary().startswith("OK: every agent: 2 agents, 5 file rows, 5 versions, 1 summary")


@SQL_ONLY
@pytest.mark.parametrize("case", list(INJECTIONS))
def test_each_broken_invariant_is_named(filled: str, case: str) -> None:
    statements, expected = INJECTIONS[case]
    recounter = SqlRecounter(filled)
    inject(filled, statements)
    before = {agent: recounter.snapshot(agent) for agent in ("alice", "bob")}

    report = run_check(filled)
    assert set(report.counts) == expected, list(report.lines())
    assert not report.ok
    shown = list(report.lines())
    assert shown[-1].startswith("FAILED: every agent: ")
    orphan = case.startswith("orphan-")
    for rule in expected:
        lines = [line for line in shown if line.startswith(f"{rule}: ")]
        assert lines, shown
        assert all(("no agent" if orphan else "agent 'alice'") in line for line in lines), lines

    scoped = run_check(filled, "alice")
    assert set(scoped.counts) == expected
    # bob's part of the store is intact; rows that belong to no agent are reported in every scope
    assert set(run_check(filled, "bob").counts) == (expected if orphan else set())
    assert {agent: recounter.snapshot(agent) for agent in ("alice", "bob")} == before, "the check changed nothing"
    recounter.close()


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    "tamper",
    [  # FTS5's own index, which a search reads, changed without its rows: a row's terms gone, a term invented
        f"INSERT INTO search_fts(search_fts, rowid, terms) SELECT 'delete', id, terms FROM search_rows "
        f"WHERE owner = {A_ROWS}",
        f"INSERT INTO search_fts(rowid, terms) SELECT id, '1_zzzfake' FROM search_rows WHERE owner = {A_ROWS}",
    ],
)
def test_sqlite_full_text_index_behind_the_rows_back_is_named(filled: str, tamper: str) -> None:
    assert run_check(filled).ok
    inject(filled, [tamper])
    report = run_check(filled)
    assert set(report.counts) == {"search-engine"}, list(report.lines())
    assert any("INSERT INTO search_fts(search_fts) VALUES ('rebuild')" in line for line in report.lines())
    inject(filled, ["INSERT INTO search_fts(search_fts) VALUES ('rebuild')"])  # what the report says to do
    assert run_check(filled).ok


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_index_row_its_file_does_not_list_is_no_result_and_is_named(filled: str) -> None:
    inject(filled, [f"INSERT INTO search_rows (owner, entry, text, terms, length) SELECT {A_ROWS}, 0, 'ghost', "
                    "id || '_ghost', 1 FROM search_agents WHERE agent_id = 'alice'"])  # fmt: skip
    store = open_store(filled, limits=LIMITS)
    try:
        assert store.search_files("alice", "ghost").matches == []  # a damaged index is no failure of the search
        assert [m.path for m in store.search_files("alice", "v4").matches] == ["a.md"]
    finally:
        store.close()
    assert "search-file" in run_check(filled).counts


@SQL_ONLY
def test_a_backlog_is_a_note_and_a_lying_marker_is_named_with_its_repair(filled: str) -> None:
    store = open_store(filled, limits=LIMITS)
    store.write_file("alice", "a.md", "v9 deploy\n")  # in the backlog until a search
    store.append_log("alice", "notes", "four")
    store.close()
    report = run_check(filled)
    backlog = "note: 1 files and 1 logs wait in the search index's backlog (written, not yet indexed: the next"
    assert report.ok and [n[: len(backlog)] for n in report.notes] == [backlog], list(report.lines())
    inject(filled, [f"UPDATE files SET indexed_version = current_version WHERE id = {A}"])  # says: indexed
    report = run_check(filled)
    assert set(report.counts) == {"search-marker"}, list(report.lines())
    (line,) = [line for line in report.lines() if line.startswith("search-marker: ")]
    assert line.startswith(
        "search-marker: agent 'alice', a.md: the row says the index holds version 6, its record "
        "holds version 5. Set the markers from the index records"
    )
    inject(filled, ["UPDATE" + part.rstrip("; ") for part in line.split("UPDATE")[1:]])  # its two statements
    report = run_check(filled)  # the repair the line names: the markers from the records, a.md back in the backlog
    assert report.ok and [n[: len(backlog)] for n in report.notes] == [backlog], list(report.lines())
    store = open_store(filled, limits=LIMITS)
    assert [m.path for m in store.search_files("alice", "deploy").matches] == ["a.md"]
    store.close()
    assert run_check(filled).notes == []


@SQL_ONLY
def test_a_report_shows_a_bounded_sample_and_counts_the_rest(filled: str) -> None:
    extra = EXAMPLES + 15
    inject(filled, [
        "INSERT INTO files (agent_id, path, current_version, bytes, sha256, created_at, updated_at) "
        f"VALUES ('carol', 'f{n:03}.md', 0, 0, '', 0, 0)"
        for n in range(extra)
    ])  # fmt: skip
    report = run_check(filled, "carol")
    assert report.counts == {"file-state": extra}
    lines = list(report.lines())
    assert len([line for line in lines if line.startswith("file-state: agent 'carol'")]) == EXAMPLES
    assert "file-state: 15 more not shown" in lines
    assert lines[-1].startswith(f"FAILED: agent 'carol': {extra} violations of 1 rule (file-state)")


@SQL_ONLY
def test_summaries_of_pruned_versions_do_not_outlive_them(filled: str) -> None:
    """A summary cached for a version that later writes prune goes with it (found by this check)."""
    store = open_store(filled, limits=LIMITS, summarizer=FakeSummarizer())
    for n in range(LIMITS.max_versions):
        store.write_file("alice", "big.md", LONG + f"edit {n}\n")
    store.restore_version("alice", "big.md", 4)
    store.close()
    report = run_check(filled)
    assert report.ok, list(report.lines())


@SQL_ONLY
def test_more_versions_than_the_setting_is_a_note_until_the_next_write(filled: str) -> None:
    """A store written with SCRATCHPAD_MAX_VERSIONS=10 and checked with 3 is sound: a write prunes only its own
    file, so lowering the setting leaves each file's extra versions until its next write."""
    store = open_store(filled, limits=Limits(max_versions=10))
    for n in range(6):
        store.write_file("bob", "b.md", f"bob {n}\n")
        store.write_file("bob", "c.md", f"bob {n}\n")
    store.search_files("bob", "bob")  # (no backlog left to note)
    store.close()
    note = ("note: 2 files retain more than SCRATCHPAD_MAX_VERSIONS=3 versions (up to 7), as kept under a higher "
            "setting or by a redaction; the extra versions go at each file's next write. Not a violation.")  # fmt: skip
    report = run_check(filled)
    assert report.ok and report.notes == [note], list(report.lines())
    assert list(report.lines()) == [note, report.summary()]
    assert run_check(filled, "alice").notes == []
    command = db_check(filled, LIMITS, "--agent", "bob")
    assert command.returncode == 0, command.stderr
    assert command.stdout.splitlines()[0] == note
    assert command.stdout.splitlines()[1].startswith("OK: agent 'bob': ")

    store = open_store(filled, limits=LIMITS)  # the next write under the lower setting prunes that file
    store.write_file("bob", "b.md", "bob again\n")
    store.search_files("bob", "bob")
    store.close()
    assert run_check(filled).notes == [note.replace("2 files retain", "1 file retains").replace("up to 7", "up to 6")]


@SQL_ONLY
def test_the_command_reports_ok_in_one_line_and_each_violation_with_a_non_zero_exit(filled: str) -> None:
    clean = db_check(filled, LIMITS)
    assert (clean.returncode, clean.stdout.splitlines()) == (0, [run_check(filled).summary()]), clean.stderr
    assert clean.stdout.startswith("OK: every agent: 2 agents, 5 file rows, 5 versions, 1 summary, 4 log rows")

    statements, _ = INJECTIONS["version-gap"]
    inject(filled, statements + INJECTIONS["counter-logs"][0])
    broken = db_check(filled, LIMITS)
    assert broken.returncode == 1, broken.stderr
    lines = broken.stdout.splitlines()
    assert lines[0] == "version-gap: agent 'alice', a.md: versions 3..5 retained as 2 rows: 1 missing"
    assert lines[1] == "counter-logs: agent 'alice', counters: the agent's logs counter is 0, a recount gives 1"
    assert lines[2].startswith("FAILED: every agent: 2 violations of 2 rules (counter-logs, version-gap) in ")
    assert len(lines) == 3

    scoped = db_check(filled, LIMITS, "--agent", "bob")
    assert scoped.returncode == 0 and scoped.stdout.startswith("OK: agent 'bob': 1 agent, 1 file row, 1 version")
    unknown = db_check(filled, LIMITS, "--agent", "nobody")
    assert unknown.returncode == 1 and unknown.stdout == ""
    assert "Agent 'nobody' has no data in this database; nothing was checked. Check the agent id." in unknown.stderr


def test_the_command_refuses_what_it_cannot_check(tmp_path: Path) -> None:
    memory = db_check("memory://store", LIMITS)
    assert memory.returncode == 1 and "is a store in one process's memory" in memory.stderr
    missing = db_check(f"sqlite:///{tmp_path / 'typo.db'}", LIMITS)
    assert missing.returncode == 1 and "There is no database file at" in missing.stderr
    assert not (tmp_path / "typo.db").exists()
    empty = tmp_path / "empty.db"
    empty.touch()
    unmigrated = db_check(f"sqlite:///{empty}", LIMITS)
    assert unmigrated.returncode == 1
    assert "is at revision empty (no schema), and `db check` reads the schema at head" in unmigrated.stderr


@SQL_ONLY
def test_the_check_reads_one_snapshot_and_blocks_no_writer(filled: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A row broken and committed while the check runs (after its first queries, before the counters') is not
    seen by it: every query reads the snapshot its transaction began with; the writer did not wait for it."""
    seen: dict[str, object] = {}
    first_rules = integrity_rules.file_rules

    def file_rules_then_a_commit(connection: Connection, agent: str | None, limits: Limits) -> Iterator[Violation]:
        yield from first_rules(connection, agent, limits)
        if connection.dialect.name == "postgresql":
            seen["isolation"] = connection.execute(text("SHOW transaction_isolation")).scalar()
            seen["read only"] = connection.execute(text("SHOW transaction_read_only")).scalar()
        inject(filled, INJECTIONS["counter-files"][0])  # another connection, committed at once

    monkeypatch.setattr(integrity_rules, "file_rules", file_rules_then_a_commit)
    assert run_check(filled).ok
    if "isolation" in seen:
        assert seen == {"isolation": "repeatable read", "read only": "on"}
    monkeypatch.undo()
    assert set(run_check(filled).counts) == {"counter-files"}, "the next check sees the commit"
