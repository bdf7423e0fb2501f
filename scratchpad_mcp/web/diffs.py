"""A diff between two versions as rows for a page: unified (one column) or side by side (two).

The line matching is the core's (diffing.opcodes); unchanged runs longer than twice the context fold into one
"N unchanged lines" row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from markupsafe import Markup

from scratchpad_core.diffing import opcodes
from scratchpad_core.text import split_keepends

from .highlight import shown_line

CONTEXT = 3
Kind = Literal["equal", "remove", "add", "change", "fold"]


@dataclass(frozen=True)
class Side:
    number: int
    text: Markup


@dataclass(frozen=True)
class Row:
    """One row: in the unified view one side is set (or both, for an unchanged line); folded rows count lines."""

    kind: Kind
    old: Side | None = None
    new: Side | None = None
    folded: int = 0


@dataclass(frozen=True)
class DiffView:
    unified: list[Row]
    split: list[Row]
    added: int
    removed: int

    @property
    def same(self) -> bool:
        return not self.added and not self.removed


def diff_view(old_text: str, new_text: str, context: int = CONTEXT) -> DiffView:
    old, new = split_keepends(old_text), split_keepends(new_text)
    old_shown, new_shown = _Shown(old), _Shown(new)
    unified: list[Row] = []
    split: list[Row] = []
    added = removed = 0
    ops = opcodes(old, new)
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            keep_head = 0 if index == 0 else context
            keep_tail = 0 if index == len(ops) - 1 else context
            rows = _equal(old_shown, new_shown, i1, i2, j1, keep_head, keep_tail)
            unified += rows
            split += rows
            continue
        olds = [Side(n + 1, old_shown[n]) for n in range(i1, i2)]
        news = [Side(n + 1, new_shown[n]) for n in range(j1, j2)]
        removed += len(olds)
        added += len(news)
        unified += [Row("remove", old=s) for s in olds] + [Row("add", new=s) for s in news]
        for k in range(max(len(olds), len(news))):
            left = olds[k] if k < len(olds) else None
            right = news[k] if k < len(news) else None
            kind: Kind = "change" if left and right else ("remove" if right is None else "add")
            split.append(Row(kind, old=left, new=right))
    return DiffView(unified, split, added, removed)


class _Shown:
    """Lines escaped for the page when a row shows them (a long unchanged text is mostly folded away)."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines

    def __getitem__(self, index: int) -> Markup:
        return shown_line(self._lines[index])


def _equal(old: _Shown, new: _Shown, i1: int, i2: int, j1: int, keep_head: int, keep_tail: int) -> list[Row]:
    def row(i: int) -> Row:
        j = j1 + (i - i1)
        return Row("equal", old=Side(i + 1, old[i]), new=Side(j + 1, new[j]))

    length = i2 - i1
    if length <= keep_head + keep_tail + 1:
        return [row(i) for i in range(i1, i2)]
    head = [row(i) for i in range(i1, i1 + keep_head)]
    tail = [row(i) for i in range(i2 - keep_tail, i2)]
    return [*head, Row("fold", folded=length - keep_head - keep_tail), *tail]
