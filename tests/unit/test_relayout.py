"""indexing.relayout: how a catch-up turns the slots of the text the index holds into the new text's, keeping the
rows of every line that is still there (wherever it moved) and making rows only for the lines that are new."""

from __future__ import annotations

from scratchpad_adapters.stemming import default_analyzer
from scratchpad_core.search.indexing import PIECE_CHARS, IndexRow, relayout, text_of

ANALYZER = default_analyzer()


def made(parts: list[object]) -> list[str]:
    return [part.text for part in parts if isinstance(part, IndexRow)]


def test_moved_lines_keep_their_rows_and_only_a_new_line_is_indexed() -> None:
    layout = relayout(
        ANALYZER, "alpha\nbeta\n\ngamma\ndelta\n", [1, 2, 0, 3, 4], "alpha\ngamma\nbeta\nnew line\n\ndelta\n"
    )
    assert layout is not None
    start, stop, parts = layout
    assert (start, stop) == (1, 4)  # the common first and last lines are not touched
    assert [p if isinstance(p, int) else p.text for p in parts] == [3, 2, "new line", 0]  # type: ignore[union-attr]


def test_a_long_lines_pieces_go_together() -> None:
    long = "word " * (PIECE_CHARS // 2)
    layout = relayout(ANALYZER, f"a\n{long}\nb\n", [1, 2, -3, -4, 5], f"b\n{long}\na\n")  # three pieces
    assert layout == (0, 5, [5, 2, -3, -4, 1])  # no row made: each line's rows kept whole


def test_a_repeated_line_keeps_one_row_each_time_it_is_kept() -> None:
    layout = relayout(ANALYZER, "x\nx\ny\n", [1, 2, 3], "y\nx\nz\n")
    assert layout is not None
    start, stop, parts = layout
    kept = [p for p in parts if isinstance(p, int)]
    assert (start, stop) == (0, 3)
    assert sorted(kept) in ([1, 3], [2, 3])
    assert made(parts) == ["z"]  # type: ignore[arg-type]


def test_slots_that_do_not_list_the_text_are_no_layout() -> None:
    assert relayout(ANALYZER, "a\nb\n", [1], "a\n") is None  # a damaged record: the file is indexed whole


def test_text_of_joins_a_records_rows_into_its_lines() -> None:
    texts = {1: "first", 2: "piece one ", 3: "piece two", 5: "last"}
    assert text_of([1, 0, 2, -3, 5], texts) == "first\n\npiece one piece two\nlast\n"
    assert text_of([], {}) == ""
