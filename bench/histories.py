"""Real document histories: every git revision of a file becomes the next version of an agent's note.

Run:  uv run python -m bench.histories [--repo PATH] [--path FILE ...] [--top 5] [--min-revisions N]
      [--max-revisions N] [--db PATH]

By default it replays this project's own files with the most revisions. For each document a reader catches up
after every revision, and after every 5th, with read_file(since_version=...) in each format (chunks at context
3 and 0, unified, compact), against a full re-read and against the floor: the added lines' own bytes. A writer
keeps a copy current with edit_file / insert_lines against one that sends write_file of every revision.
Every reconstruction and every edited file is checked exactly; a mismatch makes the run exit with status 1.
Bytes are those on the wire of the real MCP server in-process (as bench/tokens.py measures them).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shlex
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Self

from mcp import Client

from scratchpad_adapters import open_store
from scratchpad_adapters.factory import sqlite_url
from scratchpad_core.diffing import apply_chunks, apply_unified, opcodes
from scratchpad_core.limits import Limits
from scratchpad_core.text import split_keepends
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

if __package__ in (None, ""):  # run as a file (python bench/histories.py): make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import code_version, json_bytes, markdown_table, reply_bytes, reply_text, request_bytes

# --------------------------------------------------------------------------------------------------------------
# githistory.py: Document histories read from git: every revision of a text file, oldest first, renames followed.


PROJECT_ROOT = Path(__file__).resolve().parents[1]
_STORABLE = re.compile(r"[^a-zA-Z0-9/_.-]")


@dataclass
class Document:
    """One file's history: its path at HEAD, the texts of its revisions, and what was left out and why."""

    path: str
    texts: list[str]
    skipped: Counter[str] = field(default_factory=Counter)

    @property
    def note_path(self) -> str:
        """The path the agents store it under (characters scratchpad does not allow become '-')."""
        return _STORABLE.sub("-", self.path).strip("/") or "document"


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    """Run git in `repo` (a work tree or a bare git directory); its stdout, or RuntimeError with its stderr."""
    out = subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {repo}: {out.stderr.decode(errors='replace').strip()}")
    return out.stdout


def revisions(repo: Path, path: str) -> list[tuple[str, str]]:
    """(commit, path at that commit) for every commit that changed the file, oldest first, through renames."""
    log = git(repo, "log", "--follow", "--format=%x00%H", "--name-status", "--", path).decode(errors="replace")
    found: list[tuple[str, str]] = []
    for record in log.split("\x00")[1:]:
        commit, _, rest = record.partition("\n")
        status = next((line.split("\t") for line in rest.splitlines() if "\t" in line), None)
        if status is None or status[0].startswith("D"):  # a merge without a diff, or the file's deletion
            continue
        found.append((commit.strip(), status[-1]))
    found.reverse()
    return found


def blobs(repo: Path, specs: list[str]) -> list[bytes | None]:
    """The contents of COMMIT:PATH blobs in one `git cat-file --batch` (None for a missing one)."""
    out = git(repo, "cat-file", "--batch", data="".join(f"{spec}\n" for spec in specs).encode())
    contents: list[bytes | None] = []
    pos = 0
    for _ in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            contents.append(None)
            continue
        size = int(header[2])
        contents.append(out[pos : pos + size])
        pos += size + 1
    return contents


def load(repo: Path, path: str, max_bytes: int, max_revisions: int | None = None) -> Document:
    """The file's revisions as texts: binary, non-UTF-8 and oversized ones skipped (and counted), as are
    revisions that leave the text as it was (a rename, a mode change: no new version)."""
    document = Document(path, [])
    history = revisions(repo, path)
    for raw in blobs(repo, [f"{commit}:{old_path}" for commit, old_path in history]):
        if raw is None:
            document.skipped["not readable from git"] += 1
        elif b"\x00" in raw:
            document.skipped["binary"] += 1
        elif len(raw) > max_bytes:
            document.skipped[f"over the {max_bytes:,}-byte file limit"] += 1
        else:
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                document.skipped["not UTF-8"] += 1
                continue
            if document.texts and document.texts[-1] == text:
                document.skipped["same text as the revision before"] += 1
            elif max_revisions is None or len(document.texts) < max_revisions:
                document.texts.append(text)
            else:
                document.skipped[f"beyond --max-revisions {max_revisions}"] += 1
    return document


def most_revised(repo: Path, top: int, min_revisions: int, max_bytes: int, max_revisions: int | None) -> list[Document]:
    """The `top` text files at HEAD with the most revisions (at least min_revisions)."""
    at_head = set(git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD").decode(errors="replace").split("\x00"))
    names = git(repo, "log", "--format=", "--name-only", "HEAD").decode(errors="replace").splitlines()
    counts = Counter(name for name in names if name in at_head)
    documents: list[Document] = []
    for path, count in counts.most_common():
        if len(documents) == top or count < min_revisions:
            break
        head = blobs(repo, [f"HEAD:{path}"])[0]
        if head is None or b"\x00" in head or not is_utf8(head):
            continue
        document = load(repo, path, max_bytes, max_revisions)
        if len(document.texts) >= min_revisions:
            documents.append(document)
    return documents


def is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# --------------------------------------------------------------------------------------------------------------
# replay.py: A reader replaying a document history: one agent writes each revision, a reader catches up on it. The
# reader holds version N and asks for read_file(since_version=N) in each format, after every revision and after every
# 5th, next to a full re-read; every reconstruction is checked against the revision itself.


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


# --------------------------------------------------------------------------------------------------------------
# edits.py: A writer replaying a document history with edits, against one that rewrites the file each time. The edit
# writer turns the diff between consecutive revisions into edit_file / insert_lines calls: nearby changed lines make
# one edit, trimmed to the words that change and widened word by word until old_str is unique; it sends write_file
# instead whenever that request is the smaller.


EDITOR = "history-editor"
REWRITER = "history-rewriter"

Call = tuple[str, dict[str, Any]]


def plan(agent: str, path: str, old: str, new: str) -> list[Call]:
    """The calls that turn `old` into `new`, bottom up so that the line numbers above stay valid."""
    rewrite: list[Call] = [("write_file", {"agent_id": agent, "path": path, "content": new})]
    if "\r" in old or "\r" in new or not old:  # edits take the file's line endings; an empty file has no old_str
        return rewrite
    a, b = split_keepends(old), split_keepends(new)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    overhead = request_bytes({"agent_id": agent, "path": path, "old_str": "", "new_str": ""})
    calls: list[Call] = []
    content = old
    for i1, i2, j1, j2 in reversed(groups(a, b, overhead)):
        call, content = one_edit(agent, path, content, (starts[i1], starts[i2], i1), "".join(b[j1:j2]))
        calls.append(call)
    if content != new:
        raise ReplayError(f"{path}: the planned edits do not give the revision (a bug in bench/edits.py)")
    if sum(request_bytes(args) for _, args in calls) >= request_bytes(rewrite[0][1]):
        return rewrite
    return calls


def groups(a: Sequence[str], b: Sequence[str], overhead: int) -> list[tuple[int, int, int, int]]:
    """Changed line ranges (i1, i2, j1, j2); two changes closer than a call's overhead make one."""
    out: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        if out and 2 * sum(len(line.encode()) for line in a[out[-1][1] : i1]) < overhead:
            out[-1] = (out[-1][0], i2, out[-1][2], j2)
        else:
            out.append((i1, i2, j1, j2))
    return out


def one_edit(agent: str, path: str, content: str, region: tuple[int, int, int], new: str) -> tuple[Call, str]:
    """The smaller of edit_file and (for whole new lines) insert_lines replacing content[start:end] with `new`."""
    start, end, line = region
    old = content[start:end]
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    left, right = word_bounds(content, start + head, end - tail)
    changed = new[head : len(new) - tail]
    while not unique_at(content, left, right) and (left, right) != (0, len(content)):
        left, right = widen(content, left, right)
    before, after = content[left : start + head], content[end - tail : right]
    edit: Call = (
        "edit_file",
        {"agent_id": agent, "path": path, "old_str": content[left:right], "new_str": before + changed + after},
    )
    result = content[:left] + before + changed + after + content[right:]
    if start == end and new.endswith("\n") and (start == 0 or content[start - 1] == "\n"):
        at = -1 if start == len(content) and line > 99 else line
        insert: Call = ("insert_lines", {"agent_id": agent, "path": path, "line": at, "text": new})
        if request_bytes(insert[1]) < request_bytes(edit[1]):
            return insert, content[:start] + new + content[start:]
    return edit, result


def word_bounds(content: str, left: int, right: int) -> tuple[int, int]:
    """The range grown to whole words (runs of non-whitespace), as an agent would quote them."""
    while 0 < left < len(content) and not content[left - 1].isspace() and not content[left].isspace():
        left -= 1
    while 0 < right < len(content) and not content[right - 1].isspace() and not content[right].isspace():
        right += 1
    return left, right


def unique_at(content: str, left: int, right: int) -> bool:
    old = content[left:right]
    return bool(old) and content.find(old) == left and content.find(old, left + 1) == -1


def widen(content: str, left: int, right: int) -> tuple[int, int]:
    """One more word (and the whitespace before it) on the side where it is shorter."""
    new_left = left
    while new_left > 0 and content[new_left - 1].isspace():
        new_left -= 1
    while new_left > 0 and not content[new_left - 1].isspace():
        new_left -= 1
    new_right = right
    while new_right < len(content) and content[new_right].isspace():
        new_right += 1
    while new_right < len(content) and not content[new_right].isspace():
        new_right += 1
    if new_left < left and (new_right == right or left - new_left <= new_right - right):
        return new_left, right
    return left, new_right


@dataclass
class Writing(Totals):
    """Requests and replies of the two writers, from the second revision on (both create the file alike)."""

    revisions: int = 0
    edit_requests: int = 0
    edit_replies: int = 0
    rewrite_requests: int = 0
    rewrite_replies: int = 0
    tools: Counter[str] = field(default_factory=Counter)


async def replay_writer(wire: Wire, client: Client, path: str, texts: Sequence[str]) -> Writing:
    totals = Writing()
    for index, text in enumerate(texts):
        request, reply, _ = await wire.call(
            client, "write_file", "write_file", {"agent_id": REWRITER, "path": path, "content": text}
        )
        if index == 0:
            await wire.call(client, "write_file", "write_file", {"agent_id": EDITOR, "path": path, "content": text})
            continue
        totals.revisions += 1
        totals.rewrite_requests += request
        totals.rewrite_replies += reply
        try:
            for tool, arguments in plan(EDITOR, path, texts[index - 1], text):
                request, reply, _ = await wire.call(client, tool, tool, arguments)
                totals.edit_requests += request
                totals.edit_replies += reply
                totals.tools[tool] += 1
        except ReplayError as error:
            wire.failures.append(f"{path} revision {index + 1}, edit writer: {error}")
            await client.call_tool("write_file", {"agent_id": EDITOR, "path": path, "content": text})
        check = await client.call_tool("read_file", {"agent_id": EDITOR, "path": path})  # not counted
        content = (check.structured_content or {}).get("content")
        if not wire.check(f"{path} revision {index + 1}, edit writer", str(content), text):
            await client.call_tool("write_file", {"agent_id": EDITOR, "path": path, "content": text})
    return totals


# --------------------------------------------------------------------------------------------------------------
# histories


COMPACT_TARGET = 1.35
WRITER_TARGET = 0.07
Result = tuple[Document, Catchup, Catchup, Writing]


async def replay(db: Path, documents: Sequence[Document], wire: Wire) -> list[Result]:
    results: list[Result] = []
    with open_store(sqlite_url(db)) as store:
        async with Client(build_server(store, CallRunner(TrustedCaller(), []))) as client:
            for document in documents:
                try:
                    every, fifth = await replay_reader(wire, client, document.note_path, document.texts)
                    writing = await replay_writer(wire, client, document.note_path, document.texts)
                except ReplayError as error:
                    wire.failures.append(f"{document.path}: {error}")
                    continue
                results.append((document, every, fifth, writing))
    return results


def pct(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def times(part: float, whole: float) -> str:
    return f"{part / whole:.2f}×" if whole else "-"


def reader_table(names: Sequence[str], catchups: Sequence[Catchup], formats: Sequence[str]) -> str:
    headers = ["document", "catch-ups", "full re-reads B", *(f"{f} %" for f in formats), "floor %"]
    headers += ["compact ÷ floor", "hunks ÷ floor"]
    rows = []
    for name, c in zip(names, catchups, strict=True):
        row = [name, f"{c.reads:,}", f"{c.full:,}", *(pct(c.replies[f], c.full) for f in formats), pct(c.floor, c.full)]
        row += [times(c.replies["compact"], c.floor), times(c.hunks, c.floor)]
        rows.append(row)
    return markdown_table(headers, rows, right=range(1, len(headers)))


def writer_table(names: Sequence[str], writings: Sequence[Writing]) -> str:
    headers = ["document", "revisions", "rewrite B", "edit B", "edit %", "requests %", "replies %", "calls"]
    rows = []
    for name, w in zip(names, writings, strict=True):
        rewrite, edit = w.rewrite_requests + w.rewrite_replies, w.edit_requests + w.edit_replies
        calls = ", ".join(f"{n:,} {tool}" for tool, n in sorted(w.tools.items()))
        rows.append([name, f"{w.revisions:,}", f"{rewrite:,}", f"{edit:,}", pct(edit, rewrite)])
        rows[-1] += [pct(w.edit_requests, w.rewrite_requests), pct(w.edit_replies, w.rewrite_replies), calls]
    return markdown_table(headers, rows, right=range(1, 7))


def fields_table(wire: Wire) -> str:
    rows = []
    for label, count in sorted(wire.calls.items()):
        sizes = wire.fields[label]
        mean = ", ".join(f"{key} {total / count:,.1f}" for key, total in sizes.most_common())
        rows.append([label, f"{count:,}", f"{(sum(sizes.values()) + 1) / count:,.1f}", mean])
    return markdown_table(["reply of", "calls", "mean B", "mean B per field ('\"key\":value,')"], rows, right=(1, 2))


def overheads(c: Catchup) -> str:
    """Where compact's bytes above the floor go: the reply around the diff, hunk keys, line quoting."""
    envelope, framing, quoting = c.replies["compact"] - c.hunks, c.hunks - c.add_lists, c.add_lists - c.floor
    extra = c.replies["compact"] - c.floor
    return (
        f"{extra:,} B: the reply around the diff {envelope:,} B ({envelope / c.reads:.1f} B a reply), "
        f"hunk keys and numbers {framing:,} B ({framing / c.hunk_count:.1f} B a hunk, {c.hunk_count:,} hunks), "
        f"quotes, commas and escapes of the lines {quoting:,} B ({quoting / max(1, c.added_lines):.2f} B a line, "
        f"{c.added_lines:,} lines)"
    )


def report(documents: Sequence[Document], results: Sequence[Result], wire: Wire) -> list[str]:
    """Prints the tables; returns the targets that fail."""
    names = [f"{r[0].path} ({len(r[0].texts)} rev.)" for r in results] + ["**total**"]
    every, fifth, writing = Catchup(), Catchup(), Writing()
    for _, e, f, w in results:
        every.add(e)
        fifth.add(f)
        writing.add(w)
    for d in documents:
        if d.skipped:
            print(f"{d.path}: left out " + ", ".join(f"{n} ({why})" for why, n in d.skipped.items()))
    formats = list(FORMATS)
    print("\nReader catching up after every revision (reply bytes as % of full re-reads):\n")
    print(reader_table(names, [r[1] for r in results] + [every], formats))
    print(f"\nReader catching up after every {5}th revision (and at the last):\n")
    print(reader_table(names, [r[2] for r in results] + [fifth], formats))
    print("\nWriter: edit_file / insert_lines (write_file when smaller) against write_file of every revision:\n")
    print(writer_table(names, [r[3] for r in results] + [writing]))
    print("\nReply sizes by field (all calls of the run):\n")
    print(fields_table(wire))
    checks = [
        (f"compact ÷ floor, every revision ≤ {COMPACT_TARGET}×", every.replies["compact"], every.floor, COMPACT_TARGET),
        (f"compact ÷ floor, every 5th ≤ {COMPACT_TARGET}×", fifth.replies["compact"], fifth.floor, COMPACT_TARGET),
        (
            f"edit writer ≤ {WRITER_TARGET:.0%} of the rewrite writer",
            writing.edit_requests + writing.edit_replies,
            writing.rewrite_requests + writing.rewrite_replies,
            WRITER_TARGET,
        ),
    ]
    for label, c in (("every revision", every), ("every 5th", fifth)):
        if c.hunk_count:
            print(f"\ncompact over the floor, {label}: {overheads(c)}")
    failed = []
    print()
    for label, part, whole, target in checks:
        ok = bool(whole) and part / whole <= target
        print(f"{'PASS' if ok else 'FAIL'}  {label}: {part / whole if whole else float('nan'):.3f}")
        failed += [] if ok else [label]
    return failed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repo", type=Path, default=PROJECT_ROOT, help="git work tree or bare git directory")
    parser.add_argument("--path", action="append", default=[], help="file to replay (repeatable; default: --top)")
    parser.add_argument("--top", type=int, default=5, help="replay the N files with the most revisions (default 5)")
    parser.add_argument("--min-revisions", type=int, default=2, help="leave out documents with fewer revisions")
    parser.add_argument("--max-revisions", type=int, help="replay at most the first N revisions of each document")
    parser.add_argument("--db", type=Path, help="SQLite file to use (default: a temporary file)")
    args = parser.parse_args(argv)
    limit = Limits().max_file_bytes
    head = git(args.repo, "rev-parse", "--short", "HEAD").decode().strip()
    if args.path:
        documents = [load(args.repo, path, limit, args.max_revisions) for path in args.path]
        short = [d.path for d in documents if len(d.texts) < max(2, args.min_revisions)]
        documents = [d for d in documents if d.path not in short]
    else:
        documents = most_revised(args.repo, args.top, max(2, args.min_revisions), limit, args.max_revisions)
        short = []
    given = argv if argv is not None else sys.argv[1:]
    command = shlex.join(["uv", "run", "python", "-m", "bench.histories", *given])
    print(f"{command}\n\nscratchpad code {code_version()}; history from {args.repo} at {head}\n")
    for path in short:
        print(f"{path}: left out, fewer than {max(2, args.min_revisions)} revisions")
    wire = Wire()
    with tempfile.TemporaryDirectory(prefix="scratchpad-histories-") as temp:
        results = asyncio.run(replay(args.db or Path(temp) / "histories.db", documents, wire))
    failed = report(documents, results, wire)
    if wire.failures:
        print(f"\nMISMATCHES ({len(wire.failures)}): replies or edits did not give the revisions", file=sys.stderr)
        for failure in wire.failures[:50]:
            print(f"  {failure}", file=sys.stderr)
        sys.exit(1)
    if failed:
        print(f"\n{len(failed)} target(s) not met: " + "; ".join(failed))


if __name__ == "__main__":
    main()
