from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scratchpad_core.diffing import (
    MAX_MATCHING_WORK,
    Chunk,
    _matching_work,
    apply_chunks,
    apply_unified,
    diff_chunks,
    unified_diff,
)
from scratchpad_core.errors import InvalidInput

CONTEXTS = [-1, 0, 1, 3, 10]
_LINES = st.one_of(
    st.sampled_from(["", "a", "b", "c", "é", "日本", "😀 emoji", "  indented", "tab\there", "cr\rinside", "end\r"]),
    st.text(max_size=6),
)


@st.composite
def texts(draw: st.DrawFn) -> str:
    """Lines from a small pool (so texts share lines), ended by '\\n' or '\\r\\n', the last maybe not ended."""
    rows = draw(st.lists(st.tuples(_LINES, st.sampled_from(["\n", "\r\n"])), max_size=12))
    text = "".join(line + end for line, end in rows)
    drop_last_newline = draw(st.booleans())
    return text[: -len(rows[-1][1])] if rows and drop_last_newline else text


@st.composite
def text_pairs(draw: st.DrawFn) -> tuple[str, str]:
    """Either two unrelated texts or a text and a splice of it."""
    old = draw(texts())
    if draw(st.booleans()):
        return old, draw(texts())
    i = draw(st.integers(0, len(old)))
    j = draw(st.integers(i, len(old)))
    return old, old[:i] + draw(texts()) + old[j:]


@given(text_pairs(), st.sampled_from(CONTEXTS))
def test_chunks_reconstruct_the_new_text(pair: tuple[str, str], context: int) -> None:
    old, new = pair
    chunks = diff_chunks(old, new, context)
    assert apply_chunks(old, chunks) == new
    assert apply_chunks(old, [c.as_json() for c in chunks]) == new


@given(text_pairs(), st.sampled_from(CONTEXTS))
def test_unified_diff_reconstructs_the_new_text(pair: tuple[str, str], context: int) -> None:
    old, new = pair
    diff = unified_diff(old, new, context)
    assert (diff == "") == (old == new)
    assert apply_unified(old, diff) == new


@pytest.mark.skipif(shutil.which("patch") is None, reason="GNU patch is not installed")
@settings(max_examples=150, deadline=None)
@given(text_pairs(), st.sampled_from(CONTEXTS))
def test_gnu_patch_applies_the_unified_diff(pair: tuple[str, str], context: int) -> None:
    old, new = pair
    diff = unified_diff(old, new, context)
    if not diff:
        assert old == new
        return
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        (base / "old.txt").write_bytes(old.encode("utf-8"))
        (base / "change.diff").write_bytes(diff.encode("utf-8"))
        done = subprocess.run(
            ["patch", "--batch", "--fuzz=0", "--reject-file=-", "-o", "out.txt", "old.txt", "change.diff"],
            cwd=base,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert (base / "out.txt").read_bytes() == new.encode("utf-8")


LONG = "\n".join(f"line {n}" for n in range(1000))  # 1,000 lines, no final newline
CHANGED = LONG.replace("line 500\n", "LINE 500\n")


def test_one_line_change_with_no_context() -> None:
    assert diff_chunks(LONG, CHANGED, 0) == [
        Chunk("skip", count=500),
        Chunk("remove", ["line 500"]),
        Chunk("add", ["LINE 500"]),
        Chunk("skip", count=499),
    ]


def test_default_context_keeps_three_equal_lines_each_side() -> None:
    assert diff_chunks(LONG, CHANGED) == [
        Chunk("skip", count=497),
        Chunk("equal", ["line 497", "line 498", "line 499"]),
        Chunk("remove", ["line 500"]),
        Chunk("add", ["LINE 500"]),
        Chunk("equal", ["line 501", "line 502", "line 503"]),
        Chunk("skip", count=496),
    ]


def test_all_context_has_no_skips() -> None:
    chunks = diff_chunks(LONG, CHANGED, -1)
    assert [c.op for c in chunks] == ["equal", "remove", "add", "equal"]
    assert [c.size for c in chunks] == [500, 1, 0, 499]


def test_context_below_minus_one_is_refused() -> None:
    with pytest.raises(InvalidInput, match="Invalid context"):
        diff_chunks("a", "b", -2)


@pytest.mark.parametrize("context", [0, 3])
def test_identical_texts_are_one_skip(context: int) -> None:
    assert diff_chunks("a\nb\nc\n", "a\nb\nc\n", context) == [Chunk("skip", count=4)]
    assert diff_chunks("", "", context) == [Chunk("skip", count=1)]


def test_adding_only_a_final_newline_is_a_real_diff() -> None:
    chunks = diff_chunks("a\nb", "a\nb\n")
    assert chunks == [Chunk("equal", ["a", "b"]), Chunk("add", [""])]
    assert apply_chunks("a\nb", chunks) == "a\nb\n"
    diff = unified_diff("a\nb", "a\nb\n")
    assert diff == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"
    assert apply_unified("a\nb", diff) == "a\nb\n"


def test_unified_diff_of_equal_texts_is_empty() -> None:
    assert unified_diff("same\ntext\n", "same\ntext\n") == ""
    assert unified_diff("", "") == ""


def test_unified_diff_format() -> None:
    diff = unified_diff("a\nb\nc\nd\n", "a\nB\nc\nd\n", 1, old_name="notes.md@1", new_name="notes.md@2")
    assert diff == "--- notes.md@1\n+++ notes.md@2\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def test_unified_diff_marks_missing_final_newline() -> None:
    diff = unified_diff("x\ny", "x\nz", 0)
    assert diff == "--- a\n+++ b\n@@ -2 +2 @@\n-y\n\\ No newline at end of file\n+z\n\\ No newline at end of file\n"


def test_unified_diff_insert_into_empty_text() -> None:
    assert unified_diff("", "new\n", 0) == "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n"
    assert apply_unified("", "--- a\n+++ b\n@@ -0,0 +1 @@\n+new\n") == "new\n"


def test_unified_diff_that_does_not_fit_is_refused() -> None:
    with pytest.raises(InvalidInput, match="Diff does not apply at old line 2"):
        apply_unified("a\nX\n", unified_diff("a\nb\n", "a\nc\n", 0))


def test_apply_chunks_accepts_json_dicts() -> None:
    chunks: list[Any] = [
        {"op": "skip", "count": 2},
        {"op": "remove", "lines": ["c"]},
        {"op": "add", "lines": ["C", "C2"]},
        Chunk("equal", ["d"]),
    ]
    assert apply_chunks("a\nb\nc\nd", chunks) == "a\nb\nC\nC2\nd"


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ([{"op": "equal", "lines": ["a", "X"]}], "the equal lines at line 1 differ"),
        ([{"op": "skip", "count": 1}], "it covers 1 of the old text's 2 lines"),
        ([{"op": "skip", "count": 3}], "it covers 3 of the old text's 2 lines"),
        ([{"op": "equal", "lines": ["a", "b", "c"]}], "the equal lines at line 1 differ"),
        ([{"op": "copy", "lines": ["a", "b"]}], "unknown op 'copy'"),
        ([], "it covers 0 of the old text's 2 lines"),
    ],
)
def test_apply_chunks_refuses_a_diff_that_does_not_fit(chunks: list[Any], message: str) -> None:
    with pytest.raises(InvalidInput, match="Diff does not apply") as caught:
        apply_chunks("a\nb", chunks)
    assert message in str(caught.value)


def test_apply_chunks_refuses_negative_skip_counts() -> None:
    # BUG: a negative count moves backwards, so this duplicates "a" and returns "a\na".
    with pytest.raises(InvalidInput):
        apply_chunks("a", [{"op": "skip", "count": 1}, {"op": "skip", "count": -1}, {"op": "skip", "count": 1}])


def test_apply_chunks_checks_removed_lines() -> None:
    # BUG: removed lines are not compared with the old text, so a stale diff applies silently.
    with pytest.raises(InvalidInput):
        apply_chunks("a\nb", [{"op": "remove", "lines": ["not a"]}, {"op": "equal", "lines": ["b"]}])


def test_apply_chunks_refuses_malformed_json_with_invalid_input() -> None:
    # BUG: Chunk(**item) raises TypeError for an unknown key instead of InvalidInput.
    with pytest.raises(InvalidInput):
        apply_chunks("a", [{"op": "skip", "n": 1}])


def test_chunk_json_drops_the_unused_key() -> None:
    assert Chunk("skip", count=4).as_json() == {"op": "skip", "count": 4}
    assert Chunk("add", ["x", ""]).as_json() == {"op": "add", "lines": ["x", ""]}
    assert Chunk("equal", ["y"]).as_json() == {"op": "equal", "lines": ["y"]}


def test_many_repeated_lines_give_an_exact_diff_without_matching_them() -> None:
    """100,000 lines drawn from 110 values: difflib would walk ~90 million line pairs (half a minute).
    Past MAX_MATCHING_WORK the changed middle is replaced whole: larger, but exact, and at once."""
    rng = random.Random(7)
    old = "first\n" + "".join(f"{rng.randrange(110)}\n" for _ in range(100_000)) + "last\n"
    new = "first\n" + "".join(f"{rng.randrange(110)}\n" for _ in range(100_000)) + "last\n"
    lines = old.splitlines(keepends=True)[1:-1]
    assert _matching_work(lines, new.splitlines(keepends=True)[1:-1], autojunk=True) > MAX_MATCHING_WORK

    chunks = diff_chunks(old, new, context=0)

    assert [c.op for c in chunks] == ["skip", "remove", "add", "skip"]
    assert apply_chunks(old, chunks) == new
    assert apply_unified(old, unified_diff(old, new, context=0)) == new


def test_ordinary_diffs_are_still_matched_line_by_line() -> None:
    base = [f"line {i}\n" for i in range(10_000)]
    changed = list(base)
    for k in range(0, 10_000, 100):
        changed[k] = f"changed {k}\n"
    chunks = diff_chunks("".join(base), "".join(changed), context=0)
    assert sum(len(c.lines or []) for c in chunks) == 200  # 100 removed and 100 added lines, nothing more
