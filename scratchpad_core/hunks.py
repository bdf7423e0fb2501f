"""Compact diffs for a reader that already holds the old text: where it changed, and the new lines.

A hunk says "at old line `at`, remove `remove` lines and put `add` in their place". Lines are those of
``text.split("\\n")``, as for chunks, so a final newline is a trailing empty line. `at` is 1-based in
the old text; a pure insertion goes before line `at` (one past the last line: at the end). Hunks come
in increasing `at`, never overlap, and applying them to the old text gives the new text exactly.
"""

from __future__ import annotations

import json
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
    """The hunks that turn `old` into `new` ([] when they are equal).

    Two changes a few short unchanged lines apart (a blank line, a closing bracket) make one hunk when
    resending those lines costs fewer bytes than a second hunk's keys and numbers.
    """
    a, b = old.split("\n"), new.split("\n")
    hunks: list[Hunk] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        hunk = Hunk(i1 + 1, i2 - i1, b[j1:j2])
        if hunks:
            last = hunks[-1]
            start = last.at - 1 + last.remove
            if 3 * (i1 - start) < _frame_bytes(hunk):  # each resent line costs 3 B or more: worth a look
                gap = a[start:i1]
                merged = Hunk(last.at, last.remove + len(gap) + hunk.remove, [*last.add, *gap, *hunk.add])
                if _frame_bytes(merged) + _json_bytes(gap) < _frame_bytes(last) + _frame_bytes(hunk):
                    hunks[-1] = merged
                    continue
        hunks.append(hunk)
    return hunks


def _json_bytes(lines: list[str]) -> int:
    """What the lines cost inside a hunk's add list, as compact JSON: each string and its comma."""
    return sum(len(json.dumps(line, ensure_ascii=False).encode()) + 1 for line in lines)


def _frame_bytes(hunk: Hunk) -> int:
    """What a hunk costs beyond its lines: '{"at":A,"remove":R,"add":[]},'."""
    return len(f'{{"at":{hunk.at},"remove":{hunk.remove},"add":[]}},')


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
