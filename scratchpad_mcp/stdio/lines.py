"""The lines of a byte source, split on "\\n" only (a CR is JSON whitespace, never a line break) and bounded in
length: a line over the bound is read through without being kept, only its first and last bytes (to find its id
in: ahead of the params, or as the last key)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

from ..server.wire import KEPT_BYTES as KEPT
from .pipes import Source


@dataclass
class Oversized:
    """A line longer than the bound: its first and last KEPT bytes, and how long it was."""

    head: bytes
    tail: bytes
    size: int

    def add(self, piece: bytes) -> None:
        self.size += len(piece)
        self.tail = piece[-KEPT:] if len(piece) >= KEPT else (self.tail + piece)[-KEPT:]


async def lines(read: Source, bound: int) -> AsyncIterator[bytes | Oversized]:
    """The lines of `read`, split on b"\\n" only (a CR is JSON whitespace, never a line break), without the
    newline; a line over `bound` bytes comes as Oversized, read through without being kept."""
    pending = bytearray()
    skipped: Oversized | None = None
    while chunk := await read.read():
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if skipped is not None:
                skipped.add(piece)
            elif len(pending) + len(piece) > bound:
                head = bytes(pending[:KEPT]) + piece[: max(0, KEPT - len(pending))]
                skipped = Oversized(head, bytes(pending[-KEPT:]), len(pending))
                skipped.add(piece)
                pending.clear()
            elif end >= 0 and not pending:
                yield piece
            else:
                pending += piece
                if end >= 0:
                    yield bytes(pending)
                    pending.clear()
            if end < 0:
                break
            if skipped is not None:
                yield skipped
                skipped = None
            start = end + 1
    if skipped is not None:
        yield skipped
    elif pending:
        yield bytes(pending)
