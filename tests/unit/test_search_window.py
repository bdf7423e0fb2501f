"""How a long line shows in a search result: around its match, marked where it was cut."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchpad_core.text import MATCH_CHARS, around
from scratchpad_core.usecases.search.searching import Search

LINE = "".join(chr(ord("a") + n % 26) for n in range(1000))


@pytest.mark.parametrize("line", ["", "short line", "x" * MATCH_CHARS])
def test_short_lines_are_whole(line: str) -> None:
    assert around(line, 0) == line


def test_long_line_windows() -> None:
    assert around(LINE, 500) == "…" + LINE[440:640] + "…"
    assert around(LINE, 10) == LINE[:200] + "…"
    assert around(LINE, None) == LINE[:200] + "…"
    assert around(LINE, 995) == "…" + LINE[800:]
    assert around(LINE, 990, 500) == "…" + LINE[500:]


@given(st.integers(MATCH_CHARS + 1, 3000), st.data())
def test_long_line_window_is_bounded_and_holds_the_match(length: int, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, length - 1))
    line = "a" * at + "Z" + "b" * (length - at - 1)
    window = around(line, at)
    assert "Z" in window
    assert len(window.strip("…")) == MATCH_CHARS
    assert len(window) <= MATCH_CHARS + 2


def test_case_insensitive_match_offset_points_into_the_original_line() -> None:
    # The matcher returns an offset in the line as given, not in line.lower() ('İ'.lower() is two characters).
    matcher = Search(cast(Any, None))._matcher("needle", regex=False, case_sensitive=False)
    line = "İ" * 1000 + "Needle" + "x" * 1000
    at = matcher(line)
    assert at == 1000
    assert "Needle" in around(line, at)
