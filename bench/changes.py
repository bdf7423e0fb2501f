"""read_changes (issue 31): what catching up costs a reader, against the list-and-read way, and how its time grows.

Run:  uv run python -m bench.changes [--turns 50] [--files 10000]

Team: an orchestrator (rewrites plan.md every 10th turn, edits it every 5th), 4 workers (each edits its own note
and appends a finding to the shared log every turn) and a reviewer who catches up after every turn, both ways,
through the real MCP server in process (reply bytes as on the wire, the text content). read_changes: one call
per turn, its replies against the text added across the space since the last call (+60 B a changed path: the
issue's bound). The list-and-read way: list_files, list_logs, then read_file(since_version, format=compact) for
each file whose version moved (read_file for a new one) and read_log(since_entry) for each log that grew. Each
reader rebuilds the space from its replies alone, checked against the store at the end.

Scale: time of read_changes catching up on 10 changes in an agent of N files and in one of 100 (SQLite file),
median of 20 rounds each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import markdown_table, reply_text
from scratchpad_adapters import open_store
from scratchpad_adapters.factory import sqlite_url
from scratchpad_core.hunks import apply_hunks, diff_hunks
from scratchpad_core.limits import Limits, utf8_len
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

TEAM = "team"
A = {"agent_id": TEAM}
PER_PATH = 60


def added_bytes(old: str, new: str) -> int:
    """The text a change adds: its new lines (and their line ends)."""
    return sum(utf8_len(line) + 1 for hunk in diff_hunks(old, new) for line in hunk.add)


class Space:
    """What the writers did since the reader's last call: text added and paths changed."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.added = 0
        self.paths: set[str] = set()

    def wrote(self, path: str, content: str) -> None:
        self.added += added_bytes(self.files.get(path, ""), content)
        self.files[path] = content
        self.paths.add(path)

    def appended(self, path: str, entry: str) -> None:
        self.added += utf8_len(entry)
        self.paths.add(path)

    def taken(self) -> tuple[int, int]:
        taken = (self.added, len(self.paths))
        self.added, self.paths = 0, set()
        return taken


async def call(client: Client, tool: str, args: dict[str, Any]) -> tuple[Any, int]:
    result = await client.call_tool(tool, {**A, **args})
    assert not result.is_error, reply_text(result)
    return result.structured_content, len(reply_text(result).encode())


class ChangesReader:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.logs: dict[str, dict[int, str]] = {}
        self.cursor: str | None = None
        self.bytes = self.calls = 0

    async def catch_up(self, client: Client) -> int:
        got = 0
        while True:
            reply, size = await call(client, "read_changes", {} if self.cursor is None else {"since": self.cursor})
            got += size
            self.calls += 1
            for item in reply["items"]:
                self.apply(item)
            self.cursor = reply["cursor"]
            if not reply.get("has_more"):
                self.bytes += got
                return got

    def apply(self, item: dict[str, Any]) -> None:
        if "path" in item:
            if item.get("deleted"):
                self.files.pop(item["path"], None)
            elif "diff" in item:
                self.files[item["path"]] = apply_hunks(self.files[item["path"]], item["diff"])
            else:
                self.files[item["path"]] = item["content"]
            return
        entries = {} if item.get("created") else self.logs.get(item["log"], {})
        self.logs[item["log"]] = entries | {e["id"]: e["entry"] for e in item["entries"]}


class ListingReader:
    def __init__(self) -> None:
        self.files: dict[str, tuple[int, str]] = {}
        self.logs: dict[str, dict[int, str]] = {}
        self.bytes = self.calls = 0

    async def catch_up(self, client: Client) -> int:
        got = 0
        listing, size = await call(client, "list_files", {})
        logs, more = await call(client, "list_logs", {})
        got, self.calls = got + size + more, self.calls + 2
        for file in listing["files"]:
            path, version = file["path"], file["current_version"]
            held = self.files.get(path)
            if held is not None and held[0] == version:
                continue
            args = {"path": path} if held is None else {"path": path, "since_version": held[0], "format": "compact"}
            read, size = await call(client, "read_file", args)
            got, self.calls = got + size, self.calls + 1
            text = read["content"] if "content" in read else apply_hunks(held[1], read["diff"])  # type: ignore[index]
            self.files[path] = (version, text)
        for log in logs["logs"]:
            entries = self.logs.setdefault(log["path"], {})
            last = max(entries, default=0)
            while last < log["last_entry_id"]:
                page, size = await call(client, "read_log", {"path": log["path"], "since_entry": last})
                got, self.calls = got + size, self.calls + 1
                entries.update({e["id"]: e["entry"] for e in page["entries"]})
                last = page["last_entry_id"]
        self.bytes += got
        return got


async def team(turns: int) -> list[list[str]]:
    store = open_store("memory://", limits=Limits())
    server = build_server(store, CallRunner(TrustedCaller()))
    space, changes, listing = Space(), ChangesReader(), ListingReader()
    worst = 0.0
    async with Client(server) as client:
        plan = "# Plan\n" + "".join(f"- step {n}: to do\n" for n in range(12))
        await call(client, "write_file", {"path": "plan.md", "content": plan})
        space.wrote("plan.md", plan)
        for turn in range(1, turns + 1):
            if turn % 10 == 0:
                plan = "# Plan, revised\n" + "".join(f"- step {n}: turn {turn}\n" for n in range(12))
                await call(client, "write_file", {"path": "plan.md", "content": plan})
                space.wrote("plan.md", plan)
            elif turn % 5 == 0:
                await call(client, "edit_file", {"path": "plan.md", "old_str": "- step 0", "new_str": "- step 0 ok"})
                space.wrote("plan.md", space.files["plan.md"].replace("- step 0", "- step 0 ok", 1))
            for worker in range(4):
                path = f"notes/worker-{worker}.md"
                line = f"turn {turn}: checked module {worker * 7 + turn}, found {turn % 3} issues\n"
                await call(client, "insert_lines", {"path": path, "line": -1, "text": line})
                space.wrote(path, space.files.get(path, "") + line)
                entry = f"worker-{worker} turn {turn}: latency {100 + turn * worker} ms on /api/v{worker}"
                await call(client, "append_log", {"path": "findings", "entry": entry})
                space.appended("findings", entry)
            added, paths = space.taken()
            got = await changes.catch_up(client)
            await listing.catch_up(client)
            worst = max(worst, got / (1.35 * added + PER_PATH * paths))
        files = {f.path: store.read_file(TEAM, f.path).content for f in store.list_files(TEAM).files}
    assert changes.files == files == {p: t for p, (_, t) in listing.files.items()}, "a reader's rebuild differs"
    assert changes.logs == listing.logs
    return [
        ["read_changes", f"{changes.calls:,}", f"{changes.bytes:,}", f"{worst:.2f} of the bound (<= 1.00)"],
        ["list + read", f"{listing.calls:,}", f"{listing.bytes:,}", f"{changes.bytes / listing.bytes:.2f}× (<= 0.50)"],
    ]


def scale(files: int) -> list[list[str]]:
    rows = []
    for count in (100, files):
        with tempfile.TemporaryDirectory() as tmp:
            store = open_store(sqlite_url(Path(tmp) / "scale.db"), limits=Limits(quota_files=count + 1))
            for n in range(count):
                store.write_file(TEAM, f"f/{n:05}.md", f"file {n}\n")
            times = []
            for round_ in range(20):
                cursor = store.changes_cursor(TEAM)
                for n in range(10):
                    store.write_file(TEAM, f"f/{(n * 37 + round_) % count:05}.md", f"round {round_} change {n}\n")
                started = time.perf_counter()
                page = store.read_changes(TEAM, cursor)
                times.append(time.perf_counter() - started)
                assert len(page.items) == 10, len(page.items)
            store.close()
        rows.append([f"{count:,} files", f"{statistics.median(times) * 1000:.2f} ms"])
    ratio = float(rows[1][1].split()[0]) / float(rows[0][1].split()[0])
    rows.append(["ratio", f"{ratio:.2f}× (<= 2.00)"])
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args(argv)
    print(f"Team of 6 over {args.turns} turns, one reviewer catching up after each turn:\n")
    rows = asyncio.run(team(args.turns))
    print(markdown_table(["way", "calls", "reply bytes", "against"], rows, right=(1, 2)))
    print("\n10 changes, read_changes time (median of 20):\n")
    print(markdown_table(["agent", "time"], scale(args.files), right=(1,)))


if __name__ == "__main__":
    main()
