"""Numbering: versions of a file and entries of a log count 1, 2, 3, ... and a number never names two things.

A path's next number is its last one plus one, and a deleted path remembers its last number: a file
written (or a log appended to) there again continues from it, so a reader's since_version or
since_entry cursor, or a writer's expected_version, can never match new content by accident. Each
agent's most recently deleted file paths, and as many log paths, are remembered (Limits.remembered_deletions,
REMEMBERED_DELETIONS by default); older ones are forgotten (quotas count live files only, so remembering
every path ever deleted would let an agent grow the store without bound). Storage adapters keep the
numbers however they like (the SQL adapter stores a deleted path's last number negated); `next_number`
is the rule they implement.
"""

from __future__ import annotations

from .errors import InvalidInput

MAX_SEQUENCE = 2**31 - 1  # versions and entry ids are 32-bit integers in every backend's schema
REMEMBERED_DELETIONS = 1000  # per agent, for file paths and for log paths


def next_number(last: int) -> int:
    """The number after `last`, the path's current or remembered last number (0 for a path never used)."""
    return last + 1


def check_expected(expected_version: int | None) -> None:
    if expected_version is not None and not 0 <= expected_version <= MAX_SEQUENCE:
        raise InvalidInput(
            f"Invalid expected_version {expected_version}: use the version you last read, from 1 to {MAX_SEQUENCE:,} "
            "(0 means the file must not exist)."
        )
