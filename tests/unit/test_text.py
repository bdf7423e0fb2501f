from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchpad_core.text import clip, count_lines, line_of_offset, numbered, split_keepends


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("", []),
        ("a", ["a"]),
        ("a\n", ["a\n"]),
        ("a\nb", ["a\n", "b"]),
        ("\n\n", ["\n", "\n"]),
        ("a\r\nb\r\n", ["a\r\n", "b\r\n"]),
        ("a\u2028b\x0cc\rd\x85e\n", ["a\u2028b\x0cc\rd\x85e\n"]),
    ],
)
def test_split_keepends_splits_on_newline_only(text: str, lines: list[str]) -> None:
    assert split_keepends(text) == lines


@given(st.text())
def test_split_keepends_round_trips(text: str) -> None:
    lines = split_keepends(text)
    assert "".join(lines) == text
    assert all(line.count("\n") == 1 and line.endswith("\n") for line in lines[:-1])


@pytest.mark.parametrize(("text", "count"), [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\nb\n", 2), ("\n", 1)])
def test_count_lines(text: str, count: int) -> None:
    assert count_lines(text) == count


@pytest.mark.parametrize(("offset", "line"), [(0, 1), (1, 1), (2, 2), (3, 2), (4, 3), (5, 3)])
def test_line_of_offset(offset: int, line: int) -> None:
    assert line_of_offset("a\nb\nc", offset) == line


def test_clip() -> None:
    assert clip("short\r\n") == "short"
    assert clip("x" * 160) == "x" * 160
    assert clip("x" * 161) == "x" * 159 + "…"
    assert clip("abcdef", 4) == "abc…"
    assert len(clip("y" * 10_000)) == 160


LINES = ["one\n", "two\r\n", "three\n", "four"]


@pytest.mark.parametrize(
    ("first", "last", "rows"),
    [
        (2, 3, "1\tone\n2\ttwo\n3\tthree\n4\tfour"),
        (1, 1, "1\tone\n2\ttwo"),
        (4, 4, "3\tthree\n4\tfour"),
        (3, 3, "2\ttwo\n3\tthree\n4\tfour"),
    ],
)
def test_numbered_adds_one_line_of_context(first: int, last: int, rows: str) -> None:
    assert numbered(LINES, first, last) == rows


def test_numbered_keeps_both_ends_of_a_long_run() -> None:
    lines = [f"l{n}\n" for n in range(1, 31)]
    assert numbered(lines, 5, 14).splitlines() == [
        "4\tl4",
        "5\tl5",
        "6\tl6",
        "7\tl7",
        "…\t(4 more lines)",
        "12\tl12",
        "13\tl13",
        "14\tl14",
        "15\tl15",
    ]
    assert len(numbered(lines, 5, 13).splitlines()) == 9  # 9 rows fit: nothing left out


def test_numbered_without_context_and_clipped() -> None:
    assert numbered(LINES, 2, 2, context=0) == "2\ttwo"
    assert numbered(["z" * 500], 1, 1) == "1\t" + "z" * 159 + "…"
