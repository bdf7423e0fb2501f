"""A reader replaying a document history: one agent writes each revision, a reader catches up on it.

The reader holds version N and asks for read_file(since_version=N) in each format, after every revision
and after every 5th, next to a full re-read; every reconstruction is checked against the revision itself.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Self

from mcp import Client

from bench.common import json_bytes, reply_bytes, reply_text, request_bytes
from scratchpad_core.diffing import apply_chunks, apply_unified, opcodes

AGENT = "history-reader"  # agents are namespaces: the sessions that write and read a note share one
EVERY = 5
FORMATS: dict[str, dict[str, Any]] = {
    "chunks": {},
    "chunks c0": {"context": 0},
    "unified": {"format": "unified"},
    "compact": {"format": "compact"},
}


class ReplayError(Exception):
    """A tool call failed, or a reply does not reconstruct the revision exactly."""


@dataclass
class Wire:
    """Bytes on the wire, and for every kind of call the bytes each reply field took."""

    failures: list[str] = field(default_factory=list)
    calls: Counter[str] = field(default_factory=Counter)
    fields: defaultdict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    async def call(self, client: Client, label: str, tool: str, arguments: dict[str, Any]) -> tuple[int, int, Any]:
        """(request bytes, reply bytes, structured content) of one call; ReplayError when it fails."""
        result = await client.call_tool(tool, arguments)
        if result.is_error:
            raise ReplayError(f"{tool} {json.dumps(arguments)[:160]} failed: {reply_text(result)[:300]}")
        reply = json.loads(reply_text(result))
        self.calls[label] += 1
        for key, value in reply.items():  # '"key":value' and its comma
            self.fields[label][key] += request_bytes({key: value}) - 1
        return request_bytes(arguments), reply_bytes(result), reply

    def check(self, label: str, got: str, want: str) -> bool:
        if got != want:
            self.failures.append(f"{label}: reconstruction differs from the revision ({first_difference(got, want)})")
        return got == want


def first_difference(got: str, want: str) -> str:
    a, b = got.split("\n"), want.split("\n")
    line = next((n for n, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"{len(a)} lines against {len(b)}, first different line {line + 1}"


def added_bytes(old: str, new: str) -> int:
    """The floor: the lines `new` adds to `old` (text.split('\\n') lines), each with 1 byte for its newline."""
    a, b = old.split("\n"), new.split("\n")
    return sum(len(line.encode()) + 1 for tag, _, _, j1, j2 in opcodes(a, b) if tag != "equal" for line in b[j1:j2])


def apply_hunks(old: str, hunks: Sequence[Mapping[str, Any]]) -> str:
    """Apply compact hunks, written from the spec alone: {"at": A, "remove": R, "add": [lines]} in
    increasing A, A the 1-based line of the old text the hunk starts at, R the lines it removes."""
    source = old.split("\n")
    out: list[str] = []
    pos = 0
    for hunk in hunks:
        at, remove, add = hunk.get("at"), hunk.get("remove"), hunk.get("add")
        if not isinstance(at, int) or not isinstance(remove, int) or not isinstance(add, list):
            raise ReplayError(f"hunk {hunk} lacks an integer at, an integer remove or a list add")
        if not pos + 1 <= at <= len(source) + 1 or remove < 0 or at - 1 + remove > len(source):
            raise ReplayError(f"hunk {hunk} overlaps the one before or runs past the old text's {len(source)} lines")
        out += source[pos : at - 1]
        out += add
        pos = at - 1 + remove
    return "\n".join(out + source[pos:])


def reconstruct(held: str, reply: Mapping[str, Any], fmt: str) -> str:
    """The text a reader holding `held` gets from a since_version reply in format `fmt`."""
    if reply.get("version_too_old"):
        return str(reply["content"])
    if reply.get("unchanged"):
        return held
    diff = reply["diff"]
    if fmt == "compact":
        return apply_hunks(held, diff)
    return apply_unified(held, diff) if fmt == "unified" else apply_chunks(held, diff)


class Totals:
    """Counts that add up field by field (numbers add, Counters merge)."""

    def add(self, other: Self) -> None:
        for item in fields(self):  # type: ignore[arg-type]
            setattr(self, item.name, getattr(self, item.name) + getattr(other, item.name))


@dataclass
class Catchup(Totals):
    """A reader's totals over one history: reply bytes per format, full re-reads, floor, plain hunks."""

    reads: int = 0
    full: int = 0
    floor: int = 0
    hunks: int = 0
    replies: Counter[str] = field(default_factory=Counter)
    too_old: int = 0
    hunk_count: int = 0  # compact's hunks, the lines they add, and the JSON of their add lists alone
    added_lines: int = 0
    add_lists: int = 0  # without their brackets


async def catch_up(wire: Wire, client: Client, path: str, since: int, old: str, new: str, full: int) -> Catchup:
    """One catch-up from version `since` (text `old`) to the current one (`new`), in every format."""
    totals = Catchup(reads=1, full=full, floor=added_bytes(old, new))
    for fmt, options in FORMATS.items():
        args = {"agent_id": AGENT, "path": path, "since_version": since, **options}
        try:
            _, reply_size, reply = await wire.call(client, f"read_file {fmt}", "read_file", args)
            wire.check(f"{path} since {since}, {fmt}", reconstruct(old, reply, fmt), new)
        except ReplayError as error:
            wire.failures.append(f"{path} since {since}, {fmt}: {error}")
            continue
        totals.replies[fmt] += reply_size
        totals.too_old += bool(reply.get("version_too_old"))
        if fmt == "compact" and isinstance(reply.get("diff"), list):
            totals.hunks += json_bytes(reply["diff"])
            totals.hunk_count += len(reply["diff"])
            totals.added_lines += sum(len(hunk["add"]) for hunk in reply["diff"])
            totals.add_lists += sum(json_bytes(hunk["add"]) - 2 for hunk in reply["diff"])
    return totals


async def replay_reader(wire: Wire, client: Client, path: str, texts: Sequence[str]) -> tuple[Catchup, Catchup]:
    """(after every revision, after every 5th and at the end) over the whole history of `texts`."""
    every, fifth = Catchup(), Catchup()
    versions: list[int] = []
    for index, text in enumerate(texts):
        _, _, written = await wire.call(
            client, "write_file", "write_file", {"agent_id": AGENT, "path": path, "content": text}
        )
        versions.append(int(written["version"]))
        if index == 0:
            continue
        _, full, reply = await wire.call(client, "read_file full", "read_file", {"agent_id": AGENT, "path": path})
        wire.check(f"{path} full read of revision {index + 1}", reply.get("content", ""), text)
        every.add(await catch_up(wire, client, path, versions[index - 1], texts[index - 1], text, full))
        if index % EVERY == 0 or index == len(texts) - 1:
            held = index - EVERY if index % EVERY == 0 else index - index % EVERY
            fifth.add(await catch_up(wire, client, path, versions[held], texts[held], text, full))
    return every, fifth
