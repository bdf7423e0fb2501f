"""Numbering: versions of a file and entries of a log count 1, 2, 3, ... and a number never names two things.

A path's next number is its last one plus one, and a deleted path remembers its last number: a file
written (or a log appended to) there again continues from it, so a reader's since_version or
since_entry cursor, or a writer's expected_version, can never match new content by accident. Each
agent's most recently deleted file paths, and as many log paths, are remembered (Limits.remembered_deletions,
REMEMBERED_DELETIONS by default); older ones are forgotten (quotas count live files only, so remembering
every path ever deleted would let an agent grow the store without bound). Storage adapters keep the
numbers however they like (the SQL adapter stores a deleted path's last number negated); `next_number`
and `move_shift` are the rules they implement.

A file moved to another path (rename_file, rename_prefix) takes the numbering of its new path: where that path
remembers a last number N (a file deleted there), each moved version v becomes N + v, so that no number at the
new path names two contents (a reader who saw version N there sees the file change, and an expected_version
of N conflicts); at a path never used (or forgotten) the versions keep their numbers. The old path then
remembers the file's last number, as a deleted path does.
"""

from __future__ import annotations

from .errors import InvalidInput

MAX_SEQUENCE = 2**31 - 1  # versions and entry ids are 32-bit integers in every backend's schema
REMEMBERED_DELETIONS = 1000  # per agent, for file paths and for log paths


def next_number(last: int) -> int:
    """The number after `last`, the path's current or remembered last number (0 for a path never used)."""
    return last + 1


def move_shift(remembered: int, oldest: int) -> int:
    """What a moved file's version numbers gain at a path that remembers `remembered` (0: none), the oldest
    retained version being `oldest`: there they carry on from remembered + 1, so no number names two contents,
    and a file moved back and forth grows by its retained versions only, not by its whole numbering."""
    return 0 if remembered == 0 else remembered + 1 - oldest


def check_expected(expected_version: int | None) -> None:
    if expected_version is not None and not 0 <= expected_version <= MAX_SEQUENCE:
        raise InvalidInput(
            f"Invalid expected_version {expected_version}: use the version you last read, from 1 to {MAX_SEQUENCE:,} "
            "(0 means the file must not exist)."
        )
