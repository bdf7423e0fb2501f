"""edit_file and insert_lines: new versions, numbered snippets, failures that change nothing."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import EditMismatch, InvalidInput, NotFound, QuotaExceeded, VersionConflict
from scratchpad_core.limits import Limits
from scratchpad_core.results import EditResult
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory
from tests.recount import Recounter

A = "agent-a"
FIVE = "l1\nl2\nl3\nl4\nl5\n"
MANY = "".join(f"line{i}\n" for i in range(1, 201))


def test_edit_returns_the_new_version_and_a_numbered_snippet(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)

    result = store.edit_file(A, "f.txt", "l3", "L3", snippet=True)

    assert result == EditResult("f.txt", 2, len(FIVE), 3, 3, snippet="2\tl2\n3\tL3\n4\tl4")
    assert store.read_file(A, "f.txt").content == "l1\nl2\nL3\nl4\nl5\n"


def test_edit_reports_where_the_change_landed_without_a_snippet_by_default(store: Scratchpad) -> None:
    store.write_file(A, "big.txt", MANY)

    replaced = store.edit_file(A, "big.txt", "line100\n", "EDITED\nTWICE\nTHRICE\n")
    inserted = store.insert_lines(A, "big.txt", 10, "new\nlines")

    assert replaced == EditResult("big.txt", 2, len(MANY) + len("EDITED\nTWICE\nTHRICE\n") - 8, 100, 102)
    assert (inserted.version, inserted.start_line, inserted.end_line, inserted.snippet) == (3, 11, 12, None)
    current = (store.read_file(A, "big.txt").content or "").split("\n")
    assert current[10:12] == ["new", "lines"] and current[101:104] == ["EDITED", "TWICE", "THRICE"]


def test_edit_snippet_is_never_the_whole_file(store: Scratchpad) -> None:
    store.write_file(A, "big.txt", MANY)

    result = store.edit_file(A, "big.txt", "line100\n", "EDITED\nTWICE\n", snippet=True)

    assert (result.start_line, result.end_line) == (100, 101)
    assert result.snippet == "99\tline99\n100\tEDITED\n101\tTWICE\n102\tline101"
    assert result.version == 2
    assert result.bytes_written == len(MANY) - len("line100\n") + len("EDITED\nTWICE\n")


def test_snippets_of_long_changes_are_bounded(store: Scratchpad) -> None:
    """A change of many lines shows its ends and says how many lines it leaves out, not every line."""
    store.write_file(A, "notes.md", "start\n")
    appended = "".join(f"entry {i}\n" for i in range(1, 20_001))

    inserted = store.insert_lines(A, "notes.md", -1, appended, snippet=True)

    assert inserted.snippet == (
        "1\tstart\n2\tentry 1\n3\tentry 2\n4\tentry 3\n…\t(19,993 more lines)\n"
        "19998\tentry 19997\n19999\tentry 19998\n20000\tentry 19999\n20001\tentry 20000"
    )
    whole = store.read_file(A, "notes.md").content
    assert whole is not None
    edited = store.edit_file(A, "notes.md", whole, whole.upper(), snippet=True)
    assert edited.snippet is not None
    assert len(edited.snippet.splitlines()) == 9 and "(19,993 more lines)" in edited.snippet
    assert len(edited.snippet) < 300


def test_edit_that_deletes_text(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", FIVE)
    result = store.edit_file(A, "f.txt", "l3\n", "", snippet=True)
    assert store.read_file(A, "f.txt").content == "l1\nl2\nl4\nl5\n"
    assert (result.version, result.bytes_written) == (2, len(FIVE) - 3)
    assert (result.start_line, result.end_line) == (3, 2)  # an empty range: lines were only removed
    assert result.snippet == "2\tl2\n3\tl4"


def test_replace_all(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "cat\ndog\ncat\ncat\n")
    result = store.edit_file(A, "f.txt", "cat", "cow", replace_all=True)
    assert (result.version, result.replacements) == (2, 3)
    assert store.read_file(A, "f.txt").content == "cow\ndog\ncow\ncow\n"


def test_edit_keeps_crlf_and_unicode(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "héllo\r\nwörld\r\n")
    result = store.edit_file(A, "f.txt", "wörld", "wørld 😀", snippet=True)
    assert store.read_file(A, "f.txt").content == "héllo\r\nwørld 😀\r\n"
    assert result.bytes_written == len("héllo\r\nwørld 😀\r\n".encode())
    assert result.snippet == "1\théllo\n2\twørld 😀"


@pytest.mark.parametrize(
    ("old", "new", "error"),
    [
        ("absent", "x", EditMismatch),
        ("l", "L", EditMismatch),  # ambiguous without replace_all
        ("L3", "x", EditMismatch),  # case differs
        ("", "x", InvalidInput),
        ("l3", "l3", InvalidInput),
    ],
)
def test_a_failing_edit_changes_nothing(
    store: Scratchpad, recount: Recounter, old: str, new: str, error: type[Exception]
) -> None:
    store.write_file(A, "f.txt", FIVE)
    before = recount.snapshot(A)
    with pytest.raises(error):
        store.edit_file(A, "f.txt", old, new)
    assert recount.snapshot(A) == before


def test_editing_a_missing_file_is_not_found(store: Scratchpad, recount: Recounter) -> None:
    with pytest.raises(NotFound):
        store.edit_file(A, "nope.txt", "a", "b")
    with pytest.raises(NotFound):
        store.insert_lines(A, "nope.txt", 1, "a")
    with pytest.raises(NotFound):
        store.restore_version(A, "nope.txt", 1)
    assert recount.snapshot(A)["files"] == []


@pytest.mark.parametrize("line", [0, -1])
def test_inserting_at_either_end_of_a_missing_file_creates_it(store: Scratchpad, recount: Recounter, line: int) -> None:
    """An agent appends to a notes file with line=-1 without having to create it first."""
    result = store.insert_lines(A, "notes.md", line, "first note")

    assert (result.version, result.bytes_written, result.start_line, result.end_line) == (1, len("first note\n"), 1, 1)
    assert store.read_file(A, "notes.md").content == "first note\n"
    assert store.insert_lines(A, "notes.md", -1, "second note\n").version == 2
    assert store.read_file(A, "notes.md").content == "first note\nsecond note\n"
    usage = recount.check(store, A)  # the counters equal a recount of the rows
    assert usage.file_count == 1
    assert usage.total_bytes == len("first note\n") * 2 + len("second note\n")  # both retained versions


def test_creating_by_insert_respects_expected_version(store: Scratchpad) -> None:
    with pytest.raises(VersionConflict, match="it does not exist"):
        store.insert_lines(A, "new.md", -1, "x", expected_version=3)
    assert store.insert_lines(A, "new.md", -1, "x", expected_version=0).version == 1
    with pytest.raises(VersionConflict):
        store.insert_lines(A, "new.md", -1, "y", expected_version=0)


def test_inserted_and_replacing_text_take_the_files_line_endings(store: Scratchpad) -> None:
    store.write_file(A, "lf.txt", "a\nb\n")
    store.write_file(A, "crlf.txt", "a\r\nb\r\n")

    store.insert_lines(A, "lf.txt", 1, "X\r\nY")
    store.insert_lines(A, "crlf.txt", 1, "X\nY")
    store.edit_file(A, "crlf.txt", "b", "B\nB2")

    assert store.read_file(A, "lf.txt").content == "a\nX\nY\nb\n"
    assert store.read_file(A, "crlf.txt").content == "a\r\nX\r\nY\r\nB\r\nB2\r\n"


def test_versions_beyond_any_stored_integer_are_refused_clearly(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", FIVE)
    before = recount.snapshot(A)
    with pytest.raises(InvalidInput, match=r"Invalid version 18446744073709551616: f\.txt is at version 1; use 1"):
        store.restore_version(A, "f.txt", 2**64)
    with pytest.raises(InvalidInput, match="Invalid version 0"):
        store.restore_version(A, "f.txt", 0)
    with pytest.raises(InvalidInput, match="Invalid expected_version 1099511627776: use the version you last read"):
        store.write_file(A, "f.txt", "new", expected_version=2**40)
    with pytest.raises(InvalidInput, match="Invalid expected_version"):
        store.insert_lines(A, "f.txt", -1, "x", expected_version=10**30)
    assert recount.snapshot(A) == before


def test_a_file_without_a_line_break_yet_takes_the_texts_line_endings(store: Scratchpad) -> None:
    store.write_file(A, "empty.txt", "")
    store.write_file(A, "word.txt", "abc")
    store.insert_lines(A, "empty.txt", 0, "a\r\nb")
    store.insert_lines(A, "word.txt", -1, "x\r\ny\r\n")
    assert store.read_file(A, "empty.txt").content == "a\r\nb\r\n"
    assert store.read_file(A, "word.txt").content == "abc\r\nx\r\ny\r\n"


def test_insert_line_errors_count_lines_properly(store: Scratchpad) -> None:
    store.write_file(A, "one.txt", "only\n")
    store.write_file(A, "empty.txt", "")
    with pytest.raises(InvalidInput, match=r"the file has 1 line; use 0 for the top, 1\.\.1"):
        store.insert_lines(A, "one.txt", 5, "x")
    with pytest.raises(InvalidInput, match="the file is empty; use 0 or -1"):
        store.insert_lines(A, "empty.txt", 2, "x")


def test_edit_with_expected_version(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", FIVE)
    store.edit_file(A, "f.txt", "l1", "L1")
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.edit_file(A, "f.txt", "l2", "L2", expected_version=1)

    assert "current version is 2" in str(caught.value)
    assert recount.snapshot(A) == before
    assert store.edit_file(A, "f.txt", "l2", "L2", expected_version=2).version == 3


def test_insert_with_expected_version(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", FIVE)
    store.write_file(A, "f.txt", FIVE + "l6\n")
    before = recount.snapshot(A)

    with pytest.raises(VersionConflict) as caught:
        store.insert_lines(A, "f.txt", 0, "top", expected_version=1)

    assert "current version is 2" in str(caught.value)
    assert recount.snapshot(A) == before
    assert store.insert_lines(A, "f.txt", 0, "top", expected_version=2).version == 3


# --- insert_lines ------------------------------------------------------------------


def test_insert_after_a_line(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\nb\nc\n")
    result = store.insert_lines(A, "f.txt", 2, "X\nY", snippet=True)
    assert result == EditResult("f.txt", 2, len("a\nb\nX\nY\nc\n"), 3, 4, snippet="2\tb\n3\tX\n4\tY\n5\tc")
    assert store.read_file(A, "f.txt").content == "a\nb\nX\nY\nc\n"


def test_insert_at_the_top_and_at_the_end(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\nb\n")
    top = store.insert_lines(A, "f.txt", 0, "first\n", snippet=True)
    assert (top.version, top.snippet) == (2, "1\tfirst\n2\ta")
    end = store.insert_lines(A, "f.txt", -1, "last", snippet=True)
    assert (end.version, end.snippet) == (3, "3\tb\n4\tlast")
    assert store.read_file(A, "f.txt").content == "first\na\nb\nlast\n"


def test_insert_at_the_end_of_a_file_without_final_newline(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\nb")
    store.insert_lines(A, "f.txt", -1, "c")
    assert store.read_file(A, "f.txt").content == "a\nb\nc\n"


def test_insert_into_an_empty_file(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "")
    result = store.insert_lines(A, "f.txt", 0, "only", snippet=True)
    assert result == EditResult("f.txt", 2, 5, 1, 1, snippet="1\tonly")


def test_insert_into_a_crlf_file_uses_crlf(store: Scratchpad) -> None:
    store.write_file(A, "win.txt", "a\r\nb\r\n")
    store.insert_lines(A, "win.txt", 1, "x\ny")
    assert store.read_file(A, "win.txt").content == "a\r\nx\r\ny\r\nb\r\n"


def test_insert_snippet_is_never_the_whole_file(store: Scratchpad) -> None:
    store.write_file(A, "big.txt", MANY)
    result = store.insert_lines(A, "big.txt", 150, "new", snippet=True)
    assert result.snippet == "150\tline150\n151\tnew\n152\tline151"


@pytest.mark.parametrize(("line", "text"), [(6, "x"), (-2, "x"), (0, "")])
def test_a_failing_insert_changes_nothing(store: Scratchpad, recount: Recounter, line: int, text: str) -> None:
    store.write_file(A, "f.txt", FIVE)
    before = recount.snapshot(A)
    with pytest.raises(InvalidInput):
        store.insert_lines(A, "f.txt", line, text)
    assert recount.snapshot(A) == before


# --- edits and quotas ------------------------------------------------------------------


def test_edits_count_towards_the_byte_quota(make_store: StoreFactory, recount: Recounter) -> None:
    store = make_store(limits=Limits(quota_files=3, quota_bytes=100, quota_log_entries=5, max_versions=3))
    store.write_file(A, "f.txt", "a" * 40)  # 40 bytes stored
    before = recount.snapshot(A)

    with pytest.raises(QuotaExceeded):
        store.edit_file(A, "f.txt", "a" * 40, "b" * 61)  # would store 40 + 61
    with pytest.raises(QuotaExceeded):
        store.insert_lines(A, "f.txt", -1, "c" * 20)  # would store 40 + 62
    assert recount.snapshot(A) == before
    assert recount.check(store, A).total_bytes == 40

    assert store.edit_file(A, "f.txt", "a" * 40, "b" * 60).version == 2
    assert recount.check(store, A).total_bytes == 100


def test_edits_update_the_counters(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.txt", FIVE)
    store.edit_file(A, "f.txt", "l1", "line one")
    store.insert_lines(A, "f.txt", 5, "l6")
    stats = recount.check(store, A)
    assert stats.total_bytes == len(FIVE) + (len(FIVE) + 6) + (len(FIVE) + 6 + 3)
    assert stats.file_count == 1
