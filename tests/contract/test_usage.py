"""get_usage_stats: operations (this call included), bytes_saved, quotas; failed calls are not counted."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from scratchpad_core.diffing import Chunk
from scratchpad_core.errors import ScratchpadError
from scratchpad_core.limits import Limits
from scratchpad_core.results import Quota, UsageStats
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.recount import Recounter

A = "agent-a"


def test_a_fresh_agent_counts_its_own_stats_calls(store: Scratchpad) -> None:
    first = store.get_usage_stats(A)
    assert first == UsageStats(
        agent_id=A,
        total_bytes=0,
        file_count=0,
        log_count=0,
        total_operations=1,
        bytes_saved=0,
        logs=0,
        quota=Quota(bytes=100 * 1024 * 1024, files=1000, log_entries=100_000),
    )
    assert store.get_usage_stats(A).total_operations == 2


def test_quota_reflects_the_limits(make_store: StoreFactory) -> None:
    store = make_store(limits=Limits(quota_files=3, quota_bytes=100, quota_log_entries=5, max_versions=3))
    assert store.get_usage_stats(A).quota == Quota(bytes=100, files=3, log_entries=5)


def test_every_successful_call_is_one_operation(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "a\nb\n")  # 1
    store.write_file(A, "f.txt", "a\nb\n")  # 2 (unchanged still counts)
    store.read_file(A, "f.txt")  # 3
    store.edit_file(A, "f.txt", "a", "A")  # 4
    store.insert_lines(A, "f.txt", 0, "top")  # 5
    store.list_versions(A, "f.txt")  # 6
    store.restore_version(A, "f.txt", 1)  # 7
    store.list_files(A)  # 8
    store.search_files(A, "b")  # 9
    store.append_log(A, "l.log", "x")  # 10
    store.read_log(A, "l.log")  # 11
    store.list_logs(A)  # 12
    store.delete_log(A, "l.log")  # 13
    store.delete_log(A, "l.log")  # 14 (nothing to delete still counts)
    store.delete_file(A, "f.txt")  # 15
    store.delete_file(A, "f.txt")  # 16
    stats = recount.check(store, A)  # 17
    assert stats.total_operations == 17


def failing_calls(store: Scratchpad) -> list[Callable[[], object]]:
    return [
        lambda: store.read_file(A, "missing.txt"),
        lambda: store.read_file(A, "f.txt", since_version=0),
        lambda: store.read_file(A, "f.txt", since_version=3),
        lambda: store.read_file(A, "f.txt", start_line=99),
        lambda: store.read_file(A, "f.txt", version=5),
        lambda: store.write_file(A, "f.txt", "z", expected_version=1),
        lambda: store.write_file(A, "/abs", "z"),
        lambda: store.write_file(A, "big.txt", "x" * (1024 * 1024 + 1)),
        lambda: store.edit_file(A, "f.txt", "absent", "z"),
        lambda: store.insert_lines(A, "f.txt", 9, "z"),
        lambda: store.restore_version(A, "f.txt", 7),
        lambda: store.delete_file(A, "f.txt", expected_version=9),
        lambda: store.list_versions(A, "missing.txt"),
        lambda: store.list_files(A, limit=0),
        lambda: store.search_files(A, "(", regex=True),
        lambda: store.read_log(A, "missing.log", limit=0),
        lambda: store.read_log(A, "l.log", since_entry=-1),
        lambda: store.append_log(A, "l.log", "x" * 70_000),
        lambda: store.summarize_file(A, "f.txt"),
        lambda: store.summarize_file(A, "missing.txt"),
    ]


def test_failed_calls_are_not_counted(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "one\n")
    store.write_file(A, "f.txt", "two\n")
    store.append_log(A, "l.log", "entry")
    before = recount.snapshot(A)

    for call in failing_calls(store):
        with pytest.raises(ScratchpadError):
            call()

    assert recount.snapshot(A) == before
    assert recount.check(store, A).total_operations == 4


def test_quota_refusals_are_not_counted(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=Limits(quota_files=1, quota_bytes=100, quota_log_entries=1, max_versions=3))
    store.write_file(A, "f", "x")
    store.append_log(A, "l", "y")
    before = recount.snapshot(A)
    for call in (
        lambda: store.write_file(A, "g", "x"),
        lambda: store.append_log(A, "l", "z"),
        lambda: store.write_file(A, "f", "x" * 100),
    ):
        with pytest.raises(ScratchpadError):
            call()
    assert recount.snapshot(A) == before
    assert recount.check(store, A).total_operations == 3


def saved(store: Scratchpad) -> int:
    return store.get_usage_stats(A).bytes_saved


BIG = "".join(f"line number {i}\n" for i in range(1, 201))


def test_full_reads_and_writes_save_nothing(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", BIG)
    store.write_file(A, "f.txt", BIG)
    store.read_file(A, "f.txt")
    store.read_file(A, "f.txt", version=1)
    assert saved(store) == 0


def test_an_unchanged_diff_read_saves_the_whole_file(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", BIG)
    store.read_file(A, "f.txt", since_version=1)
    assert saved(store) == len(BIG)


def test_a_diff_read_saves_what_the_diff_does_not_send(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", BIG)
    new = BIG.replace("line number 100\n", "line one hundred\n")
    store.write_file(A, "f.txt", new)
    before = saved(store)

    read = store.read_file(A, "f.txt", since_version=1)

    assert isinstance(read.diff, list) and all(isinstance(c, Chunk) for c in read.diff)
    chunks = [c.as_json() for c in read.diff if isinstance(c, Chunk)]
    sent = len(json.dumps(chunks, ensure_ascii=False, separators=(",", ":")).encode())
    assert saved(store) - before == len(new) - sent
    assert 0 < saved(store) - before < len(new)


def test_a_slice_saves_the_lines_not_returned(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", BIG)
    read = store.read_file(A, "f.txt", start_line=10, max_lines=5)
    assert read.content is not None
    assert saved(store) == len(BIG) - len(read.content)


def test_an_edit_saves_the_content_not_resent(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", BIG)
    store.edit_file(A, "f.txt", "line number 7\n", "line seven\n")
    new_size = len(BIG) - len("line number 7\n") + len("line seven\n")
    assert saved(store) == new_size - len("line number 7\n") - len("line seven\n")
    before = saved(store)
    store.insert_lines(A, "f.txt", 3, "inserted")
    assert saved(store) - before == new_size + len("inserted\n") - len("inserted")
