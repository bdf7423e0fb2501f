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
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from mcp import Client

if __package__ in (None, ""):  # run as a file (python bench/histories.py): make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import code_version, markdown_table
from bench.edits import Writing, replay_writer
from bench.githistory import PROJECT_ROOT, Document, git, load, most_revised
from bench.replay import FORMATS, Catchup, ReplayError, Wire, replay_reader
from scratchpad_adapters import open_store
from scratchpad_adapters.factory import sqlite_url
from scratchpad_core.limits import Limits
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

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
