from __future__ import annotations

import pytest

from scratchpad_core.editing import Edit, insert, replace
from scratchpad_core.errors import EditMismatch, InvalidInput

TEXT = "alpha\nbeta\ngamma\n"


def _mismatch(content: str, old: str) -> str:
    with pytest.raises(EditMismatch) as caught:
        replace(content, old, "new")
    return str(caught.value)


def test_unique_replacement() -> None:
    assert replace(TEXT, "beta", "BETA") == Edit("alpha\nBETA\ngamma\n", 2, 2, 1)


def test_replacement_spanning_lines_reports_its_new_lines() -> None:
    assert replace(TEXT, "beta\n", "one\ntwo\nthree\n") == Edit("alpha\none\ntwo\nthree\ngamma\n", 2, 4, 1)


def test_ambiguous_replacement_lists_the_lines() -> None:
    message = _mismatch("x\nfoo\ny\nz\nfoo bar\n", "foo")
    assert "old_str occurs 2 times (lines 2, 5)." in message
    assert "replace_all=true" in message


def test_long_occurrence_lists_are_cut() -> None:
    message = _mismatch("k\n" * 25, "k")
    listed = ", ".join(str(n) for n in range(1, 21))
    assert f"occurs 25 times (lines {listed}, ...)" in message


def test_replace_all_counts_replacements() -> None:
    edit = replace("x\nfoo\ny\nfoo\n", "foo", "bar", replace_all=True)
    assert edit == Edit("x\nbar\ny\nbar\n", 2, 2, 2)


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [("", "x", "Invalid old_str: it must not be empty."), ("beta", "beta", "old_str and new_str are identical")],
)
def test_useless_edits_are_invalid_input(old: str, new: str, message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        replace(TEXT, old, new)
    assert not isinstance(caught.value, EditMismatch)
    assert message in str(caught.value)


def test_hint_for_crlf_file_and_lf_old_str() -> None:
    message = _mismatch("one\r\ntwo\r\nthree\r\n", "one\ntwo")
    assert message.startswith("old_str was not found in the file. Line endings differ: the file uses CRLF")


def test_hint_for_lf_file_and_crlf_old_str() -> None:
    assert "Line endings differ: the file uses LF (\\n) line endings" in _mismatch(TEXT, "alpha\r\nbeta")


def test_hint_for_letter_case() -> None:
    assert "Letter case differs near line 3; old_str must match exactly." in _mismatch(TEXT, "GAMMA")


def test_hint_for_indentation() -> None:
    message = _mismatch("def f():\n    return 1\n", "\treturn 1")
    assert "Whitespace or indentation differs near line 2: '    return 1'." in message


def test_hint_for_closest_line() -> None:
    assert "The closest line is 3: 'gamma'." in _mismatch(TEXT, "gamna")


def test_hint_when_nothing_is_close() -> None:
    assert "Read the file (read_file with start_line/max_lines)" in _mismatch(TEXT, "zzzzzzzz")


@pytest.mark.parametrize(
    ("line", "text", "expected"),
    [
        (0, "top", Edit("top\nalpha\nbeta\ngamma\n", 1, 1)),
        (1, "x\ny\n", Edit("alpha\nx\ny\nbeta\ngamma\n", 2, 3)),
        (3, "end", Edit("alpha\nbeta\ngamma\nend\n", 4, 4)),
        (-1, "end\nmore", Edit("alpha\nbeta\ngamma\nend\nmore\n", 4, 5)),
    ],
)
def test_insert_positions(line: int, text: str, expected: Edit) -> None:
    assert insert(TEXT, line, text) == expected


@pytest.mark.parametrize("line", [-1, 2])
def test_insert_after_a_last_line_without_newline(line: int) -> None:
    assert insert("a\nb", line, "c") == Edit("a\nb\nc\n", 3, 3)


def test_insert_before_a_last_line_without_newline_keeps_it() -> None:
    assert insert("a\nb", 1, "c") == Edit("a\nc\nb", 2, 2)


@pytest.mark.parametrize("line", [0, -1])
def test_insert_into_empty_file(line: int) -> None:
    assert insert("", line, "first") == Edit("first\n", 1, 1)


def test_insert_into_crlf_file_uses_crlf() -> None:
    assert insert("a\r\nb\r\n", 1, "x\ny") == Edit("a\r\nx\r\ny\r\nb\r\n", 2, 3)
    assert insert("a\r\nb", -1, "c\r\n") == Edit("a\r\nb\r\nc\r\n", 3, 3)


def test_insert_keeps_unicode() -> None:
    assert insert("é\n", 1, "日本 😀") == Edit("é\n日本 😀\n", 2, 2)


@pytest.mark.parametrize("line", [-2, 4, 100])
def test_insert_out_of_range(line: int) -> None:
    with pytest.raises(InvalidInput) as caught:
        insert(TEXT, line, "x")
    assert f"Invalid line {line}: the file has 3 lines;" in str(caught.value)
    assert "1..3 to insert after that line" in str(caught.value)


def test_insert_empty_text_is_refused() -> None:
    with pytest.raises(InvalidInput, match=r"Invalid text: it must not be empty\."):
        insert(TEXT, 0, "")
