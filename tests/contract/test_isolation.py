"""Agents are isolated: B never sees or changes A's files, logs, summaries or usage."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import NotFound, QuotaExceeded
from scratchpad_core.limits import Limits
from scratchpad_core.results import DeleteLogResult, DeleteResult, LogPage, WriteResult
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer, StoreFactory
from tests.recount import Recounter

A = "agent-a"
B = "agent-b"
LONG = "long line of text\n" * 500  # 9,000 characters


@pytest.fixture
def summarizer() -> FakeSummarizer:
    return FakeSummarizer()


@pytest.fixture
def populated(make_store: StoreFactory, summarizer: FakeSummarizer) -> Scratchpad:
    store = make_store(summarizer=summarizer)
    store.write_file(A, "shared/notes.md", "A's notes\n")
    store.write_file(A, "shared/notes.md", "A's notes, v2\n")
    store.write_file(A, "long.md", LONG)
    store.summarize_file(A, "long.md")
    store.append_log(A, "shared/run.log", "A's entry")
    return store


def test_b_cannot_read_a(populated: Scratchpad, recount: Recounter) -> None:
    before = recount.snapshot(A)
    for call in (
        lambda: populated.read_file(B, "shared/notes.md"),
        lambda: populated.read_file(B, "shared/notes.md", since_version=1),
        lambda: populated.read_file(B, "shared/notes.md", version=1),
        lambda: populated.list_versions(B, "shared/notes.md"),
        lambda: populated.summarize_file(B, "long.md"),
    ):
        with pytest.raises(NotFound):
            call()
    assert populated.read_log(B, "shared/run.log") == LogPage([], 0, 0, False)  # b's own log of that name: empty
    assert populated.list_files(B).files == []
    assert populated.list_files(B, "shared/").files == []
    assert populated.list_logs(B).logs == []
    assert populated.search_files(B, "notes").matches == []
    search = populated.search_files(B, "notes", exact=True)
    assert (search.matches, search.files_searched) == ([], 0)
    assert recount.snapshot(A) == before


def test_b_cannot_change_a(populated: Scratchpad, recount: Recounter) -> None:
    before = recount.snapshot(A)
    for call in (
        lambda: populated.edit_file(B, "shared/notes.md", "notes", "NOTES"),
        lambda: populated.insert_lines(B, "shared/notes.md", 1, "x"),
        lambda: populated.restore_version(B, "shared/notes.md", 1),
    ):
        with pytest.raises(NotFound):
            call()
    assert populated.delete_file(B, "shared/notes.md") == DeleteResult("shared/notes.md", False, 0)
    assert populated.delete_log(B, "shared/run.log") == DeleteLogResult("shared/run.log", False, 0, 0)
    # Inserting at the end of a file B does not have creates B's own, next to A's.
    assert populated.insert_lines(B, "shared/notes.md", -1, "B's line").version == 1
    assert populated.read_file(B, "shared/notes.md").content == "B's line\n"
    assert recount.snapshot(A) == before
    assert populated.read_file(A, "shared/notes.md").content == "A's notes, v2\n"


def test_b_writes_its_own_file_at_the_same_path(
    populated: Scratchpad, recount: Recounter, summarizer: FakeSummarizer
) -> None:
    before = recount.snapshot(A)

    assert populated.write_file(B, "shared/notes.md", "B's notes\n") == WriteResult("shared/notes.md", 1, 10)
    assert populated.append_log(B, "shared/run.log", "B's entry").entry_id == 1
    populated.write_file(B, "long.md", LONG)
    b_summary = populated.summarize_file(B, "long.md")

    assert b_summary.cached is False  # A's cached summary is not B's
    assert summarizer.calls == ["long.md", "long.md"]
    assert recount.snapshot(A) == before
    assert populated.read_file(A, "shared/notes.md").content == "A's notes, v2\n"
    assert populated.read_file(B, "shared/notes.md").content == "B's notes\n"
    assert [e.entry for e in populated.read_log(A, "shared/run.log").entries] == ["A's entry"]
    assert [e.entry for e in populated.read_log(B, "shared/run.log").entries] == ["B's entry"]

    populated.delete_file(B, "long.md")
    assert populated.summarize_file(A, "long.md").cached is True


def test_usage_is_per_agent(populated: Scratchpad, recount: Recounter) -> None:
    a_before = recount.snapshot(A)["agents"]
    populated.write_file(B, "b.txt", "12345")
    populated.append_log(B, "b.log", "678")

    stats = recount.check(populated, B)

    assert (stats.agent_id, stats.file_count, stats.total_bytes, stats.logs, stats.log_count) == (B, 1, 8, 1, 1)
    assert stats.total_operations == 3
    assert recount.snapshot(A)["agents"] == a_before
    a_stats = recount.check(populated, A)
    assert (a_stats.file_count, a_stats.logs, a_stats.log_count) == (2, 1, 1)


def test_quotas_are_per_agent(make_store: StoreFactory) -> None:
    store = make_store(limits=Limits(quota_files=3, quota_bytes=100, quota_log_entries=5, max_versions=3))
    for name in ("1", "2", "3"):
        store.write_file(A, name, "x")
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "4", "x")
    for name in ("1", "2", "3"):
        assert store.write_file(B, name, "x").version == 1
