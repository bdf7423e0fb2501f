"""Per-call limits at their exact UTF-8 boundaries, and per-agent quotas; a refused call changes nothing."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidInput, LimitExceeded, QuotaExceeded
from scratchpad_core.limits import Limits
from scratchpad_core.results import WriteResult
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.recount import Recounter

A = "agent-a"
MIB = 1_048_576
ENTRY_MAX = 65_536
SMALL = Limits(quota_files=3, quota_bytes=100, quota_log_entries=5, max_versions=3)

# (content at exactly the limit, content one byte or more over it), in UTF-8 bytes
FILE_SIZES = {
    "ascii": ("a" * MIB, "a" * (MIB + 1)),
    "2-byte é": ("é" * (MIB // 2), "é" * (MIB // 2) + "a"),
    "3-byte €": ("€" * (MIB // 3) + "a", "€" * (MIB // 3) + "ab"),
    "4-byte emoji": ("😀" * (MIB // 4), "😀" * (MIB // 4) + "a"),
}
ENTRY_SIZES = {
    "ascii": ("a" * ENTRY_MAX, "a" * (ENTRY_MAX + 1)),
    "2-byte é": ("é" * (ENTRY_MAX // 2), "é" * (ENTRY_MAX // 2) + "a"),
    "4-byte emoji": ("😀" * (ENTRY_MAX // 4), "😀" * (ENTRY_MAX // 4) + "a"),
}


@pytest.mark.parametrize(("fits", "too_big"), FILE_SIZES.values(), ids=FILE_SIZES.keys())
def test_file_content_limit_in_utf8_bytes(store: Scratchpad, recount: Recounter, fits: str, too_big: str) -> None:
    assert len(fits.encode()) == MIB
    assert len(too_big.encode()) > MIB
    store.write_file(A, "small.txt", "x")
    before = recount.snapshot(A)

    with pytest.raises(LimitExceeded):
        store.write_file(A, "big.txt", too_big)
    with pytest.raises(LimitExceeded):
        store.write_file(A, "small.txt", too_big)

    assert recount.snapshot(A) == before
    assert store.write_file(A, "big.txt", fits) == WriteResult("big.txt", 1, MIB)
    assert store.read_file(A, "big.txt").content == fits
    assert recount.check(store, A).total_bytes == 1 + MIB


def test_an_edit_past_the_content_limit_is_refused(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "Z" + "a" * (MIB - 1))
    before = recount.snapshot(A)

    with pytest.raises(LimitExceeded):
        store.edit_file(A, "f.txt", "Z", "YY")
    with pytest.raises(LimitExceeded):
        store.insert_lines(A, "f.txt", 0, "x")
    assert recount.snapshot(A) == before

    assert store.edit_file(A, "f.txt", "Z", "Y").bytes_written == MIB


@pytest.mark.parametrize(("fits", "too_big"), ENTRY_SIZES.values(), ids=ENTRY_SIZES.keys())
def test_log_entry_limit_in_utf8_bytes(store: Scratchpad, recount: Recounter, fits: str, too_big: str) -> None:
    assert len(fits.encode()) == ENTRY_MAX
    store.append_log(A, "old.log", "x")
    before = recount.snapshot(A)

    with pytest.raises(LimitExceeded):
        store.append_log(A, "new.log", too_big)
    with pytest.raises(LimitExceeded):
        store.append_log(A, "old.log", too_big)

    assert recount.snapshot(A) == before
    assert store.append_log(A, "new.log", fits).bytes_written == ENTRY_MAX
    assert store.read_log(A, "new.log").entries[0].entry == fits


@pytest.mark.parametrize("text", ["nul \x00 inside", "lone surrogate \ud800"], ids=["nul", "surrogate"])
def test_text_that_cannot_be_stored_is_refused(store: Scratchpad, recount: Recounter, text: str) -> None:
    store.write_file(A, "f.txt", "fine")
    store.append_log(A, "l.log", "fine")
    before = recount.snapshot(A)
    for call in (
        lambda: store.write_file(A, "f.txt", text),
        lambda: store.write_file(A, "new.txt", text),
        lambda: store.edit_file(A, "f.txt", "fine", text),
        lambda: store.insert_lines(A, "f.txt", 0, text),
        lambda: store.append_log(A, "l.log", text),
        lambda: store.append_log(A, "new.log", text),
    ):
        with pytest.raises(InvalidInput):
            call()
    assert recount.snapshot(A) == before


# --- quotas ---------------------------------------------------------------------------


def test_file_quota(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    for name in ("a", "b", "c"):
        store.write_file(A, name, "1")
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded) as caught:
        store.write_file(A, "d", "1")

    message = str(caught.value)
    assert "file quota" in message
    assert "3 of 3 files" in message
    assert recount.snapshot(A) == before
    assert recount.check(store, A).file_count == 3

    assert store.write_file(A, "a", "22") == WriteResult("a", 2, 2)  # rewriting is still allowed
    store.delete_file(A, "b")
    assert store.write_file(A, "d", "1") == WriteResult("d", 1, 1)
    assert recount.check(store, A).file_count == 3


def test_log_entry_quota(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    for i in range(3):
        store.append_log(A, "one.log", f"{i}")
    for i in range(2):
        store.append_log(A, "two.log", f"{i}")
    before = recount.snapshot(A)

    for path in ("one.log", "three.log"):
        with pytest.raises(QuotaExceeded) as caught:
            store.append_log(A, path, "x")
        assert "5 of 5 log entries" in str(caught.value)

    assert recount.snapshot(A) == before
    stats = recount.check(store, A)
    assert (stats.logs, stats.log_count, stats.total_bytes) == (2, 5, 5)


def test_byte_quota_counts_retained_versions(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    store.write_file(A, "f", "a" * 60)
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded) as caught:
        store.write_file(A, "f", "b" * 41)  # 60 + 41 > 100
    assert "storage quota" in str(caught.value)
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "g", "b" * 41)
    assert recount.snapshot(A) == before

    assert store.write_file(A, "f", "b" * 40) == WriteResult("f", 2, 40)  # exactly 100
    assert recount.check(store, A).total_bytes == 100
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "g", "x")
    assert recount.check(store, A).total_bytes == 100


def test_pruning_frees_bytes(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)  # max_versions=3
    for letter in "abc":
        store.write_file(A, "f", letter * 30)
    assert recount.check(store, A).total_bytes == 90

    assert store.write_file(A, "f", "d" * 30).version == 4  # version 1 pruned: 90 bytes again
    assert recount.versions(A, "f") == [2, 3, 4]
    assert recount.check(store, A).total_bytes == 90

    before = recount.snapshot(A)
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "f", "e" * 45)  # prunes 30, adds 45: 105
    assert recount.snapshot(A) == before

    assert store.write_file(A, "f", "e" * 40).version == 5  # prunes 30, adds 40: 100
    assert recount.versions(A, "f") == [3, 4, 5]
    assert recount.check(store, A).total_bytes == 100


def test_byte_quota_counts_log_entries(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    store.write_file(A, "f", "a" * 90)
    store.append_log(A, "l.log", "b" * 10)
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded) as caught:
        store.append_log(A, "l.log", "c")
    assert "storage quota" in str(caught.value)
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "f", "a" * 91)
    assert recount.snapshot(A) == before

    store.delete_log(A, "l.log")
    assert store.append_log(A, "l.log", "c" * 10).entry_id == 2  # ids carry on after a delete
    assert recount.check(store, A).total_bytes == 100


def test_restore_counts_towards_the_byte_quota(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    store.write_file(A, "f", "a" * 50)
    store.write_file(A, "f", "b" * 10)
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded):
        store.restore_version(A, "f", 1)  # 50 + 10 + 50
    assert recount.snapshot(A) == before
    assert recount.check(store, A).total_bytes == 60


def test_counters_match_the_rows_after_a_mix_of_calls(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=SMALL)
    store.write_file(A, "f", "x" * 20)
    store.write_file(A, "f", "y" * 20)
    store.write_file(A, "f", "z" * 10)
    store.write_file(A, "f", "w" * 5)  # prunes version 1: 35 bytes
    store.write_file(A, "g", "g")
    store.edit_file(A, "g", "g", "gg")  # 38 bytes
    store.append_log(A, "l", "abc")
    store.append_log(A, "l", "d")  # 42 bytes
    assert recount.check(store, A).total_bytes == 42

    with pytest.raises(QuotaExceeded):
        store.write_file(A, "h", "h" * 59)  # 101 bytes
    recount.check(store, A)
    store.write_file(A, "i", "i")  # 43 bytes, 3 files
    with pytest.raises(QuotaExceeded):
        store.write_file(A, "j", "j")  # a 4th file
    recount.check(store, A)
    store.delete_file(A, "g")
    store.delete_log(A, "l")

    stats = recount.check(store, A)
    assert (stats.file_count, stats.total_bytes, stats.logs, stats.log_count) == (2, 36, 0, 0)


def test_limits_must_be_positive() -> None:
    with pytest.raises(InvalidInput):
        Limits(quota_files=0)
    with pytest.raises(InvalidInput):
        Limits(max_versions=-1)
