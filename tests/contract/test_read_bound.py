"""A bounded read to the end (full, or a slice from start_line with no max_lines): past max_bytes, the whole
lines that fit, truncated, total_lines and the next_start_line; slices with max_lines and diffs are not
bounded; without a bound every line comes back."""

from __future__ import annotations

import pytest

from scratchpad_core.errors import InvalidInput
from scratchpad_core.limits import utf8_len
from scratchpad_core.results import ReadResult
from scratchpad_core.service import Scratchpad

A = "agent-a"
LINES = [f"line {n:03d} é\n" for n in range(1, 101)]  # 12 bytes each in UTF-8 (é is two)
TEXT = "".join(LINES)


def test_a_full_read_past_the_bound_returns_the_first_lines_that_fit(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    assert utf8_len(LINES[0]) == 12
    read = store.read_file(A, "big.md", max_bytes=12 * 10 + 11)
    assert read == ReadResult(
        path="big.md", current_version=1, content="".join(LINES[:10]), total_lines=100, truncated=True,
        next_start_line=11,
    )  # fmt: skip
    rest = store.read_file(A, "big.md", start_line=read.next_start_line)  # a slice: not bounded
    assert read.content is not None and rest.content is not None
    assert read.content + rest.content == TEXT
    assert (rest.start_line, rest.end_line, rest.total_lines, rest.truncated) == (11, 100, 100, None)


def test_a_file_within_the_bound_is_read_whole(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    exact = store.read_file(A, "big.md", max_bytes=utf8_len(TEXT))
    assert exact == ReadResult(path="big.md", current_version=1, content=TEXT)
    assert store.read_file(A, "big.md") == exact  # no bound: every line
    assert store.read_file(A, "big.md", max_bytes=utf8_len(TEXT) - 1).next_start_line == 100


def test_a_line_longer_than_the_bound_comes_cut_and_the_reader_moves_on(store: Scratchpad) -> None:
    store.write_file(A, "wide.json", "é" * 300 + "\nshort\n")  # 601 bytes, then 6
    read = store.read_file(A, "wide.json", max_bytes=101)
    assert (read.content, read.truncated, read.total_lines, read.next_start_line) == ("é" * 50, True, 2, 2)
    rest = store.read_file(A, "wide.json", start_line=2, max_bytes=101)
    assert (rest.content, rest.truncated, rest.end_line) == ("short\n", None, 2)
    line = store.read_file(A, "wide.json", start_line=1, max_lines=1, max_bytes=101)  # asked for: not bounded
    assert line.content == "é" * 300 + "\n"


def test_reading_on_from_next_start_line_stays_within_the_bound(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    pieces, start = [], None
    while True:
        read = store.read_file(A, "big.md", start_line=start, max_bytes=12 * 30)
        assert read.content is not None and utf8_len(read.content) <= 12 * 30
        pieces.append(read.content)
        if not read.truncated:
            break
        start = read.next_start_line
    assert "".join(pieces) == TEXT and len(pieces) == 4


def test_an_older_version_is_bounded_too_but_diffs_are_not(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    store.write_file(A, "big.md", TEXT + "one more\n")
    old = store.read_file(A, "big.md", version=1, max_bytes=26)
    assert (old.version, old.content, old.truncated, old.next_start_line) == (1, "".join(LINES[:2]), True, 3)
    diff = store.read_file(A, "big.md", since_version=1, format="compact", context=0)
    assert diff.truncated is None and diff.diff


def test_the_bound_must_be_positive(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    for bad in (0, -1):
        with pytest.raises(InvalidInput, match="Invalid max_bytes"):
            store.read_file(A, "big.md", max_bytes=bad)


def test_a_truncated_read_counts_the_bytes_it_did_not_send(store: Scratchpad) -> None:
    store.write_file(A, "big.md", TEXT)
    before = store.get_usage_stats(A).bytes_saved
    store.read_file(A, "big.md", max_bytes=130)
    assert store.get_usage_stats(A).bytes_saved - before == utf8_len(TEXT) - 120  # 10 lines sent
