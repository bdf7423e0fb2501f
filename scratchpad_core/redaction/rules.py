"""Redaction: the one home of its rules. A redacted version (or log entry) keeps its number, time and actor; its
content becomes a marker saying that it was redacted, when and by whom, or, for a text removed, each occurrence
of the text becomes that marker, unless that would pass the size limit: then the whole version (or entry) becomes
one marker. A text to remove has at least MIN_SECRET_CHARS characters. Which kept request_ids a redaction forgets
(could_confirm): those whose stored reply holds the text, and those whose arguments, kept only as a hash, could
have carried it."""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidInput
from ..limits import utf8_len
from ..model import StoredRequest

MIN_SECRET_CHARS = 4  # a shorter text is in most of a store: removing it would rewrite nearly every version
MAX_SECRET_CHARS = 10_000
_MARKER = re.compile(r"\[redacted \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by ([^\]\n]{1,256})\]")

# The writing calls whose arguments may carry a file's text, or a log entry's (the others a request_id is kept
# for, restore_version, delete_file and delete_log, carry none).
FILE_TEXT_CALLS = frozenset({"write_file", "edit_file", "insert_lines"})
LOG_TEXT_CALLS = frozenset({"append_log"})


def marker(now: int, by: str) -> str:
    """The text that stands where content was removed (now: ms since the epoch)."""
    when = datetime.datetime.fromtimestamp(now / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"[redacted {when} by {by}]"


def whole(mark: str) -> str:
    """A version's whole content, redacted: the marker as its one line."""
    return mark + "\n"


def check_secret(text: object) -> str:
    """The text to remove: MIN_SECRET_CHARS to MAX_SECRET_CHARS characters, at least MIN_SECRET_CHARS of them
    not whitespace (a run of spaces is in most of a store, too)."""
    solid = len("".join(text.split())) if isinstance(text, str) else 0
    if not isinstance(text, str) or not MIN_SECRET_CHARS <= len(text) <= MAX_SECRET_CHARS or solid < MIN_SECRET_CHARS:
        size = f"{len(text):,} character{'s' if len(text) != 1 else ''}" if isinstance(text, str) else "not a text"
        if isinstance(text, str) and solid < MIN_SECRET_CHARS <= len(text):
            size += f", {solid} not whitespace"
        raise InvalidInput(
            f"Invalid text to redact ({size}): give the exact text to remove, {MIN_SECRET_CHARS} to "
            f"{MAX_SECRET_CHARS:,} characters, at least {MIN_SECRET_CHARS} of them not whitespace (a shorter one is "
            "in most of a store and would rewrite it). Nothing was changed."
        )
    return text


@dataclass(frozen=True)
class Shape:
    """How a redaction writes into a version or a log entry: the marker, what the whole content becomes, and the
    size it may not pass (the file size limit, or the log entry's)."""

    mark: str
    whole: str
    limit: int


@dataclass(frozen=True)
class Removal:
    """What a version or log entry holds once redacted; occurrences of the text (None: the whole content was
    asked for); whole: its content became one marker (asked for, or the size rule)."""

    content: str
    occurrences: int | None
    whole: bool


def remove_text(content: str, secret: str, shape: Shape) -> Removal | None:
    """Every occurrence of the secret replaced by the marker, or, when that passes the size limit, the whole
    content by one marker; None when the content holds no occurrence. An occurrence inside the fixed words of a
    marker already there ("[redacted", its time, "by", "]") is no content and stays (`--text redacted` nests no
    marker); one that reaches into a marker's `by` text, which anyone can write, goes."""
    kept = _marker_words(content)
    parts, found, at = [], 0, 0
    start = content.find(secret)
    while start >= 0:
        end = start + len(secret)
        if not any(low <= start and end <= high for low, high in kept):
            parts += [content[at:start], shape.mark]
            found, at = found + 1, end
        start = content.find(secret, end if at == end else start + 1)
    if not found:
        return None
    redacted = "".join(parts) + content[at:]
    if utf8_len(redacted) > shape.limit:
        return Removal(shape.whole, found, True)
    return Removal(redacted, found, False)


def _marker_words(content: str) -> list[tuple[int, int]]:
    """The spans of the markers' fixed words in `content`: "[redacted <time> by " and the closing "]"."""
    if "[redacted " not in content:
        return []
    spans = []
    for match in _MARKER.finditer(content):
        spans += [(match.start(), match.start(1)), (match.end() - 1, match.end())]
    return spans


def remove_all(shape: Shape) -> Removal:
    return Removal(shape.whole, None, True)


def stored_forms(text: str) -> list[str]:
    """The forms a text takes inside a stored JSON reply (as it is, and escaped either way)."""
    return list(dict.fromkeys([text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]]))


def could_confirm(request: StoredRequest, *, files: bool, logs: bool, log: str | None, forms: Sequence[str]) -> bool:
    """Whether a kept request_id could confirm a guess of what a redaction removed from the agent's files (files)
    or logs (logs; only the one at `log`, unless None): a repeat gives its stored reply back, and the same id with
    other arguments is refused, so replayed-or-refused tells whether guessed arguments were the first call's.

    Only a hash of the arguments is kept, so any call that could have carried the text counts: every call that
    writes a file's text (a rename may have moved it from any path to the one redacted), and every append to a
    redacted log (a log never moves: its appends name its path in their reply); and any reply holding the text.
    """
    if any(form in request.result for form in forms):
        return True
    if files and request.operation in FILE_TEXT_CALLS:
        return True
    if logs and request.operation in LOG_TEXT_CALLS:
        return log is None or _path_of(request) in (log, None)
    return False


def _path_of(request: StoredRequest) -> str | None:
    """The path a stored reply names (None: it names none, or cannot be read: counted as the redacted one)."""
    try:
        reply = json.loads(request.result)
    except ValueError:
        return None
    path = reply.get("path") if isinstance(reply, dict) else None
    return path if isinstance(path, str) else None


def holds_marker(content: str) -> bool:
    """Whether a text holds a redaction's marker (a diff from it says that the version was redacted)."""
    return "[redacted " in content and _MARKER.search(content) is not None
