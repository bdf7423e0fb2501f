"""Append-only logs: entry ids, paging, tail, listing and deletion."""

from __future__ import annotations

from typing import Any

import pytest

from scratchpad_core.errors import InvalidInput, QuotaExceeded
from scratchpad_core.limits import Limits
from scratchpad_core.results import AppendResult, DeleteLogResult, LogPage
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.recount import Recounter

A = "agent-a"


def fill(store: Scratchpad, path: str, count: int) -> None:
    for i in range(1, count + 1):
        assert store.append_log(A, path, f"e{i}").entry_id == i


def ids(page: LogPage) -> list[int]:
    return [e.id for e in page.entries]


def test_entry_ids_count_up_per_log(store: Scratchpad) -> None:
    assert store.append_log(A, "run.log", "start") == AppendResult("run.log", 1, 5)
    assert store.append_log(A, "run.log", "héllo") == AppendResult("run.log", 2, 6)
    assert store.append_log(A, "other.log", "x") == AppendResult("other.log", 1, 1)
    assert store.append_log(A, "run.log", "") == AppendResult("run.log", 3, 0)

    page = store.read_log(A, "run.log")
    assert [(e.id, e.entry) for e in page.entries] == [(1, "start"), (2, "héllo"), (3, "")]
    assert all(e.created_at > 0 for e in page.entries)


def test_read_log_pages_of_one_hundred(store: Scratchpad) -> None:
    fill(store, "big.log", 250)

    first = store.read_log(A, "big.log")
    assert ids(first) == list(range(1, 101))
    assert (first.has_more, first.last_entry_id, first.total) == (True, 100, 250)
    assert [e.entry for e in first.entries[:2]] == ["e1", "e2"]

    second = store.read_log(A, "big.log", since_entry=first.last_entry_id)
    assert ids(second) == list(range(101, 201))
    assert (second.has_more, second.last_entry_id, second.total) == (True, 200, 150)

    third = store.read_log(A, "big.log", since_entry=second.last_entry_id)
    assert ids(third) == list(range(201, 251))
    assert (third.has_more, third.last_entry_id, third.total) == (False, 250, 50)

    empty = store.read_log(A, "big.log", since_entry=third.last_entry_id)
    assert empty == LogPage([], 0, 250, False)


def test_exactly_one_full_page_has_no_more(store: Scratchpad) -> None:
    fill(store, "hundred.log", 100)
    page = store.read_log(A, "hundred.log", since_entry=0)
    assert (len(page.entries), page.has_more, page.last_entry_id, page.total) == (100, False, 100, 100)


def test_an_empty_page_echoes_since_entry(store: Scratchpad) -> None:
    fill(store, "l.log", 3)
    assert store.read_log(A, "l.log", since_entry=3) == LogPage([], 0, 3, False)
    assert store.read_log(A, "l.log", since_entry=50) == LogPage([], 0, 50, False)
    # Beyond any integer the database holds: still just past the end.
    for huge in (2**31, 2**63, 10**30):
        assert store.read_log(A, "l.log", since_entry=huge) == LogPage([], 0, huge, False)


def test_limit_pages_by_n(store: Scratchpad) -> None:
    fill(store, "l.log", 5)
    pages = []
    cursor = 0
    while True:
        page = store.read_log(A, "l.log", since_entry=cursor, limit=2)
        pages.append((ids(page), page.has_more, page.last_entry_id, page.total))
        if not page.has_more:
            break
        cursor = page.last_entry_id
    assert pages == [([1, 2], True, 2, 5), ([3, 4], True, 4, 3), ([5], False, 5, 1)]


def test_tail_gives_the_newest_entries_oldest_first(store: Scratchpad) -> None:
    fill(store, "l.log", 5)
    tail = store.read_log(A, "l.log", tail=3)
    assert [(e.id, e.entry) for e in tail.entries] == [(3, "e3"), (4, "e4"), (5, "e5")]
    assert (tail.last_entry_id, tail.has_more) == (5, False)
    assert ids(store.read_log(A, "l.log", tail=100)) == [1, 2, 3, 4, 5]
    assert ids(store.read_log(A, "l.log", tail=1)) == [5]


@pytest.mark.parametrize(
    "options",
    [
        {"since_entry": -1},
        {"limit": 0},
        {"limit": 101},
        {"tail": 0},
        {"tail": 101},
        {"tail": 2, "since_entry": 1},
        {"tail": 2, "limit": 2},
    ],
)
def test_invalid_read_log_options(store: Scratchpad, options: dict[str, Any]) -> None:
    fill(store, "l.log", 3)
    with pytest.raises(InvalidInput):
        store.read_log(A, "l.log", **options)


EMPTY = LogPage([], 0, 0, False)


def test_a_log_never_written_reads_as_an_empty_page(store: Scratchpad, recount: Recounter) -> None:
    """As in the original: a reader may poll a log before its first entry."""
    assert store.read_log(A, "missing.log") == EMPTY
    assert store.read_log(A, "missing.log", since_entry=5) == LogPage([], 0, 5, False)  # the cursor is echoed
    assert store.read_log(A, "missing.log", tail=5) == EMPTY
    assert store.read_log(A, "missing.log", limit=3) == EMPTY
    store.write_file(A, "file.txt", "a file is not a log")
    assert store.read_log(A, "file.txt") == EMPTY
    assert store.list_logs(A).logs == []
    assert recount.snapshot(A)["logs"] == []  # reading created nothing
    with pytest.raises(InvalidInput):  # the options are still checked
        store.read_log(A, "missing.log", since_entry=-1)


def test_a_poller_of_an_empty_log_gets_the_first_entries_when_they_come(store: Scratchpad) -> None:
    cursor = store.read_log(A, "inbox").last_entry_id
    fill(store, "inbox", 2)
    page = store.read_log(A, "inbox", since_entry=cursor)
    assert [e.entry for e in page.entries] == ["e1", "e2"]
    assert (page.last_entry_id, page.total, page.has_more) == (2, 2, False)


def test_list_logs(store: Scratchpad) -> None:
    fill(store, "b/run.log", 3)  # "e1".."e3": 6 bytes
    store.append_log(A, "a.log", "héllo")
    store.write_file(A, "a-file.txt", "not a log")

    listing = store.list_logs(A)

    assert listing.count == 2
    assert [(g.path, g.entries, g.bytes, g.last_entry_id) for g in listing.logs] == [
        ("a.log", 1, 6, 1),
        ("b/run.log", 3, 6, 3),
    ]
    assert all(g.updated_at > 0 for g in listing.logs)
    assert [g.path for g in store.list_logs(A, "b/").logs] == ["b/run.log"]
    assert store.list_logs(A, "c").logs == []


def test_delete_log_gives_entries_and_bytes_back(store: Scratchpad, recount: Recounter) -> None:
    fill(store, "l.log", 4)
    store.append_log(A, "keep.log", "kept")

    assert store.delete_log(A, "l.log") == DeleteLogResult("l.log", deleted=True, entries_removed=4, bytes_freed=8)

    assert store.read_log(A, "l.log") == EMPTY  # a deleted log reads as an empty page
    assert store.read_log(A, "l.log", since_entry=4) == LogPage([], 0, 4, False)
    assert store.read_log(A, "l.log", tail=2) == EMPTY
    assert [g.path for g in store.list_logs(A).logs] == ["keep.log"]
    stats = recount.check(store, A)
    assert (stats.logs, stats.log_count, stats.total_bytes) == (1, 1, 4)
    assert store.delete_log(A, "l.log").deleted is False  # already gone
    # Appending again brings the log back, and its ids carry on: a reader holding since_entry=2 from before
    # the delete still gets the new entry instead of skipping it.
    assert store.append_log(A, "l.log", "again").entry_id == 5
    page = store.read_log(A, "l.log", since_entry=2)
    assert ([e.entry for e in page.entries], page.total, page.has_more) == (["again"], 1, False)
    assert store.read_log(A, "l.log").total == 1  # what there is to read, not the ids the deleted log used
    assert [g.path for g in store.list_logs(A).logs] == ["keep.log", "l.log"]
    stats = recount.check(store, A)
    assert (stats.logs, stats.log_count) == (2, 2)


def test_deleting_a_missing_log(store: Scratchpad) -> None:
    assert store.delete_log(A, "none.log") == DeleteLogResult("none.log", False, 0, 0)


def test_delete_log_keeps_a_file_at_the_same_path(store: Scratchpad) -> None:
    store.write_file(A, "same", "file")
    store.append_log(A, "same", "log")
    store.delete_log(A, "same")
    assert store.read_file(A, "same").content == "file"


def test_an_agent_at_the_entry_quota_can_append_after_delete_log(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=Limits(quota_files=3, quota_bytes=100, quota_log_entries=5, max_versions=3))
    fill(store, "l.log", 5)
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded):
        store.append_log(A, "l.log", "six")
    with pytest.raises(QuotaExceeded):
        store.append_log(A, "new.log", "six")
    assert recount.snapshot(A) == before

    store.delete_log(A, "l.log")
    assert store.append_log(A, "l.log", "after") == AppendResult("l.log", 6, 5)
    stats = recount.check(store, A)
    assert (stats.logs, stats.log_count, stats.total_bytes) == (1, 1, 5)
