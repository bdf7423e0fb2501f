"""read_file with since_version: chunk and unified diffs that rebuild the current content exactly."""

from __future__ import annotations

from typing import cast

import pytest

from scratchpad_core import diffing
from scratchpad_core.diffing import Chunk
from scratchpad_core.errors import InvalidInput
from scratchpad_core.hunks import Hunk, apply_hunks
from scratchpad_core.results import ReadResult
from scratchpad_core.service import Scratchpad

A = "agent-a"

PAIRS = {
    "one line changed": ("a\nb\nc\n", "a\nB\nc\n"),
    "final newline added": ("a\nb", "a\nb\n"),
    "final newline removed": ("a\nb\n", "a\nb"),
    "only a newline added to an empty line": ("x\n", "x\n\n"),
    "from empty": ("", "first\nsecond\n"),
    "to empty": ("first\nsecond\n", ""),
    "lines inserted and removed": ("1\n2\n3\n4\n5\n6\n7\n8\n", "0\n1\n3\n4\n5\n5.5\n6\n8\n9"),
    "crlf": ("one\r\ntwo\r\n", "one\r\nTWO\r\nthree\r\n"),
    "crlf to lf": ("one\r\ntwo\r\n", "one\ntwo\n"),
    "unicode": ("héllo\n日本\n", "héllo\n日本語\n😀\n"),
    "blank lines only": ("\n\n\n", "\n\n"),
    "lone CR and U+2028 stay inside lines": ("a\rb\u2028c\nd\n", "a\rB\u2028c\nd\n"),
    "a line that looks like a hunk header": ("@@ -1 +1 @@\n--- x\n", "@@ -1 +1 @@\n+++ y\n"),
}


def two_versions(store: Scratchpad, old: str, new: str, path: str = "f.txt") -> None:
    store.write_file(A, path, old)
    assert store.write_file(A, path, new).version == 2


CONTEXTS = (0, 1, 3, -1)


def chunks_of(read: ReadResult) -> list[Chunk]:
    """The diff of a chunks-format read, checked to be chunks."""
    assert isinstance(read.diff, list)
    assert all(isinstance(chunk, Chunk) for chunk in read.diff)
    return cast(list[Chunk], read.diff)


@pytest.mark.parametrize(("old", "new"), PAIRS.values(), ids=PAIRS.keys())
def test_chunks_turn_the_old_version_into_the_current_one(store: Scratchpad, old: str, new: str) -> None:
    two_versions(store, old, new)

    for context in CONTEXTS:
        read = store.read_file(A, "f.txt", since_version=1, context=context)

        assert (read.current_version, read.since_version, read.version_too_old, read.unchanged) == (2, 1, False, None)
        assert read.content is None
        chunks = chunks_of(read)
        assert diffing.apply_chunks(old, chunks) == new, f"context={context}"
        assert diffing.apply_chunks(old, [chunk.as_json() for chunk in chunks]) == new, f"context={context}"


@pytest.mark.parametrize(("old", "new"), PAIRS.values(), ids=PAIRS.keys())
def test_unified_diff_applies_to_the_old_version(store: Scratchpad, old: str, new: str) -> None:
    two_versions(store, old, new)

    for context in CONTEXTS:
        read = store.read_file(A, "f.txt", since_version=1, context=context, format="unified")

        assert isinstance(read.diff, str)
        assert read.diff.startswith("--- ")
        assert diffing.apply_unified(old, read.diff) == new, f"context={context}"


def test_a_diff_between_versions_with_equal_content(store: Scratchpad) -> None:
    for content in ("a\nb\n", "other\n", "a\nb\n"):
        store.write_file(A, "f.txt", content)
    for context in CONTEXTS:
        chunks = chunks_of(store.read_file(A, "f.txt", since_version=1, context=context))
        unified = store.read_file(A, "f.txt", since_version=1, context=context, format="unified").diff
        assert isinstance(unified, str)
        assert all(chunk.op in ("equal", "skip") for chunk in chunks)
        assert diffing.apply_chunks("a\nb\n", chunks) == "a\nb\n"
        assert diffing.apply_unified("a\nb\n", unified) == "a\nb\n"


def test_exact_chunks_of_a_one_line_change(store: Scratchpad) -> None:
    two_versions(store, "a\nb\nc\n", "a\nB\nc\n")
    read = store.read_file(A, "f.txt", since_version=1, context=-1)
    assert read.diff == [
        Chunk("equal", ["a"]),
        Chunk("remove", ["b"]),
        Chunk("add", ["B"]),
        Chunk("equal", ["c", ""]),
    ]


def test_a_change_of_the_final_newline_only(store: Scratchpad) -> None:
    two_versions(store, "a\nb", "a\nb\n")
    read = store.read_file(A, "f.txt", since_version=1)
    assert read.diff == [Chunk("equal", ["a", "b"]), Chunk("add", [""])]
    unified = store.read_file(A, "f.txt", since_version=1, format="unified").diff
    assert isinstance(unified, str)
    assert unified.splitlines()[2:] == ["@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+b"]


LONG_OLD = "".join(f"l{i}\n" for i in range(1, 31))
LONG_NEW = LONG_OLD.replace("l15\n", "X\n")


def lines(first: int, last: int) -> list[str]:
    return [f"l{i}" for i in range(first, last + 1)]


def test_default_context_skips_long_unchanged_runs(store: Scratchpad) -> None:
    two_versions(store, LONG_OLD, LONG_NEW)
    read = store.read_file(A, "f.txt", since_version=1)
    assert read.diff == [
        Chunk("skip", count=11),
        Chunk("equal", lines(12, 14)),
        Chunk("remove", ["l15"]),
        Chunk("add", ["X"]),
        Chunk("equal", lines(16, 18)),
        Chunk("skip", count=13),
    ]
    assert read.diff == store.read_file(A, "f.txt", since_version=1, context=3).diff


def test_context_zero_keeps_no_unchanged_line(store: Scratchpad) -> None:
    two_versions(store, LONG_OLD, LONG_NEW)
    read = store.read_file(A, "f.txt", since_version=1, context=0)
    assert read.diff == [
        Chunk("skip", count=14),
        Chunk("remove", ["l15"]),
        Chunk("add", ["X"]),
        Chunk("skip", count=16),
    ]


def test_context_minus_one_keeps_every_unchanged_line(store: Scratchpad) -> None:
    two_versions(store, LONG_OLD, LONG_NEW)
    read = store.read_file(A, "f.txt", since_version=1, context=-1)
    chunks = chunks_of(read)
    assert [c.op for c in chunks] == ["equal", "remove", "add", "equal"]
    assert chunks[0] == Chunk("equal", lines(1, 14))
    assert chunks[3] == Chunk("equal", [*lines(16, 30), ""])


def test_unified_context_sizes(store: Scratchpad) -> None:
    two_versions(store, LONG_OLD, LONG_NEW)
    three = store.read_file(A, "f.txt", since_version=1, format="unified").diff
    zero = store.read_file(A, "f.txt", since_version=1, format="unified", context=0).diff
    every = store.read_file(A, "f.txt", since_version=1, format="unified", context=-1).diff
    assert isinstance(three, str)
    assert isinstance(zero, str)
    assert isinstance(every, str)
    assert three.splitlines()[2:] == ["@@ -12,7 +12,7 @@", " l12", " l13", " l14", "-l15", "+X", " l16", " l17", " l18"]
    assert zero.splitlines()[2:] == ["@@ -15 +15 @@", "-l15", "+X"]
    assert every.splitlines()[2] == "@@ -1,30 +1,30 @@"
    assert len(every.splitlines()) == 3 + 31


def test_a_diff_across_several_versions(store: Scratchpad) -> None:
    contents = ["a\n", "a\nb\n", "a\nb\nc\n", "z\nb\nc\nd"]
    for content in contents:
        store.write_file(A, "f.txt", content)
    for since in (1, 2, 3):
        chunks = chunks_of(store.read_file(A, "f.txt", since_version=since))
        assert diffing.apply_chunks(contents[since - 1], chunks) == contents[-1]


def test_since_a_pruned_version_returns_the_full_content(store: Scratchpad) -> None:
    for i in range(1, 13):
        store.write_file(A, "f.txt", f"version {i}\n")

    read = store.read_file(A, "f.txt", since_version=2)

    assert (read.current_version, read.since_version, read.version_too_old) == (12, 2, True)
    assert read.content == "version 12\n"
    assert read.diff is None
    assert store.read_file(A, "f.txt", since_version=3).version_too_old is False


def test_since_the_current_version_is_unchanged(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\n")
    store.write_file(A, "f.txt", "b\n")

    chunks = store.read_file(A, "f.txt", since_version=2)
    unified = store.read_file(A, "f.txt", since_version=2, format="unified")

    assert (chunks.unchanged, chunks.diff, chunks.content, chunks.current_version) == (True, [], None, 2)
    assert (unified.unchanged, unified.diff, unified.content) == (True, "", None)
    assert chunks.version_too_old is False


@pytest.mark.parametrize("since", [0, -1, 3, 100])
def test_since_outside_the_history_is_invalid(store: Scratchpad, since: int) -> None:
    store.write_file(A, "f.txt", "a\n")
    store.write_file(A, "f.txt", "b\n")
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", since_version=since)


def test_invalid_diff_options(store: Scratchpad) -> None:
    store.write_file(A, "f.txt", "a\n")
    store.write_file(A, "f.txt", "b\n")
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", since_version=1, context=-2)
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", since_version=1, format="html")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", since_version=1, version=1)
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", since_version=1, start_line=1)


# --- format="compact" ----------------------------------------------------------------


@pytest.mark.parametrize(("old", "new"), PAIRS.values(), ids=PAIRS.keys())
def test_compact_hunks_turn_the_old_version_into_the_current_one(store: Scratchpad, old: str, new: str) -> None:
    two_versions(store, old, new)
    read = store.read_file(A, "f.txt", since_version=1, format="compact")
    assert isinstance(read.diff, list)
    assert all(isinstance(hunk, Hunk) for hunk in read.diff)
    assert apply_hunks(old, cast(list[Hunk], read.diff)) == new
    # The lean reply: nothing the reader sent, no flag that is false.
    assert (read.path, read.since_version, read.version_too_old, read.content) == (None, None, None, None)
    assert read.current_version == 2


def test_compact_of_a_one_line_change(store: Scratchpad) -> None:
    two_versions(store, LONG_OLD, LONG_NEW)
    read = store.read_file(A, "f.txt", since_version=1, format="compact", context=7)  # context does not apply
    assert read.diff == [Hunk(15, 1, ["X"])]


def test_compact_unchanged_and_too_old(store: Scratchpad) -> None:
    for i in range(1, 13):
        store.write_file(A, "f.txt", f"version {i}\n")
    same = store.read_file(A, "f.txt", since_version=12, format="compact")
    assert (same.unchanged, same.diff, same.path, same.version_too_old) == (True, [], None, None)
    old = store.read_file(A, "f.txt", since_version=1, format="compact")
    assert (old.version_too_old, old.content, old.diff, old.path) == (True, "version 12\n", None, None)


@pytest.mark.parametrize(
    "options",
    [{"version": 1}, {"start_line": 1}, {"max_lines": 2}, {"context": -2}, {"since_version": 3}],
)
def test_compact_refuses_what_the_other_formats_refuse(store: Scratchpad, options: dict[str, int]) -> None:
    two_versions(store, "a\n", "b\n")
    with pytest.raises(InvalidInput):
        store.read_file(A, "f.txt", **{"since_version": 1, **options}, format="compact")


def test_an_unknown_format_is_refused(store: Scratchpad) -> None:
    two_versions(store, "a\n", "b\n")
    with pytest.raises(InvalidInput, match="compact"):
        store.read_file(A, "f.txt", since_version=1, format="patch")  # type: ignore[arg-type]
