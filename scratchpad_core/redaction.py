"""Redaction: the one home of what replaces removed content. A redacted version (or log entry) keeps its number,
time and actor; its content becomes a marker saying that it was redacted, when and by whom, or, for a text
removed from a file, each occurrence of the text becomes that marker."""

from __future__ import annotations

import datetime
import json
import re

from .errors import InvalidInput

MAX_SECRET_CHARS = 10_000
_MARKER = re.compile(r"\[redacted \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ by [^\]\n]{1,256}\]")


def marker(now: int, by: str) -> str:
    """The text that stands where content was removed (now: ms since the epoch)."""
    when = datetime.datetime.fromtimestamp(now / 1000, datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"[redacted {when} by {by}]"


def whole(mark: str) -> str:
    """A version's whole content, redacted: the marker as its one line."""
    return mark + "\n"


def check_secret(text: object) -> str:
    if not isinstance(text, str) or not text or len(text) > MAX_SECRET_CHARS:
        raise InvalidInput(
            f"Invalid text to redact: give the exact text to remove, 1 to {MAX_SECRET_CHARS:,} characters. "
            "Nothing was changed."
        )
    return text


def scrub(content: str, secret: str, mark: str) -> str | None:
    """The content with every occurrence of the secret replaced by the marker; None when it holds none."""
    return content.replace(secret, mark) if secret in content else None


def stored_forms(text: str) -> list[str]:
    """The forms a text takes inside a stored JSON reply (as it is, and escaped either way)."""
    return list(dict.fromkeys([text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]]))


def holds_marker(content: str) -> bool:
    """Whether a text holds a redaction's marker (a diff from it says that the version was redacted)."""
    return "[redacted " in content and _MARKER.search(content) is not None
