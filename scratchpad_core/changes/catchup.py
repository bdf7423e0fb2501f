"""What read_changes reads and the cursor it hands back (issue 31; the use case is usecases/catchup.py).

Change numbers. Each agent counts its writes (agents.changes). A write takes the next number under the lock of
the agent's counters row, which it holds until commit, so numbers are taken in commit order: a transaction that
commits later never holds a smaller number (a sequence taken before commit would not give that: a reader could
pass a number that a slower writer commits afterwards). Every row a write touches carries its number (files
and logs: the last change; versions and entries: the change that made them). A reader works in one snapshot:
it reads the counter N there, and the snapshot holds every change up to N and none after it (on PostgreSQL a
REPEATABLE READ snapshot, on SQLite a read transaction, in memory the committed tables).

The cursor. `v1:<n>:<t>` says the reader holds every path as it stood at change n (t: the time, ms, when n was
the head: files that expire by age between t and the next call's time read as deleted). A page cut by max_bytes
adds `:<C>:<u>:<change>:<kind>:<path>`: the round still describes the space as it stood at change C (time u),
and continues after that item; the last page hands back `v1:<C>:<u>`. Each page reads rows as of change C (the
newest version with a number up to C), so a round's pages agree whatever is written meanwhile, and what is
written after C comes in the next round. An item larger than max_bytes goes alone on its page.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

from ..errors import InvalidInput

DEFAULT_MAX_BYTES = 40_000
ITEM_KINDS = ("file", "log")  # within one change number: files first, then logs; then by path


@dataclass(frozen=True)
class ChangedFile:
    """A file row as read_changes sees it: current_version below 0 for a deleted path (a tombstone)."""

    id: int
    path: str
    current_version: int
    changed: int  # the last change that touched it
    born: int  # the change that created it (or moved it here from moved_from)
    redacted: int  # the last redaction of one of its versions (0: none)
    moved_from: str | None
    updated_at: int


@dataclass(frozen=True)
class ChangedLog:
    """A log row as read_changes sees it: entries 0 for a deleted log."""

    id: int
    path: str
    last_entry_id: int
    entries: int
    changed: int
    born: int  # the change that (re)started it
    dropped: int  # the newest change of an entry retention dropped (0: none)


Position = tuple[int, int, str]  # (change, kind: 0 file / 1 log, path): the order of a reply's items


@dataclass(frozen=True)
class Cursor:
    base: int  # the reader holds every path as of this change (-1: nothing yet, a first sync)
    base_time: int
    upto: int | None = None  # within a round cut into pages: its head change, its time, the last item sent
    upto_time: int = 0
    after: Position | None = None

    def encode(self) -> str:
        text = f"v1:{self.base}:{self.base_time}"
        if self.upto is not None and self.after is not None:
            change, kind, path = self.after
            text += f":{self.upto}:{self.upto_time}:{change}:{kind}:{path}"
        return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")

    @classmethod
    def decode(cls, since: str) -> Cursor:
        try:
            text = base64.urlsafe_b64decode(since + "=" * (-len(since) % 4)).decode("utf-8")
            parts = text.split(":", 7)
            if parts[0] != "v1" or len(parts) not in (3, 8):
                raise ValueError(text)
            numbers = [int(part) for part in parts[1:7]]
        except (ValueError, binascii.Error, UnicodeDecodeError):
            raise InvalidInput.said("Invalid {argument}: {do.continue_changes}.", argument="since") from None
        if len(parts) == 3:
            return cls(numbers[0], numbers[1])
        base, base_time, upto, upto_time, change, kind = numbers
        return cls(base, base_time, upto, upto_time, (change, kind, parts[7]))
