"""Line helpers shared by slices, edits and search. Lines split on '\\n' only."""

from __future__ import annotations

from collections.abc import Sequence

SNIPPET_CONTEXT = 1
SNIPPET_LINE_CHARS = 160
SNIPPET_END_ROWS = 4  # a longer snippet keeps this many rows at each end and says how many it leaves out
MATCH_CHARS = 200  # a longer line in a search result shows this many characters around its match
_LEAD_CHARS = 60  # of which this many before the match, where the line has them


def split_keepends(text: str) -> list[str]:
    """Lines with their '\\n' kept; unlike str.splitlines, no other character ends a line."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def count_lines(text: str) -> int:
    return len(split_keepends(text))


def line_of_offset(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def clip(line: str, limit: int = SNIPPET_LINE_CHARS) -> str:
    line = line.rstrip("\r\n")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def numbered(lines: Sequence[str], first: int, last: int, context: int = SNIPPET_CONTEXT) -> str:
    """Lines first..last (1-based, inclusive) plus `context` on each side, as 'N\\tline' rows.

    Bounded whatever the change: a long run of lines keeps SNIPPET_END_ROWS rows at each end, and one
    '…' row in between says how many lines it leaves out.
    """
    lo = max(1, first - context)
    hi = min(len(lines), max(last, first - 1) + context)
    rows = list(range(lo, hi + 1))
    if len(rows) > 2 * SNIPPET_END_ROWS + 1:
        left_out = len(rows) - 2 * SNIPPET_END_ROWS
        shown = [*rows[:SNIPPET_END_ROWS], 0, *rows[-SNIPPET_END_ROWS:]]
        return "\n".join(f"…\t({left_out:,} more lines)" if n == 0 else f"{n}\t{clip(lines[n - 1])}" for n in shown)
    return "\n".join(f"{n}\t{clip(lines[n - 1])}" for n in rows)


def around(line: str, at: int | None, chars: int = MATCH_CHARS) -> str:
    """A line as a search result shows it: whole up to `chars`, else `chars` characters around offset `at` (None
    or 0: from the start), with '…' where it was cut."""
    if len(line) <= chars:
        return line
    start = max(0, min(at - _LEAD_CHARS, len(line) - chars)) if at else 0
    head = "…" if start else ""
    tail = "…" if start + chars < len(line) else ""
    return head + line[start : start + chars] + tail
