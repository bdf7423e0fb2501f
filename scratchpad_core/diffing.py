"""Line diffs: compact chunks and unified text, and applying both back.

Chunks work on ``text.split("\\n")``, so a final newline shows up as a trailing
empty line and applying the chunks to the old text gives the new text exactly.
Unified diffs work on lines that keep their endings and mark a missing final
newline the standard way (``\\ No newline at end of file``), as `patch` expects.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .errors import InvalidInput
from .text import split_keepends


@dataclass(frozen=True)
class Chunk:
    """One step of a diff: keep (equal, skip), drop (remove) or insert (add) lines of the old text."""

    op: Literal["equal", "remove", "add", "skip"]
    lines: list[str] | None = None
    count: int | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON form: {"op", "lines"} or {"op": "skip", "count"}."""
        return {"op": self.op, "count": self.count} if self.op == "skip" else {"op": self.op, "lines": self.lines}

    @property
    def size(self) -> int:
        """How many lines of the old text this chunk covers."""
        if self.op == "add":
            return 0
        return self.count if self.op == "skip" and self.count is not None else len(self.lines or [])


Opcode = tuple[str, int, int, int, int]

ALL_CONTEXT = -1
DEFAULT_CONTEXT = 3  # unchanged lines kept around each change unless a reader asks otherwise
_NO_EOL = "\\ No newline at end of file\n"
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_AUTOJUNK_ABOVE = 2000
MAX_MATCHING_WORK = 2_000_000  # about a second of difflib; beyond it a diff replaces the changed middle whole


def opcodes(a: Sequence[str], b: Sequence[str]) -> list[Opcode]:
    """Opcodes like difflib's, fast for the usual case of a small change in a long text."""
    head = 0
    limit = min(len(a), len(b))
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    autojunk = len(mid_b) > _AUTOJUNK_ABOVE
    if _matching_work(mid_a, mid_b, autojunk) > MAX_MATCHING_WORK:
        # Thousands of repeated lines: matching them would take minutes. Replacing the changed middle
        # as a whole is still an exact diff, only a larger one.
        if mid_a or mid_b:
            tag = "replace" if mid_a and mid_b else ("delete" if mid_a else "insert")
            ops.append((tag, head, len(a) - tail, head, len(b) - tail))
    else:
        matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=autojunk)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, i1 + head, i2 + head, j1 + head, j2 + head))
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _matching_work(a: Sequence[str], b: Sequence[str], autojunk: bool) -> int:
    """How many (line of a, equal line of b) pairs difflib's matching walks: the cost of one pass over a.

    Lines that difflib's autojunk ignores (over 1% of b, in a long b) are left out, as difflib leaves them.
    """
    counts = Counter(b)
    if autojunk and len(b) >= 200:
        popular = len(b) // 100 + 1
        counts = Counter({line: n for line, n in counts.items() if n <= popular})
    return sum(counts[line] for line in a if line in counts)


def check_context(context: int) -> int:
    """The number of unchanged lines kept around each change: >= 0, or ALL_CONTEXT (-1) for all of them."""
    if context < ALL_CONTEXT:
        raise InvalidInput("Invalid context: use a number of lines >= 0, or -1 to keep every unchanged line.")
    return context


def diff_chunks(old: str, new: str, context: int = DEFAULT_CONTEXT) -> list[Chunk]:
    """Chunks that turn `old` into `new`; unchanged runs longer than the context become skips."""
    check_context(context)
    a, b = old.split("\n"), new.split("\n")
    ops = opcodes(a, b)
    chunks: list[Chunk] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            chunks.extend(_equal_run(a[i1:i2], context, first=index == 0, last=index == len(ops) - 1))
            continue
        if tag in ("delete", "replace"):
            chunks.append(Chunk("remove", a[i1:i2]))
        if tag in ("insert", "replace"):
            chunks.append(Chunk("add", b[j1:j2]))
    return chunks


def _equal_run(lines: list[str], context: int, *, first: bool, last: bool) -> Iterator[Chunk]:
    if context == ALL_CONTEXT:
        yield Chunk("equal", lines)
        return
    keep_head = 0 if first else context
    keep_tail = 0 if last else context
    if keep_head + keep_tail >= len(lines):
        yield Chunk("equal", lines)
        return
    if keep_head:
        yield Chunk("equal", lines[:keep_head])
    yield Chunk("skip", count=len(lines) - keep_head - keep_tail)
    if keep_tail:
        yield Chunk("equal", lines[len(lines) - keep_tail :])


def apply_chunks(old: str, chunks: Sequence[Chunk | Mapping[str, Any]]) -> str:
    """Apply chunks (or their JSON form) to `old`: equal and skip keep lines, remove drops them, add inserts."""
    source = old.split("\n")
    out: list[str] = []
    pos = 0
    for item in chunks:
        chunk = item if isinstance(item, Chunk) else _chunk_from_json(item)
        if chunk.op in ("equal", "remove") and source[pos : pos + chunk.size] != list(chunk.lines or []):
            raise InvalidInput(f"Diff does not apply: the {chunk.op} lines at line {pos + 1} differ from the old text.")
        if chunk.op == "add":
            out.extend(chunk.lines or [])
        elif chunk.op != "remove":
            out.extend(source[pos : pos + chunk.size])
        pos += chunk.size
    if pos != len(source):
        raise InvalidInput(f"Diff does not apply: it covers {pos} of the old text's {len(source)} lines.")
    return "\n".join(out)


def _chunk_from_json(item: Mapping[str, Any]) -> Chunk:
    op, lines, count = item.get("op"), item.get("lines"), item.get("count")
    if op == "skip":
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InvalidInput("Diff does not apply: a skip chunk needs a count >= 0.")
        return Chunk("skip", count=count)
    if op not in ("equal", "remove", "add"):
        raise InvalidInput(f"Diff does not apply: unknown op {op!r}; use equal, remove, add or skip.")
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        raise InvalidInput(f"Diff does not apply: a {op} chunk needs lines, a list of strings.")
    return Chunk(op, lines)


def unified_diff(
    old: str, new: str, context: int = DEFAULT_CONTEXT, *, old_name: str = "a", new_name: str = "b"
) -> str:
    """A standard unified diff ('' when the texts are equal) that `patch` applies exactly."""
    a, b = split_keepends(old), split_keepends(new)
    if a == b:
        return ""
    width = max(len(a), len(b)) if context == ALL_CONTEXT else context
    out = [f"--- {old_name}\n", f"+++ {new_name}\n"]
    for group in _hunks(opcodes(a, b), width):
        (_, i1, _, j1, _), (_, _, i2, _, j2) = group[0], group[-1]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_marked(" ", a[a1:a2]))
                continue
            out.extend(_marked("-", a[a1:a2]))
            out.extend(_marked("+", b[b1:b2]))
    return "".join(out)


def _hunks(ops: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """Group opcodes into hunks with `context` equal lines around each change."""
    ops = [op for op in ops if op[0] != "equal" or op[2] > op[1]]
    if ops and ops[0][0] == "equal":
        _, i1, i2, j1, j2 = ops[0]
        ops[0] = ("equal", max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    if ops and ops[-1][0] == "equal":
        _, i1, i2, j1, j2 = ops[-1]
        ops[-1] = ("equal", i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        start_a, start_b = i1, j1
        if tag == "equal" and i2 - i1 > 2 * context and group:
            group.append((tag, i1, i1 + context, j1, j1 + context))
            yield group
            group = []
            start_a, start_b = i2 - context, j2 - context
        group.append((tag, start_a, i2, start_b, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def _marked(mark: str, lines: Sequence[str]) -> Iterator[str]:
    for line in lines:
        if line.endswith("\n"):
            yield mark + line
        else:
            yield mark + line + "\n" + _NO_EOL


def apply_unified(old: str, diff: str) -> str:
    """Apply a unified diff made by `unified_diff` to `old`."""
    source = split_keepends(old)
    lines = split_keepends(diff)
    out: list[str] = []
    pos = index = 0
    while index < len(lines):
        match = _HUNK.match(lines[index])
        index += 1
        if not match:
            continue
        start = int(match.group(1)) - (0 if match.group(2) == "0" else 1)
        out.extend(source[pos:start])
        pos = start
        while index < len(lines) and lines[index][:1] in (" ", "-", "+"):
            mark, body = lines[index][0], lines[index][1:]
            index += 1
            if index < len(lines) and lines[index] == _NO_EOL:
                body = body[:-1]
                index += 1
            if mark != "+":
                if pos >= len(source) or source[pos] != body:
                    raise InvalidInput(f"Diff does not apply at old line {pos + 1}.")
                pos += 1
            if mark != "-":
                out.append(body)
    out.extend(source[pos:])
    return "".join(out)
