"""What the word-search index holds, and how a change of content changes it (every backend follows these rules).

A file is indexed line by line, a log entry by entry: each is a document (a long one is cut into pieces of at
most PIECE_CHARS, each its own document) whose terms are `words.Analyzer.terms` of its text. An index row keeps
its text and terms. A file's rows are listed in order in its slots: one a row, the row id of a line's first
piece, minus the id of each further piece, and 0 for an empty line (which has no row); so a line's number is
its place among the slots that are not further pieces, and nothing is renumbered when lines come and go.

An edit re-indexes what changed: `change` finds the lines between the old and new content's common beginning
and end (by comparing slices, not line by line), and only those lines' rows are replaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from .words import Analyzer

PIECE_CHARS = 2000  # a longer line (or entry) is indexed as several documents of at most this many characters
_STEP = 4096  # characters compared at once while looking for the first (or last) difference


@dataclass(frozen=True)
class IndexRow:
    """One document: a line (or entry), or a further piece of one when `continued`."""

    text: str
    terms: tuple[str, ...]
    continued: bool = False


def split_text(text: str) -> list[str]:
    """A text's lines as search shows them: split on '\\n' (no empty line after a final one), '\\r' dropped."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def pieces(text: str) -> list[str]:
    """The text cut into pieces of at most PIECE_CHARS, each ending after a non-word character where one is
    near the limit (so that a word is rarely cut in two)."""
    if len(text) <= PIECE_CHARS:
        return [text]
    out = []
    start = 0
    while len(text) - start > PIECE_CHARS:
        stop = start + PIECE_CHARS
        cut = max(text.rfind(" ", start + PIECE_CHARS // 2, stop), text.rfind("\t", start + PIECE_CHARS // 2, stop))
        stop = cut + 1 if cut > 0 else stop
        out.append(text[start:stop])
        start = stop
    out.append(text[start:])
    return out


def rows_of(analyzer: Analyzer, text: str) -> list[IndexRow]:
    """The rows of one line or entry ([] for an empty line)."""
    if not text:
        return []
    return [
        IndexRow(piece, tuple(analyzer.terms(piece)), continued=number > 0) for number, piece in enumerate(pieces(text))
    ]


def rows_of_lines(analyzer: Analyzer, lines: Iterable[str]) -> list[IndexRow | None]:
    """A row list for the slots of these lines: None for an empty line."""
    out: list[IndexRow | None] = []
    for line in lines:
        rows = rows_of(analyzer, line)
        if rows:
            out.extend(rows)
        else:
            out.append(None)
    return out


@dataclass(frozen=True)
class Change:
    """Lines first..old_stop (0-based, stop excluded) of the old text, `old`, become `lines` of the new one."""

    first: int
    old_stop: int
    lines: list[str]
    old: list[str] = field(default_factory=list)


def change(old: str, new: str) -> Change:
    """The lines that differ between two texts: whole lines after their common beginning and before their common
    end, found with slice comparisons (no Python loop over the lines)."""
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    start = old.rfind("\n", 0, prefix) + 1  # the first changed line starts here, in both texts
    first = old.count("\n", 0, start)
    old_end, new_end = len(old) - suffix, len(new) - suffix
    if not ((old_end == 0 or old[old_end - 1] == "\n") and (new_end == 0 or new[new_end - 1] == "\n")):
        cut = old.find("\n", old_end)  # the common end's lines start after its first line break
        if cut < 0:
            old_end, new_end = len(old), len(new)
        else:
            old_end, new_end = cut + 1, new_end + (cut + 1 - old_end)
    old_end, new_end = max(old_end, start), max(new_end, start)
    old_lines = split_text(old[start:old_end]) if old_end < len(old) else split_text(old[start:])
    return Change(first, first + len(old_lines), split_text(new[start:new_end]), old_lines)


def _common_prefix(a: str, b: str) -> int:
    most = min(len(a), len(b))
    at = 0
    while at + _STEP <= most and a[at : at + _STEP] == b[at : at + _STEP]:
        at += _STEP
    lo, hi = at, min(at + _STEP, most)  # the first difference is in a[lo:hi], or there is none
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[at:mid] == b[at:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, most: int) -> int:
    """The length of the common end of a and b, at most `most`."""
    at = 0
    while at + _STEP <= most and a[len(a) - at - _STEP : len(a) - at] == b[len(b) - at - _STEP : len(b) - at]:
        at += _STEP
    lo, hi = at, min(at + _STEP, most)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid : len(a) - at] == b[len(b) - mid : len(b) - at]:
            lo = mid
        else:
            hi = mid - 1
    return lo


Part = int | IndexRow | None  # in a new slot list: a slot kept as it was, a new row, or an empty line (no row)


def relayout(analyzer: Analyzer, old: str, slots: Sequence[int], new: str) -> tuple[int, int, list[Part]] | None:
    """How the slots of `old` (the text the index holds, as `slots` list it) become those of `new`: slots
    start..stop are replaced by the parts. A changed line whose text an old line of the changed part had keeps
    that line's rows (each old line once), so an edit re-indexes only the lines it made, wherever they are.
    None when the slots do not list old's lines (a damaged record: index the file whole)."""
    starts = line_starts(slots)
    if len(starts) - 1 != old.count("\n") + (not old.endswith("\n") if old else 0):  # split_text's lines, counted
        return None
    edit = change(old, new)
    kept: dict[str, list[Sequence[int]]] = {}
    for at, text in enumerate(edit.old, edit.first):
        kept.setdefault(text, []).append(slots[starts[at] : starts[at + 1]])
    parts: list[Part] = []
    for line in edit.lines:
        same = kept.get(line)
        if same:
            parts.extend(same.pop())
        else:
            parts.extend(rows_of(analyzer, line) or [None])
    return starts[edit.first], starts[edit.old_stop], parts


def text_of(slots: Sequence[int], texts: Mapping[int, str]) -> str:
    """The text whose lines a record's slots list, from its rows' texts (each line's pieces joined)."""
    lines: list[str] = []
    for slot in slots:
        if slot < 0 and lines:
            lines[-1] += texts.get(-slot, "")
        else:
            lines.append(texts.get(abs(slot), "") if slot else "")
    return "".join(line + "\n" for line in lines)


def _slot_range(slots: Sequence[int], first: int, stop: int) -> tuple[int, int]:
    """The slots of lines first..stop (0-based, stop excluded)."""
    if not slots or min(slots) >= 0:  # no further pieces: a slot a line
        return first, stop
    return _slot_of(slots, first), _slot_of(slots, stop)


def _slot_of(slots: Sequence[int], line: int) -> int:
    """The slot where line `line` (0-based) starts; len(slots) past the last."""
    seen = -1
    for at, slot in enumerate(slots):
        if slot >= 0:
            seen += 1
            if seen == line:
                return at
    return len(slots)


def _line_numbers(slots: Sequence[int]) -> dict[int, int]:
    """Row id -> the 1-based number of its line, for every row of a file."""
    numbers = {}
    line = 0
    for slot in slots:
        if slot >= 0:
            line += 1
        if slot:
            numbers[abs(slot)] = line
    return numbers


Document = tuple[int, Collection[str]]  # a document's length (its terms, repeats counted) and its terms


def document(terms: Sequence[str]) -> Document:
    return len(terms), terms


@dataclass
class Statistics:
    """An agent's index in numbers, kept with the index: its documents (rows with a term), their terms in all,
    and in how many documents each common word is (COMMON_WORDS; other terms' counts come from the index)."""

    documents: int = 0
    length: int = 0
    common: Counter[str] = field(default_factory=Counter)

    def change(self, common: frozenset[str], added: Iterable[Document], removed: Iterable[Document]) -> None:
        """Count documents (length, terms) in or out."""
        for sign, group in ((1, added), (-1, removed)):
            for length, terms in group:
                if not length:
                    continue
                self.documents += sign
                self.length += sign * length
                for term in common.intersection(terms):
                    self.common[term] += sign
        self.common = +self.common  # no zero counts kept

    def changed(self, common: frozenset[str], added: Iterable[Document], removed: Iterable[Document]) -> Statistics:
        new = Statistics(self.documents, self.length, Counter(self.common))
        new.change(common, added, removed)
        return new


MAX_TF = 255  # how often a term counts in one document at most (PostgreSQL keeps 256 positions of a lexeme)


def line_starts(slots: Sequence[int]) -> list[int]:
    """The slot where each line starts (0-based line -> slot), plus len(slots) at the end."""
    if not slots or min(slots) >= 0:
        return [*range(len(slots)), len(slots)]
    return [at for at, slot in enumerate(slots) if slot >= 0] + [len(slots)]
