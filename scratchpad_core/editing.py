"""In-place edits: exact replacement and line insertion, with hints when they cannot apply."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .errors import EditMismatch, InvalidInput
from .text import clip, line_of_offset, split_keepends

MAX_LISTED = 20
_CLOSE_SCAN_LINES = 20_000


@dataclass(frozen=True)
class Edit:
    content: str
    first_line: int
    last_line: int
    replacements: int = 1


def _newline_of(content: str) -> str | None:
    """The file's line ending, judged by its first line: '\\r\\n', '\\n', or None when it has no line break yet."""
    end = content.find("\n")
    if end < 0:
        return None
    return "\r\n" if end > 0 and content[end - 1] == "\r" else "\n"


def _with_newline(text: str, newline: str | None) -> str:
    """Text given the file's line endings, so that an edit never leaves a file with mixed ones."""
    if newline == "\r\n":
        return re.sub(r"(?<!\r)\n", "\r\n", text)
    if newline == "\n":
        return text.replace("\r\n", "\n")
    return text


def replace(content: str, old: str, new: str, replace_all: bool = False) -> Edit:
    if old == "":
        raise InvalidInput.said(
            "Invalid {argument}: it must not be empty. To add text, {do.insert_lines}.", argument="old_str"
        )
    new = _with_newline(new, _newline_of(content) or _newline_of(new))
    if old == new:
        raise InvalidInput.said(
            "Invalid edit: {arg.old_str} and {arg.new_str} are identical, so there is nothing to change."
        )
    count = content.count(old)
    if count == 0:
        hint, facts = _hint(content, old)
        raise EditMismatch.said("{arg.old_str} was not found in the file. " + hint, argument="old_str", **facts)
    first = content.find(old)
    if count > 1 and not replace_all:
        lines = list(dict.fromkeys(line_of_offset(content, m.start()) for m in re.finditer(re.escape(old), content)))
        listed = ", ".join(map(str, lines[:MAX_LISTED])) + (", ..." if len(lines) > MAX_LISTED else "")
        where = f"line {listed}" if len(lines) == 1 else f"lines {listed}"
        raise EditMismatch.said(
            "{arg.old_str} occurs {count:,} times ({where}). Include more surrounding text to make it unique, "
            "or {do.replace_every}.",
            argument="old_str", count=count, where=where,
        )  # fmt: skip
    updated = content.replace(old, new) if replace_all else content.replace(old, new, 1)
    start = line_of_offset(updated, first)
    end = line_of_offset(updated, first + len(new) - 1) if new else start - 1
    return Edit(updated, start, end, count if replace_all else 1)


def insert(content: str, line: int, text: str) -> Edit:
    """Insert `text` as whole lines after line `line` (0: at the top, -1: at the end)."""
    if text == "":
        raise InvalidInput("Invalid text: it must not be empty.")
    lines = split_keepends(content)
    if line == -1:
        line = len(lines)
    if not 0 <= line <= len(lines):
        if not lines:
            raise InvalidInput(f"Invalid line {line}: the file is empty; use 0 or -1 to insert into it.")
        count = "1 line" if len(lines) == 1 else f"{len(lines):,} lines"
        raise InvalidInput(
            f"Invalid line {line}: the file has {count}; use 0 for the top, "
            f"1..{len(lines)} to insert after that line, or -1 for the end."
        )
    newline = _newline_of(content) or _newline_of(text) or "\n"  # the file's, or for a file without one the text's
    text = _with_newline(text, newline)
    added = split_keepends(text)
    if not added[-1].endswith("\n"):
        added[-1] += newline
    if line == len(lines) and lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    updated = "".join(lines[:line] + added + lines[line:])
    return Edit(updated, line + 1, line + len(added))


def _hint(content: str, old: str) -> tuple[str, dict[str, object]]:
    """Why an exact match failed, when a near match tells: a refusals template and its facts."""
    if "\r\n" in content and "\r\n" not in old and old.replace("\n", "\r\n") in content:
        return "Line endings differ: the file uses CRLF (\\r\\n) line endings; send {arg.old_str} with \\r\\n.", {}
    if "\r\n" in old and old.replace("\r\n", "\n") in content:
        return "Line endings differ: the file uses LF (\\n) line endings; send {arg.old_str} with \\n.", {}
    lowered = content.lower().find(old.lower())
    if lowered >= 0:
        return "Letter case differs near line {line}; {arg.old_str} must match exactly.", {
            "line": line_of_offset(content, lowered)
        }
    squashed = _squash_whitespace(old)
    lines = split_keepends(content)[:_CLOSE_SCAN_LINES]
    first = next((part for part in old.split("\n") if part.strip()), old)
    for number, line in enumerate(lines, 1):
        if _squash_whitespace(line) == _squash_whitespace(first) and squashed:
            return "Whitespace or indentation differs near line {line}: {text!r}. Copy the text exactly.", {
                "line": number,
                "text": clip(line),
            }
    stripped = [line.rstrip("\r\n") for line in lines]
    close = difflib.get_close_matches(first.strip(), [s.strip() for s in stripped], n=1, cutoff=0.6)
    if close:
        number = next(i for i, s in enumerate(stripped, 1) if s.strip() == close[0])
        return "The closest line is {line}: {text!r}. Read that part of the file and retry.", {
            "line": number,
            "text": clip(stripped[number - 1]),
        }
    return "Read the file ({do.read_lines}) and copy {arg.old_str} exactly.", {}


def _squash_whitespace(text: str) -> str:
    return " ".join(text.split())
