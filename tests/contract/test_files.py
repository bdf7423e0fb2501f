"""Files: versions, retention, identical writes, slices, expected_version, restore and delete."""

from __future__ import annotations

import time

import pytest

from scratchpad_core.errors import InvalidInput, NotFound, VersionConflict
from scratchpad_core.limits import Limits
from scratchpad_core.results import DeleteResult, WriteResult
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.recount import Recounter

A = "agent-a"


def write_versions(store: Scratchpad, path: str, count: int) -> None:
    """Versions 1..count, version i holding 'x' * i (so version i has i bytes)."""
    for i in range(1, count + 1):
        assert store.write_file(A, path, "x" * i) == WriteResult(path, i, i)


# --- versions and retention -------------------------------------------------


def test_every_write_makes_the_next_version(store: Scratchpad) -> None:
    assert store.write_file(A, "notes/plan.md", "one\n") == WriteResult("notes/plan.md", 1, 4)
    assert store.write_file(A, "notes/plan.md", "two two\n") == WriteResult("notes/plan.md", 2, 8)
    assert store.write_file(A, "notes/plan.md", "é\n") == WriteResult("notes/plan.md", 3, 3)

    read = store.read_file(A, "notes/plan.md")
    assert (read.current_version, read.content, read.version) == (3, "é\n", None)
    versions = store.list_versions(A, "notes/plan.md")
    assert versions.current_version == 3
    assert [(v.version, v.bytes, v.lines) for v in versions.versions] == [(1, 4, 1), (2, 8, 1), (3, 3, 1)]


def test_only_the_ten_most_recent_versions_are_retained(store: Scratchpad, recount: Recounter) -> None:
    write_versions(store, "f.txt", 12)

    versions = store.list_versions(A, "f.txt")
    assert versions.current_version == 12
    assert [v.version for v in versions.versions] == list(range(3, 13))
    assert [v.bytes for v in versions.versions] == list(range(3, 13))
    assert recount.versions(A, "f.txt") == list(range(3, 13))

    with pytest.raises(NotFound):
        store.read_file(A, "f.txt", version=2)
    with pytest.raises(NotFound):
        store.read_file(A, "f.txt", version=1, start_line=1)
    assert store.read_file(A, "f.txt", version=3).content == "xxx"

    stats = recount.check(store, A)
    assert stats.total_bytes == sum(range(3, 13))
    assert stats.file_count == 1


def test_max_versions_one_keeps_only_the_current_version(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=Limits(max_versions=1))
    write_versions(store, "f.txt", 3)
    assert [v.version for v in store.list_versions(A, "f.txt").versions] == [3]
    read = store.read_file(A, "f.txt", since_version=2)
    assert (read.version_too_old, read.content) == (True, "xxx")
    assert recount.check(store, A).total_bytes == 3


def test_version_outside_the_file_history_is_invalid(store: Scratchpad) -> None:
    write_versions(store, "f.txt", 2)
    for version in (0, -1, 3):
        with pytest.raises(InvalidInput):
            store.read_file(A, "f.txt", version=version)


def test_reading_an_older_retained_version(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "first\n")
    store.write_file(A, "f.txt", "second\n")
    old = store.read_file(A, "f.txt", version=1)
    assert (old.content, old.version, old.current_version) == ("first\n", 1, 2)


def test_missing_file_is_not_found(store: Scratchpad) -> None:
    with pytest.raises(NotFound):
        store.read_file(A, "nope.txt")
    with pytest.raises(NotFound):
        store.list_versions(A, "nope.txt")


# --- identical writes ---------------------------------------------------------


def test_identical_write_creates_no_version(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "a\n")
    store.write_file(A, "f.txt", "b\n")
    before = recount.snapshot(A)["file_versions"]

    assert store.write_file(A, "f.txt", "b\n") == WriteResult("f.txt", 2, 0, unchanged=True)

    assert recount.snapshot(A)["file_versions"] == before
    assert [v.version for v in store.list_versions(A, "f.txt").versions] == [1, 2]
    assert recount.check(store, A).total_bytes == 4


def test_identical_write_does_not_push_history_out(store: Scratchpad) -> None:
    write_versions(store, "f.txt", 10)
    assert store.write_file(A, "f.txt", "x" * 10) == WriteResult("f.txt", 10, 0, unchanged=True)
    assert [v.version for v in store.list_versions(A, "f.txt").versions] == list(range(1, 11))


def test_identical_empty_content_is_unchanged(store: Scratchpad) -> None:
    assert store.write_file(A, "empty.txt", "") == WriteResult("empty.txt", 1, 0)
    assert store.write_file(A, "empty.txt", "") == WriteResult("empty.txt", 1, 0, unchanged=True)


def test_content_equal_to_an_older_version_is_a_new_version(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a")
    store.write_file(A, "f.txt", "b")
    assert store.write_file(A, "f.txt", "a") == WriteResult("f.txt", 3, 1)


# --- slices ------------------------------------------------------------------

FIVE = "l1\nl2\nl3\nl4\nl5\n"


def slice_of(store: Scratchpad, path: str, **kwargs: int) -> tuple[str | None, int | None, int | None, int | None]:
    read = store.read_file(A, path, **kwargs)  # type: ignore[arg-type]
    return read.content, read.start_line, read.end_line, read.total_lines


def test_slice_first_lines(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)
    assert slice_of(store, "f.txt", start_line=1, max_lines=2) == ("l1\nl2\n", 1, 2, 5)
    assert slice_of(store, "f.txt", max_lines=1) == ("l1\n", 1, 1, 5)


def test_slice_middle_and_last_line(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)
    assert slice_of(store, "f.txt", start_line=2, max_lines=3) == ("l2\nl3\nl4\n", 2, 4, 5)
    assert slice_of(store, "f.txt", start_line=5, max_lines=1) == ("l5\n", 5, 5, 5)
    assert slice_of(store, "f.txt", start_line=4) == ("l4\nl5\n", 4, 5, 5)
    assert slice_of(store, "f.txt", start_line=4, max_lines=100) == ("l4\nl5\n", 4, 5, 5)


def test_slice_past_the_end_is_invalid(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", start_line=6)
    for bad in ({"start_line": 0}, {"max_lines": 0}, {"start_line": -1}):
        with pytest.raises(InvalidInput):
            store.read_file(A, "f.txt", **bad)  # type: ignore[arg-type]


def test_slice_of_an_empty_file(store: Scratchpad) -> None:
    store.write_file(A, "empty.txt", "")
    assert slice_of(store, "empty.txt", start_line=1, max_lines=10) == ("", 1, 0, 0)
    with pytest.raises(InvalidInput):
        store.read_file(A, "empty.txt", start_line=2)


def test_slice_of_a_file_without_final_newline(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\nb\nc")
    assert slice_of(store, "f.txt", start_line=3) == ("c", 3, 3, 3)
    assert slice_of(store, "f.txt", start_line=2, max_lines=2) == ("b\nc", 2, 3, 3)


def test_slice_keeps_crlf_lines_intact(store: Scratchpad) -> None:
    store.write_file(A, "win.txt", "one\r\ntwo\r\nthree\r\n")
    assert slice_of(store, "win.txt", start_line=2, max_lines=1) == ("two\r\n", 2, 2, 3)
    assert slice_of(store, "win.txt", start_line=3) == ("three\r\n", 3, 3, 3)


def test_slice_counts_unicode_lines_on_newlines_only(store: Scratchpad) -> None:
    # U+2028 and U+0085 are line breaks for str.splitlines, but not for scratchpad.
    content = "héllo wörld\n日本語\u2028同じ行\n😀 emoji\x85same line\nlast"
    store.write_file(A, "u.txt", content)
    assert slice_of(store, "u.txt", start_line=2, max_lines=2) == (
        "日本語\u2028同じ行\n😀 emoji\x85same line\n",
        2,
        3,
        4,
    )
    assert slice_of(store, "u.txt", start_line=1, max_lines=1) == ("héllo wörld\n", 1, 1, 4)


def test_slice_of_an_older_version(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)
    store.write_file(A, "f.txt", "only\n")
    read = store.read_file(A, "f.txt", version=1, start_line=2, max_lines=2)
    assert (read.content, read.version, read.current_version) == ("l2\nl3\n", 1, 2)
    assert (read.start_line, read.end_line, read.total_lines) == (2, 3, 5)


# --- expected_version ----------------------------------------------------------


def test_write_with_a_stale_expected_version_conflicts(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "v1")
    store.write_file(A, "f.txt", "v2")
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.write_file(A, "f.txt", "v3", expected_version=1)

    assert "current version is 2" in str(caught.value)
    assert caught.value.current_version == 2
    assert recount.snapshot(A) == before
    assert store.write_file(A, "f.txt", "v3", expected_version=2) == WriteResult("f.txt", 3, 2)


def test_identical_write_with_a_stale_expected_version_conflicts(store: Scratchpad, recount: Recounter) -> None:
    """Issue 20: a second writer who computed the same content is not a retry; the mismatch is a conflict."""
    store.write_file(A, "f.txt", "v1")
    store.write_file(A, "f.txt", "v2")
    before = recount.snapshot(A)
    with pytest.raises(VersionConflict) as caught:
        store.write_file(A, "f.txt", "v2", expected_version=1)
    assert caught.value.current_version == 2
    assert recount.snapshot(A) == before


def test_expected_version_zero_means_must_not_exist(store: Scratchpad, recount: Recounter) -> None:
    assert store.write_file(A, "new.txt", "hello", expected_version=0) == WriteResult("new.txt", 1, 5)
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.write_file(A, "new.txt", "again", expected_version=0)

    assert "current version is 1" in str(caught.value)
    assert recount.snapshot(A) == before
    assert store.read_file(A, "new.txt").content == "hello"


def test_expected_version_on_a_missing_file_conflicts_and_creates_nothing(
    store: Scratchpad, recount: Recounter
) -> None:
    with pytest.raises(VersionConflict) as caught:
        store.write_file(A, "ghost.txt", "boo", expected_version=3)
    assert "does not exist" in str(caught.value)
    assert caught.value.current_version == 0
    assert recount.snapshot(A) == {k: [] for k in recount.snapshot(A)}
    with pytest.raises(NotFound):
        store.read_file(A, "ghost.txt")
    assert store.list_files(A).files == []


def test_negative_expected_version_is_invalid(store: Scratchpad) -> None:
    with pytest.raises(InvalidInput):
        store.write_file(A, "f.txt", "x", expected_version=-1)


# --- restore_version -------------------------------------------------------------


def test_restore_makes_an_old_version_current_as_a_new_version(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "alpha\n")
    store.write_file(A, "f.txt", "beta\n")
    store.write_file(A, "f.txt", "gamma\n")

    assert store.restore_version(A, "f.txt", 1) == WriteResult("f.txt", 4, 6)

    assert store.read_file(A, "f.txt").content == "alpha\n"
    assert [v.version for v in store.list_versions(A, "f.txt").versions] == [1, 2, 3, 4]
    assert recount.check(store, A).total_bytes == 6 + 5 + 6 + 6


def test_restoring_content_equal_to_the_current_version_is_unchanged(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "same")
    store.write_file(A, "f.txt", "other")
    store.write_file(A, "f.txt", "same")
    before = recount.snapshot(A)["file_versions"]

    assert store.restore_version(A, "f.txt", 1) == WriteResult("f.txt", 3, 0, unchanged=True)
    assert store.restore_version(A, "f.txt", 3) == WriteResult("f.txt", 3, 0, unchanged=True)
    assert recount.snapshot(A)["file_versions"] == before


def test_restoring_a_pruned_or_unknown_version_is_refused(store: Scratchpad, recount: Recounter) -> None:
    write_versions(store, "f.txt", 11)
    before = recount.snapshot(A)
    with pytest.raises(NotFound, match=r"Version 1 of f\.txt is not retained"):
        store.restore_version(A, "f.txt", 1)  # pruned
    for version in (12, 0):  # never existed: the same message as read_file(version=N)
        with pytest.raises(InvalidInput, match=rf"Invalid version {version}: f\.txt is at version 11; use 1 to 11\."):
            store.restore_version(A, "f.txt", version)
    with pytest.raises(NotFound):
        store.restore_version(A, "missing.txt", 1)
    assert recount.snapshot(A) == before


def test_restore_with_a_stale_expected_version_conflicts(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "a")
    store.write_file(A, "f.txt", "b")
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.restore_version(A, "f.txt", 1, expected_version=1)

    assert "current version is 2" in str(caught.value)
    assert recount.snapshot(A) == before
    assert store.restore_version(A, "f.txt", 1, expected_version=2) == WriteResult("f.txt", 3, 1)


# --- delete_file ---------------------------------------------------------------------


def test_delete_removes_every_version_but_not_a_log_at_the_same_path(store: Scratchpad, recount: Recounter) -> None:
    write_versions(store, "shared.txt", 3)
    store.append_log(A, "shared.txt", "entry")

    assert store.delete_file(A, "shared.txt") == DeleteResult("shared.txt", deleted=True, versions_removed=3)

    with pytest.raises(NotFound):
        store.read_file(A, "shared.txt")
    assert recount.versions(A, "shared.txt") == []
    assert [e.entry for e in store.read_log(A, "shared.txt").entries] == ["entry"]
    stats = recount.check(store, A)
    assert (stats.file_count, stats.total_bytes, stats.logs, stats.log_count) == (0, 5, 1, 1)


def test_deleting_a_missing_file(store: Scratchpad) -> None:
    assert store.delete_file(A, "nothing.txt") == DeleteResult("nothing.txt", deleted=False, versions_removed=0)
    store.write_file(A, "f.txt", "x")
    store.delete_file(A, "f.txt")
    assert store.delete_file(A, "f.txt") == DeleteResult("f.txt", deleted=False, versions_removed=0)


def test_after_delete_the_path_continues_its_version_numbers(store: Scratchpad, recount: Recounter) -> None:
    """A version number never names two contents: an agent still holding version 4 of the deleted file
    must not get 'unchanged' (or a diff against the wrong text) from a new file at that path."""
    write_versions(store, "f.txt", 4)
    (old_info,) = store.list_files(A).files
    time.sleep(0.01)  # so that a new creation time differs from the old one
    store.delete_file(A, "f.txt")
    assert store.list_files(A).files == []
    with pytest.raises(NotFound):
        store.read_file(A, "f.txt")

    assert store.write_file(A, "f.txt", "fresh") == WriteResult("f.txt", 5, 5)
    (info,) = store.list_files(A).files
    assert info.created_at > old_info.created_at  # a new file: not the deleted one's creation time

    assert [v.version for v in store.list_versions(A, "f.txt").versions] == [5]
    with pytest.raises(NotFound):  # versions 1..4 went with the deleted file
        store.read_file(A, "f.txt", version=4)
    old_reader = store.read_file(A, "f.txt", since_version=4)
    assert old_reader.version_too_old and old_reader.content == "fresh"
    assert recount.check(store, A).total_bytes == 5
    assert store.get_usage_stats(A).file_count == 1


def test_a_stale_expected_version_cannot_overwrite_a_recreated_file(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "plan.md", "X's plan\n")  # X reads version 1
    store.delete_file(A, "plan.md")
    assert store.write_file(A, "plan.md", "Y's plan\n").version == 2  # Y starts over at the same path
    before = recount.snapshot(A)
    with pytest.raises(VersionConflict):
        store.write_file(A, "plan.md", "X overwrites\n", expected_version=1)
    assert recount.snapshot(A) == before
    assert store.delete_file(A, "plan.md").deleted and not store.delete_file(A, "plan.md").deleted
    assert store.write_file(A, "plan.md", "again\n", expected_version=0).version == 3


def test_delete_with_a_stale_expected_version_conflicts(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", "a")
    store.write_file(A, "f.txt", "b")
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.delete_file(A, "f.txt", expected_version=1)

    assert "current version is 2" in str(caught.value)
    assert recount.snapshot(A) == before
    assert store.delete_file(A, "f.txt", expected_version=2) == DeleteResult("f.txt", True, 2)


def test_only_the_most_recent_deleted_paths_are_remembered(make_store: StoreFactory, recount: Recounter) -> None:
    """Tombstones are bounded: the oldest deleted paths are forgotten (and start again at version 1)."""
    store = make_store(Limits(remembered_deletions=2))
    for name in ("a", "b", "c"):
        store.write_file(A, name, "one")
        store.write_file(A, name, "two")
        store.delete_file(A, name)
    store.append_log(A, "l1", "x")
    store.delete_log(A, "l1")
    assert store.write_file(A, "a", "new").version == 1  # forgotten: the oldest of three
    assert store.write_file(A, "c", "new").version == 3  # remembered
    assert store.append_log(A, "l1", "y").entry_id == 2  # logs keep their own two
    recount.check(store, A)
