from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scratchpad_core.usecases.search import MATCH_CHARS, Search, _window

LINE = "".join(chr(ord("a") + n % 26) for n in range(1000))


@pytest.mark.parametrize("line", ["", "short line", "x" * MATCH_CHARS])
def test_short_lines_are_whole(line: str) -> None:
    assert _window(line, 0) == line


def test_long_line_windows() -> None:
    assert _window(LINE, 500) == "…" + LINE[440:640] + "…"
    assert _window(LINE, 10) == LINE[:200] + "…"
    assert _window(LINE, 995) == "…" + LINE[800:]


@given(st.integers(MATCH_CHARS + 1, 3000), st.data())
def test_long_line_window_is_bounded_and_holds_the_match(length: int, data: st.DataObject) -> None:
    at = data.draw(st.integers(0, length - 1))
    line = "a" * at + "Z" + "b" * (length - at - 1)
    window = _window(line, at)
    assert "Z" in window
    assert len(window.strip("…")) == MATCH_CHARS
    assert len(window) <= MATCH_CHARS + 2


def test_case_insensitive_match_offset_points_into_the_original_line() -> None:
    # BUG: the matcher returns an offset in line.lower(); 'İ'.lower() is two characters, so the offset
    # runs past the match and the window shown to the agent misses it.
    matcher = Search(cast(Any, None))._matcher("needle", regex=False, case_sensitive=False)
    line = "İ" * 1000 + "Needle" + "x" * 1000
    at = matcher(line)
    assert at == 1000
    assert "Needle" in _window(line, at)
