"""Expiring files (issue 24) on every backend: a files rule makes files under its prefix expire that long after
their last write; an expired file reads as deleted everywhere (its path remembered, its numbers carry on), a
write that meets it deletes it first, and prune() deletes the rest; counters equal a recount throughout."""

from __future__ import annotations

import pytest

from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.errors import NotFound, VersionConflict
from scratchpad_core.limits import Limits
from scratchpad_core.retention.rules import FILES, RetentionRule
from scratchpad_core.service import Scratchpad
from tests.conftest import SQL_ONLY
from tests.contract.test_retries import Clock
from tests.recount import Recounter

A = "agent-a"
HOUR = 3_600_000


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    store = Scratchpad(backend.unit_of_work, backend.store.limits, clock=clock)
    store.set_retention(A, files="tmp/", max_age="1h")
    store.write_file(A, "tmp/scratch.md", "zebra one\n")
    store.write_file(A, "tmp/scratch.md", "zebra two\n")
    store.write_file(A, "notes.md", "zebra kept\n")
    return store


def paths(store: Scratchpad) -> list[str]:
    return [f.path for f in store.list_files(A).files]


def test_a_files_rule_is_listed_and_takes_max_age_only(store: Scratchpad) -> None:
    assert store.list_retention(A) == [RetentionRule(A, FILES, "tmp/", None, 3_600)]


def test_an_expired_file_reads_as_deleted_everywhere(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    clock.now += HOUR  # exactly an hour after the last write: still there
    assert store.read_file(A, "tmp/scratch.md").content == "zebra two\n"
    clock.now += 1
    with pytest.raises(NotFound, match=r"File not found: tmp/scratch\.md"):
        store.read_file(A, "tmp/scratch.md")
    with pytest.raises(NotFound):
        store.list_versions(A, "tmp/scratch.md")
    with pytest.raises(NotFound):
        store.edit_file(A, "tmp/scratch.md", "two", "three")
    with pytest.raises(NotFound):
        store.restore_version(A, "tmp/scratch.md", 1)
    assert paths(store) == ["notes.md"]
    assert [(agent, f.path) for agent, f in store.list_store_files().files] == [(A, "notes.md")]  # resources
    assert [m.path for m in store.search_files(A, "zebra").matches] == ["notes.md"]
    assert [m.path for m in store.search_files(A, "zebra", exact=True).matches] == ["notes.md"]
    assert store.delete_file(A, "tmp/scratch.md").deleted is False  # as if deleted: nothing to delete
    recount.check(store, A)


def test_a_write_to_an_expired_path_carries_its_numbers_on(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    clock.now += HOUR + 1
    with pytest.raises(VersionConflict):
        store.write_file(A, "tmp/scratch.md", "again\n", expected_version=2)  # it is gone, as after delete_file
    assert store.write_file(A, "tmp/scratch.md", "again\n", expected_version=0).version == 3
    assert store.read_file(A, "tmp/scratch.md").content == "again\n"
    assert [v.version for v in store.list_versions(A, "tmp/scratch.md").versions] == [3]  # the old ones went
    stats = recount.check(store, A)
    assert stats.file_count == 2


def test_a_write_restarts_the_clock(store: Scratchpad, clock: Clock) -> None:
    clock.now += HOUR - 1
    store.edit_file(A, "tmp/scratch.md", "two", "three")
    clock.now += HOUR
    assert store.read_file(A, "tmp/scratch.md").content == "zebra three\n"


def test_prune_deletes_expired_files_for_good(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    for i in range(70):  # more than one batch
        store.write_file(A, f"tmp/many/{i:02}.md", f"file {i}\n")
    store.write_file(A, "tmpfile.md", "not under tmp/\n")
    clock.now += HOUR + 1
    store.write_file(A, "tmp/fresh.md", "just written\n")
    before = recount.check(store, A)
    assert before.file_count == 3  # expired but not yet pruned: counted nowhere, though their rows are there
    assert sum(1 for f in recount.snapshot(A)["files"] if f[1] > 0) == 74
    result = store.prune()
    assert result.files_expired == 71
    assert result.file_bytes_freed == len("zebra one\n") + len("zebra two\n") + sum(
        len(f"file {i}\n") for i in range(70)
    )
    assert paths(store) == ["notes.md", "tmp/fresh.md", "tmpfile.md"]
    assert recount.check(store, A).file_count == 3
    assert store.prune().files_expired == 0
    assert store.write_file(A, "tmp/scratch.md", "back\n").version == 3  # its path remembers
    recount.check(store, A)


def test_clearing_the_rule_brings_an_unpruned_file_back(store: Scratchpad, clock: Clock) -> None:
    clock.now += 2 * HOUR
    assert paths(store) == ["notes.md"]
    assert store.clear_retention(A, files="tmp/") is True
    assert paths(store) == ["notes.md", "tmp/scratch.md"]


@SQL_ONLY  # db check reads the SQL rows
def test_db_check_accepts_an_expired_file_not_yet_pruned(store: Scratchpad, clock: Clock, database_url: str) -> None:
    clock.now += HOUR + 1
    engine = make_engine(database_url)
    try:
        report = check(engine, Limits())
    finally:
        engine.dispose()
    assert report.ok, report.lines()
    assert any("1 expired file not yet pruned" in note for note in report.notes)


def test_the_longest_prefix_decides_what_expires(store: Scratchpad, clock: Clock) -> None:
    store.set_retention(A, files="tmp/keep/", max_age="30d")
    store.write_file(A, "tmp/keep/long.md", "long-lived\n")
    clock.now += 2 * HOUR
    assert paths(store) == ["notes.md", "tmp/keep/long.md"]
    assert store.prune().files_expired == 1  # tmp/scratch.md only
    assert paths(store) == ["notes.md", "tmp/keep/long.md"]


def test_an_expired_file_is_not_there_to_rename_and_frees_its_path(
    store: Scratchpad, clock: Clock, recount: Recounter
) -> None:
    store.write_file(A, "tmp/other.md", "other\n")
    clock.now += HOUR + 1
    with pytest.raises(NotFound, match=r"tmp/scratch\.md"):
        store.rename_file(A, "tmp/scratch.md", "kept.md")
    with pytest.raises(NotFound, match="No file under tmp/"):
        store.rename_prefix(A, "tmp/", "old/")
    moved = store.rename_file(A, "notes.md", "tmp/other.md")  # onto an expired file: its path is free
    assert moved.new_path == "tmp/other.md"
    assert store.read_file(A, "tmp/other.md").content == "zebra kept\n"
    assert paths(store) == ["tmp/other.md"]
    recount.check(store, A)


def test_an_expired_file_is_not_redacted_back_to_life(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    clock.now += HOUR + 1
    for redact in (lambda: store.redact_text(A, "tmp/scratch.md", "zebra"),
                   lambda: store.redact_version(A, "tmp/scratch.md", 1)):  # fmt: skip
        with pytest.raises(NotFound, match=r"tmp/scratch\.md has expired under a retention rule; nothing was changed"):
            redact()
    assert paths(store) == ["notes.md"]
    with pytest.raises(NotFound):
        store.read_file(A, "tmp/scratch.md")
    store.prune()  # what the refusal names: the file and its text go for good
    assert store.delete_file(A, "tmp/scratch.md").deleted is False
    recount.check(store, A)


def test_a_search_page_is_full_though_an_expired_file_would_rank_first(store: Scratchpad, clock: Clock) -> None:
    store.write_file(A, "tmp/best.md", "zebra zebra zebra\n")
    assert [m.path for m in store.search_files(A, "zebra", max_results=1).matches] == ["tmp/best.md"]
    clock.now += HOUR + 1
    found = store.search_files(A, "zebra", max_results=1)
    assert ([m.path for m in found.matches], found.count, found.has_more) == (["notes.md"], 1, False)


@SQL_ONLY  # two replicas on one database
def test_a_rule_another_replica_sets_holds_for_a_replica_that_saw_none(
    backend: Backend, clock: Clock, database_url: str, recount: Recounter
) -> None:
    """A replica remembers the agents it found without files rules (a write need not ask); a rule set by another
    replica meanwhile still deletes an expired file before this replica's next write to it, and a second
    agent's writes are not held up."""
    mine = Scratchpad(backend.unit_of_work, backend.store.limits, clock=clock)
    mine.write_file("agent-b", "tmp/other.md", "b\n")
    mine.write_file(A, "tmp/old.md", "one\n")
    mine.write_file(A, "tmp/old.md", "two\n")  # A and B now known here to have no files rules
    other_backend = open_backend(database_url, upgrade=False)
    try:
        other = Scratchpad(other_backend.unit_of_work, other_backend.store.limits, clock=clock)
        other.set_retention(A, files="tmp/", max_age="1h")
    finally:
        other_backend.close()
    clock.now += HOUR + 1
    assert mine.write_file(A, "tmp/old.md", "three\n").version == 3
    assert [v.version for v in mine.list_versions(A, "tmp/old.md").versions] == [3]  # deleted first: the rest went
    assert mine.write_file("agent-b", "tmp/other.md", "b2\n").version == 2
    assert [v.version for v in mine.list_versions("agent-b", "tmp/other.md").versions] == [1, 2]
    recount.check(mine, A)
