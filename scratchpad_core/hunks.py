"""Compact diffs for a reader that already holds the old text: where it changed, and the new lines.

A hunk says "at old line `at`, remove `remove` lines and put `add` in their place". Lines are those of
``text.split("\\n")``, as for chunks, so a final newline is a trailing empty line. `at` is 1-based in
the old text; a pure insertion goes before line `at` (one past the last line: at the end). Hunks come
in increasing `at`, never overlap, and applying them to the old text gives the new text exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from .diffing import opcodes
from .errors import InvalidInput


@dataclass(frozen=True)
class Hunk:
    """At old line `at` (1-based), remove `remove` lines and insert `add` in their place."""

    at: int
    remove: int
    add: list[str]


def diff_hunks(old: str, new: str) -> list[Hunk]:
    """The hunks that turn `old` into `new` ([] when they are equal)."""
    a, b = old.split("\n"), new.split("\n")
    return [Hunk(i1 + 1, i2 - i1, b[j1:j2]) for tag, i1, i2, j1, j2 in opcodes(a, b) if tag != "equal"]


def apply_hunks(old: str, hunks: Sequence[Hunk | Mapping[str, Any]]) -> str:
    """Apply hunks (or their JSON form) to `old`; refuses hunks out of order or beyond the old text."""
    source = old.split("\n")
    out: list[str] = []
    pos = 0  # lines of the old text consumed so far
    for item in hunks:
        hunk = item if isinstance(item, Hunk) else _hunk_from_json(item)
        start = hunk.at - 1
        if start < pos or start + hunk.remove > len(source):
            raise InvalidInput(
                f"Diff does not apply: a hunk at line {hunk.at} removing {hunk.remove} overlaps the previous one "
                f"or runs past the old text's {len(source)} lines."
            )
        out.extend(source[pos:start])
        out.extend(hunk.add)
        pos = start + hunk.remove
    out.extend(source[pos:])
    return "\n".join(out)


def _hunk_from_json(item: Mapping[str, Any]) -> Hunk:
    at, remove, add = item.get("at"), item.get("remove"), item.get("add")
    if not _count(at) or at < 1 or not _count(remove):
        raise InvalidInput("Diff does not apply: a hunk needs at >= 1 and remove >= 0.")
    if not isinstance(add, list) or not all(isinstance(line, str) for line in add):
        raise InvalidInput("Diff does not apply: a hunk's add must be a list of strings.")
    return Hunk(at, remove, add)


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
