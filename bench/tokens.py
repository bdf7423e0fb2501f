"""Token efficiency: bytes each operation sends and receives, next to the naive alternative.

Run:  uv run python -m bench.tokens [--db PATH] [--original DIR]

Drives the real MCP server in-process (mcp.Client(build_server(...)) on a temporary SQLite file, built
as `scratchpad-mcp` builds it) and measures what crosses the wire:
  request B = the tool arguments as compact JSON (what the model writes),
  reply B   = the text content of the tool result (what the model reads).
The naive alternative is a full read_file (for reads) or a write_file of the whole new content (for
changes). Prints a Markdown table that can be pasted into the docs; targets say PASS or FAIL. First
comes the fixed cost of every turn, the tool definitions, beside the original's (bench.definitions).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client

if __package__ in (None, ""):  # run as a file (python bench/tokens.py): make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    ORIGINAL_RECORDED_BYTES,
    TARGET_BYTES,
    code_version,
    markdown_file,
    markdown_table,
    note_line,
    reply_bytes,
    reply_text,
    report,
    request_bytes,
    surface,
)
from bench.common import (
    original as original_surface,
)
from scratchpad_adapters import open_store
from scratchpad_adapters.factory import sqlite_url
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

AGENT = "token-bench"
LIST_AGENT = "token-bench-list"
SEARCH_AGENT = "token-bench-search"
BIG_PATH = "notes/project-a/working-notes.md"
LOG_PATH = "logs/actions"
ORIGINAL_LIST_BYTES = 168_000  # the original project's list_files reply for 1,000 files
FILE_FIELDS = ("path", "current_version", "bytes", "created_at", "updated_at")
TOPICS = ("architecture", "bugs", "customers", "decisions", "experiments", "meetings", "research", "roadmap")


@dataclass
class Line:
    operation: str
    request: int | None
    reply: int | None
    naive: int | None
    ratio: float | None = None
    target: str = ""
    ok: bool | None = None

    def cells(self) -> list[str]:
        def num(value: int | None) -> str:
            return "-" if value is None else f"{value:,}"

        ratio = "-" if self.ratio is None else f"{self.ratio:.2%}"
        ok = "" if self.ok is None else ("PASS" if self.ok else "FAIL")
        return [self.operation, num(self.request), num(self.reply), num(self.naive), ratio, self.target, ok]


class Session:
    def __init__(self, client: Client) -> None:
        self.client = client
        self.warnings: list[str] = []
        self.notes: list[str] = []

    async def call(self, tool: str, arguments: dict[str, Any]) -> tuple[int, int, dict[str, Any], str]:
        """(request bytes, reply bytes, structured content, reply text) of one tool call."""
        result = await self.client.call_tool(tool, arguments)
        text = reply_text(result)
        if result.is_error:
            self.warnings.append(f"{tool} failed: {text[:200]}")
        return request_bytes(arguments), reply_bytes(result), result.structured_content or {}, text

    def expect(self, condition: bool, message: str) -> None:
        if not condition:
            self.warnings.append(message)


def one_line_change(lines: list[str], index: int) -> tuple[str, str]:
    """(old line, new line) for a realistic one-line edit: a checkbox ticked or a word changed."""
    old = lines[index]
    new = old.replace("- [ ]", "- [x]", 1) if "- [ ]" in old else old.replace(" ", " revised ", 1)
    return old, new


async def measure(session: Session) -> list[Line]:
    rows: list[Line] = []
    text = markdown_file(1000)
    lines = text.split("\n")

    # The 1,000-line file at version 1, and the naive baseline: a full read.
    _, _, head, _ = await session.call("write_file", {"agent_id": AGENT, "path": BIG_PATH, "content": text})
    v1 = int(head["version"])
    full_args = {"agent_id": AGENT, "path": BIG_PATH}
    full_req, full_reply, _, _ = await session.call("read_file", full_args)
    rows.append(
        Line(f"read_file, full (1,000 lines, {len(text.encode()):,} B): the baseline", full_req, full_reply, None)
    )

    # One-line change as a new version: the diff at context=0 and at the default context.
    index = 500
    while "- [ ]" not in lines[index]:
        index += 1
    old_line, new_line = one_line_change(lines, index)
    changed = list(lines)
    changed[index] = new_line
    new_text = "\n".join(changed)
    rewrite_req, rewrite_reply, head, _ = await session.call(
        "write_file", {"agent_id": AGENT, "path": BIG_PATH, "content": new_text}
    )
    v2 = int(head["version"])
    req, reply, _, diff_text = await session.call("read_file", {**full_args, "since_version": v1, "context": 0})
    session.expect(new_line in diff_text and old_line in diff_text, "diff (context=0) does not show the changed line")
    rows.append(
        Line(
            "read_file since_version, 1-line change, context=0",
            req,
            reply,
            full_reply,
            reply / full_reply,
            "≤ 1%",
            reply <= 0.01 * full_reply,
        )
    )
    req, reply, _, _ = await session.call("read_file", {**full_args, "since_version": v1})
    rows.append(
        Line(
            "read_file since_version, 1-line change, default context (3)",
            req,
            reply,
            full_reply,
            reply / full_reply,
            "≤ 1.5%",
            reply <= 0.015 * full_reply,
        )
    )
    req, reply, _, unified = await session.call("read_file", {**full_args, "since_version": v1, "format": "unified"})
    session.expect(f"+{new_line}" in unified, "unified diff does not show the added line")
    rows.append(
        Line("read_file since_version, 1-line change, unified format", req, reply, full_reply, reply / full_reply)
    )

    req, reply, compact, _ = await session.call("read_file", {**full_args, "since_version": v1, "format": "compact"})
    session.expect(compact.get("diff") == [{"at": index + 1, "remove": 1, "add": [new_line]}], "compact diff is off")
    rows.append(
        Line("read_file since_version, 1-line change, compact format", req, reply, full_reply, reply / full_reply)
    )

    # Nothing changed since the version the model holds.
    req, reply, same, _ = await session.call("read_file", {**full_args, "since_version": v2})
    session.expect(same.get("unchanged") is True, "since_version == current did not report unchanged: true")
    rows.append(
        Line(
            "read_file since_version = current version (unchanged)",
            req,
            reply,
            full_reply,
            reply / full_reply,
            "≤ 150 B",
            reply <= 150,
        )
    )

    # A 20-line slice.
    req, reply, sliced, _ = await session.call("read_file", {**full_args, "start_line": 400, "max_lines": 20})
    session.expect(sliced.get("end_line") == 419, f"slice ended at line {sliced.get('end_line')}, not 419")
    rows.append(
        Line(
            "read_file start_line=400, max_lines=20",
            req,
            reply,
            full_reply,
            reply / full_reply,
            "≤ 3%",
            reply <= 0.03 * full_reply,
        )
    )

    # A one-line edit against a full rewrite of the new content.
    index += 4
    while "- [ ]" not in changed[index]:
        index += 1
    old_line, new_line = one_line_change(changed, index)
    changed[index] = new_line
    rewrite_args = {"agent_id": AGENT, "path": BIG_PATH, "content": "\n".join(changed)}
    naive_req = request_bytes(rewrite_args)
    req, reply, edited, _ = await session.call(
        "edit_file", {"agent_id": AGENT, "path": BIG_PATH, "old_str": old_line, "new_str": new_line}
    )
    session.expect("start_line" in edited, "edit_file reply does not say where the change landed")
    rows.append(
        Line(
            "edit_file, one line: request vs write_file of the whole file",
            req,
            reply,
            naive_req,
            req / naive_req,
            "≤ 1%",
            req <= 0.01 * naive_req,
        )
    )
    rows.append(
        Line(
            "edit_file, one line: reply",
            req,
            reply,
            None,
            None,
            "≤ 300 B",
            reply <= 300,
        )
    )
    read_back = await session.call("read_file", full_args)
    session.expect(
        json.loads(read_back[3]).get("content") == rewrite_args["content"], "edit_file result differs from rewrite"
    )

    # Appending a line at the end, against a full rewrite.
    addition = "- [ ] follow up: check the edit and insert benchmarks"
    current = json.loads(read_back[3])["content"]
    appended = current + addition + "\n" if current.endswith("\n") else current + "\n" + addition
    naive_req = request_bytes({"agent_id": AGENT, "path": BIG_PATH, "content": appended})
    req, reply, _, _ = await session.call(
        "insert_lines", {"agent_id": AGENT, "path": BIG_PATH, "line": -1, "text": addition}
    )
    rows.append(
        Line("insert_lines line=-1 (append one line): request vs rewrite", req, reply, naive_req, req / naive_req)
    )

    rows += await list_rows(session)
    rows += await log_rows(session)
    rows += await search_rows(session)
    rows.append(Line("(for reference) write_file of the whole 1,000-line file", rewrite_req, rewrite_reply, None))
    return rows


async def list_rows(session: Session) -> list[Line]:
    """list_files over 1,000 files, paged (200 a page) and in one call.

    The paths ("notes/topic-0042.md") are sized so that the original's reply for them, JSON.stringify(result,
    null, 2), comes to the 168 KB the issue quotes; that same-data size is printed next to ours.
    """
    rng = random.Random(5)
    paths = [f"notes/topic-{n:04d}.md" for n in range(1000)]
    for path in paths:
        body = "\n".join(note_line(rng, k) for k in range(1, rng.randint(3, 40))) + "\n"
        await session.call("write_file", {"agent_id": LIST_AGENT, "path": path, "content": body})

    page_req = page_reply = pages = 0
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        args: dict[str, Any] = {"agent_id": LIST_AGENT, "limit": 200}
        if cursor:
            args["cursor"] = cursor
        req, reply, listing, _ = await session.call("list_files", args)
        page_req, page_reply, pages = page_req + req, page_reply + reply, pages + 1
        seen += listing.get("files", [])
        cursor = listing.get("next_cursor")
        if not cursor or pages > 50:
            break
    complete = [f for f in seen if all(key in f for key in FILE_FIELDS)]
    session.expect(len(seen) == 1000, f"paged list_files returned {len(seen)} files, not 1,000")
    session.expect(len(complete) == len(seen), f"{len(seen) - len(complete)} file rows lack one of {FILE_FIELDS}")
    session.expect(sorted(f["path"] for f in seen) == sorted(paths), "paged list_files missed or repeated paths")
    budget = int(0.75 * ORIGINAL_LIST_BYTES)
    fields_ok = len(seen) == 1000 and len(complete) == 1000
    rows = [
        Line(
            f"list_files, 1,000 files, {pages} pages of 200 (all pages summed)",
            page_req,
            page_reply,
            ORIGINAL_LIST_BYTES,
            page_reply / ORIGINAL_LIST_BYTES,
            f"≤ 75% ({budget:,} B), all fields",
            page_reply <= budget and fields_ok,
        )
    ]
    req, reply, listing, _ = await session.call("list_files", {"agent_id": LIST_AGENT})
    files = listing.get("files", [])
    all_fields = len(files) == 1000 and all(all(key in f for key in FILE_FIELDS) for f in files)
    session.expect(all_fields, "unpaged list_files: not 1,000 complete rows")
    row_bytes = [len(json.dumps(f, ensure_ascii=False, separators=(",", ":")).encode()) + 1 for f in files]
    original_rows = [{key: f[key] for key in FILE_FIELDS} for f in files]
    original_same_data = len(json.dumps({"files": original_rows, "count": len(files)}, indent=2).encode())
    session.notes.append(
        f"list_files: the original's reply for these same 1,000 files (JSON.stringify(result, null, 2)) is "
        f"{original_same_data:,} B; ours is {reply:,} B unpaged ({reply / original_same_data:.1%})."
    )
    mean_path = sum(len(p) for p in paths) / len(paths)
    example = json.dumps(files[0], separators=(",", ":")) if files else ""
    session.notes.append(
        f"list_files: a file row costs {sum(row_bytes) / max(1, len(row_bytes)):.1f} B on average (with its comma) "
        f"for paths of {mean_path:.1f} characters, e.g. {example}; "
        "every extra path character adds 1,000 B to a 1,000-file listing."
    )
    rows.append(
        Line(
            "list_files, 1,000 files, one unpaged call",
            req,
            reply,
            ORIGINAL_LIST_BYTES,
            reply / ORIGINAL_LIST_BYTES,
            f"≤ 75% ({budget:,} B), all fields",
            reply <= budget and all_fields,
        )
    )
    return rows


async def log_rows(session: Session) -> list[Line]:
    rng = random.Random(9)
    for n in range(1, 301):
        entry = f"[{n:04d}] " + " ".join(note_line(rng, n + k) for k in range(3))
        await session.call("append_log", {"agent_id": AGENT, "path": LOG_PATH, "entry": entry[:200]})
    _, page_reply, _, _ = await session.call("read_log", {"agent_id": AGENT, "path": LOG_PATH, "since_entry": 200})
    req, reply, tail, _ = await session.call("read_log", {"agent_id": AGENT, "path": LOG_PATH, "tail": 10})
    session.expect(len(tail.get("entries", [])) == 10, "read_log tail=10 did not return 10 entries")
    return [Line("read_log tail=10 vs a full page of 100 entries", req, reply, page_reply, reply / page_reply)]


async def search_rows(session: Session) -> list[Line]:
    """search_files for one term across 20 notes files, against reading every file in full."""
    rng = random.Random(13)
    paths = [f"notes/{TOPICS[n % len(TOPICS)]}/week-{n:02d}.md" for n in range(20)]
    for n, path in enumerate(paths):
        body = [note_line(rng, k) for k in range(1, 101)]
        if n % 4 == 0:  # the term appears in a few places
            body[rng.randrange(100)] = f"- decision: move the ingest queue to Postgres (week {n})"
        await session.call("write_file", {"agent_id": SEARCH_AGENT, "path": path, "content": "\n".join(body) + "\n"})
    naive = 0
    for path in paths:
        naive += (await session.call("read_file", {"agent_id": SEARCH_AGENT, "path": path}))[1]
    req, reply, found, _ = await session.call("search_files", {"agent_id": SEARCH_AGENT, "query": "ingest queue"})
    session.expect(found.get("count") == 5, f"search_files found {found.get('count')} lines, expected 5")
    return [
        Line(
            f"search_files 'ingest queue' ({found.get('count')} hits) vs full reads of the 20 files",
            req,
            reply,
            naive,
            reply / naive,
        )
    ]


async def run(db: Path, original: Path | None) -> None:
    theirs = await original_surface(original, db.with_name("original.db")) if original else None
    with open_store(sqlite_url(db)) as store:
        server = build_server(store, CallRunner(TrustedCaller(), []))
        async with Client(server) as client:
            mine = await surface(client)
            session = Session(client)
            rows = await measure(session)
    print("Tool definitions, paid on every turn:\n")
    print(report(mine, theirs))
    print()
    base = theirs.definitions if theirs else ORIGINAL_RECORDED_BYTES
    fixed_cost = Line(
        "tool definitions (name, description, inputSchema) vs the original's",
        None,
        mine.definitions,
        base,
        mine.definitions / base,
        f"≤ {TARGET_BYTES:,} B",
        mine.definitions <= TARGET_BYTES,
    )
    rows = [fixed_cost, *rows]
    print(f"scratchpad code {code_version()}, in-process server on {db.name}\n")
    headers = ["operation", "request B", "reply B", "naive B", "ratio", "target", "ok"]
    print(markdown_table(headers, [row.cells() for row in rows], right=(1, 2, 3, 4)))
    print()
    print(
        "request B: tool arguments as compact JSON; reply B: the result's text content (what the model reads); "
        "naive B: a full read_file reply, or for edits the write_file request with the whole new content; "
        "list_files compares with the original's 168,000 B for 1,000 files. Ratio = the measured side / naive."
    )
    targets = [row for row in rows if row.ok is not None]
    passed = sum(1 for row in targets if row.ok)
    print(f"\ntargets: {passed}/{len(targets)} pass")
    for row in targets:
        if not row.ok:
            print(f"  FAIL: {row.operation}: {row.cells()[4]} (target {row.target})")
    for note in session.notes:
        print(f"\n{note}")
    if session.warnings:
        print("\nwarnings:")
        for warning in session.warnings:
            print(f"  {warning}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", help="SQLite file to use (default: a temporary file; a new one is best)")
    parser.add_argument("--original", type=Path, help="a built checkout of the original server, measured beside ours")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="scratchpad-tokens-") as temp:
        asyncio.run(run(Path(args.db) if args.db else Path(temp) / "tokens.db", args.original))


if __name__ == "__main__":
    main()
