"""What a server may configure: per-call size limits, versions kept and per-agent quotas (UTF-8 bytes).

The fixed bounds are in `bounds`; how quotas are checked, in `quotas`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidInput, LimitExceeded
from .numbering import REMEMBERED_DELETIONS

KIB = 1024
MIB = 1024 * KIB

CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = MIB
    max_log_entry_bytes: int = 64 * KIB
    max_versions: int = 10
    quota_files: int = 1000
    quota_log_entries: int = 100_000
    quota_bytes: int = 100 * MIB
    remembered_deletions: int = REMEMBERED_DELETIONS  # deleted file (and log) paths that keep their numbers
    request_id_retention: int = 24 * 3600  # seconds a request_id is remembered (retries.py)
    request_ids_kept: int = 1000  # request_ids remembered per agent, the newest

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"Invalid limit {name}={value!r}: it must be a positive integer.")


def byte_size(size: int) -> str:
    """A size as a person writes it: '1 MiB', '64 KiB', '1,500 bytes' (UTF-8 bytes, as every limit counts)."""
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit:,} {name}"
    return f"{size:,} bytes"


def utf8_len(text: str) -> int:
    """Size in UTF-8 bytes; never fails (lone surrogates count as 3 bytes; storable_size refuses them)."""
    return len(text.encode("utf-8", "surrogatepass"))


def payload_bytes(*texts: str) -> int:
    """The UTF-8 bytes of the texts a request carries: bytes_in in the call log, and what an edit's bytes_saved
    is counted against."""
    return sum(utf8_len(text) for text in texts)


def storable_size(text: str, what: str) -> int:
    """UTF-8 size of text that every backend can store: valid Unicode without NUL characters."""
    if "\x00" in text:
        raise InvalidInput(f"Invalid {what}: NUL characters (\\x00) cannot be stored; remove them or encode as base64.")
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"Invalid {what}: it is not valid Unicode (a lone surrogate); send UTF-8 text.") from None


def check_content_size(content: str, limits: Limits) -> int:
    return _within(
        content,
        "content",
        limits.max_file_bytes,
        "Content",
        "file",
        "Nothing was changed; split the content into several files.",
    )


def check_entry_size(entry: str, limits: Limits) -> int:
    return _within(entry, "entry", limits.max_log_entry_bytes, "Log entry", "entry", "Split it into several entries.")


def _within(text: str, what: str, limit: int, title: str, per: str, advice: str) -> int:
    """The text's storable size, or a refusal naming the limit it passes and what to do."""
    size = storable_size(text, what)
    if size > limit:
        raise LimitExceeded(
            f"{title} too large: {size:,} bytes (UTF-8) exceeds the {limit:,}-byte limit per {per}. {advice}"
        )
    return size


def estimated_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)
