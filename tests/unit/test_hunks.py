"""Compact hunks: exact on any pair of texts, numbered as the spec says, refused when they cannot apply."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given

from scratchpad_core.diffing import opcodes
from scratchpad_core.errors import InvalidInput
from scratchpad_core.hunks import Hunk, apply_hunks, diff_hunks
from tests.unit.test_diffing import text_pairs


@given(text_pairs())
def test_hunks_rebuild_the_new_text_from_the_old(pair: tuple[str, str]) -> None:
    old, new = pair
    hunks = diff_hunks(old, new)
    assert apply_hunks(old, hunks) == new
    as_json = json.loads(json.dumps([dataclasses.asdict(h) for h in hunks]))
    assert apply_hunks(old, as_json) == new
    starts = [h.at for h in hunks]
    assert starts == sorted(starts)
    assert all(h.remove > 0 or h.add for h in hunks)  # every hunk changes something
    assert (hunks == []) == (old == new)


@given(text_pairs())
def test_merged_hunks_cost_no_more_than_separate_ones(pair: tuple[str, str]) -> None:
    old, new = pair
    merged = diff_hunks(old, new)
    a, b = old.split("\n"), new.split("\n")
    separate = [Hunk(i1 + 1, i2 - i1, b[j1:j2]) for tag, i1, i2, j1, j2 in opcodes(a, b) if tag != "equal"]
    assert len(merged) <= len(separate)
    assert size(merged) <= size(separate)


def size(hunks: list[Hunk]) -> int:
    return len(json.dumps([dataclasses.asdict(h) for h in hunks], ensure_ascii=False, separators=(",", ":")).encode())


@given(text_pairs())
def test_hunks_never_repeat_a_removed_line(pair: tuple[str, str]) -> None:
    """The reader holds the old text: a hunk names how many lines go, never which."""
    old, new = pair
    for hunk in diff_hunks(old, new):
        assert set(dataclasses.asdict(hunk)) == {"at", "remove", "add"}
        assert 1 <= hunk.at <= len(old.split("\n")) + 1


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", [Hunk(2, 1, ["B"])]),
        ("a\nb\n", "top\na\nb\n", [Hunk(1, 0, ["top"])]),  # before line 1
        ("a\nb", "a\nb\nc", [Hunk(3, 0, ["c"])]),  # one past the last line: at the end
        ("a\nb\n", "a\nb\nc\n", [Hunk(3, 0, ["c"])]),  # the trailing empty line stays; c goes before it
        ("a\nb", "a\nb\n", [Hunk(3, 0, [""])]),  # a final newline is a trailing empty line
        ("a\nb\n", "a\nb", [Hunk(3, 1, [])]),
        ("a\nb\nc\n", "a\nc\n", [Hunk(2, 1, [])]),
        ("", "x\n", [Hunk(1, 0, ["x"])]),  # "" is one empty line; x goes before it
        ("same\n", "same\n", []),
        ("a\n\nb\n", "A\n\nB\n", [Hunk(1, 3, ["A", "", "B"])]),  # resending "" is cheaper than a second hunk
        (
            "a\n" + "unchanged line\n" * 2 + "b\n",
            "A\n" + "unchanged line\n" * 2 + "B\n",
            [Hunk(1, 1, ["A"]), Hunk(4, 1, ["B"])],
        ),
    ],
)
def test_hunk_numbers_follow_the_old_text(old: str, new: str, expected: list[Hunk]) -> None:
    assert diff_hunks(old, new) == expected
    assert apply_hunks(old, expected) == new


def test_an_insertion_past_the_last_line_goes_at_the_end() -> None:
    assert apply_hunks("a\nb", [Hunk(3, 0, ["c"])]) == "a\nb\nc"


@pytest.mark.parametrize(
    "hunks",
    [
        [{"at": 0, "remove": 0, "add": []}],
        [{"at": 1, "remove": -1, "add": []}],
        [{"at": 1, "remove": 0, "add": "x"}],
        [{"at": 1, "remove": 0, "add": [1]}],
        [{"at": True, "remove": 0, "add": []}],
        [{"at": 4, "remove": 1, "add": []}],  # past the end of a 3-line text
        [{"at": 2, "remove": 1, "add": []}, {"at": 2, "remove": 1, "add": []}],  # overlapping
        [{"at": 3, "remove": 0, "add": []}, {"at": 1, "remove": 0, "add": ["x"]}],  # out of order
        [{"remove": 0, "add": []}],
    ],
)
def test_hunks_that_cannot_apply_are_refused(hunks: list[dict[str, object]]) -> None:
    with pytest.raises(InvalidInput, match="Diff does not apply"):
        apply_hunks("a\nb\n", hunks)
