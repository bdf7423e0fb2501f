"""Latency of one scratchpad-mcp server over stdio, through a real MCP client session.

Run:  uv run python -m bench.stdio_latency [--iterations 300] [--quick] [--db PATH]

Starts the `scratchpad-mcp` console script on a temporary SQLite file, connects with the low-level
stdio_client + ClientSession (protocol 2025-11-25, as most hosts speak it over stdio) and times, call by
call, MCP pings and tool calls on that one connection. Operations are interleaved round by round
(ping, write, read, ...) so that background load on a noisy machine hits every row alike.

Phases:
  1. empty store: every operation, `iterations` rounds;
  2. fill: the same agent's store is filled to --fill-mib MiB (checked with get_usage_stats.total_bytes);
  3. 50 MiB stored: pings and writes of the same ~4 KB file again, `iterations` rounds.

A control agent with an empty store writes its own ~4 KB file in both phases, on the same connection and
database: it separates "this agent has a lot stored" from "the machine or the database file got slower".

The server logs every call (duration_ms, measured around the use case inside the server) as JSON on
stderr; the benchmark reads that log afterwards and shows the server-side p50 next to the round trip.
The table reports latencies as measured; the target ratios compare p50s measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

if __package__ in (None, ""):  # run as a file (python bench/stdio_latency.py): make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import markdown_file, markdown_lines, percentile, server_command

MIB = 1024 * 1024
SMALL_PATH = "notes/current-task.md"
BIG_PATH = "notes/big-notes.md"
LOG_PATH = "logs/actions"
FILL_PREFIX = "fill/"
TARGET_STORED = 1.25  # p50 write with 50 MiB stored / p50 write on an empty store
TARGET_PING = 2.0  # p50 write / p50 ping on the same connection


@dataclass
class Row:
    label: str
    tool: str | None  # the tool name (None for pings)
    seconds: list[float] = field(default_factory=list)
    server_ms: list[float] = field(default_factory=list)

    def p(self, q: float) -> float:
        return percentile(self.seconds, q) * 1000

    def server_p50(self) -> float:
        return percentile(self.server_ms, 50)


class Bench:
    def __init__(self, session: ClientSession, agent: str) -> None:
        self.session = session
        self.agent = agent
        self.rows: dict[str, Row] = {}
        # One label per tool call, in call order: matched with the server's log lines afterwards.
        self.call_labels: list[str | None] = []
        self.errors: dict[str, int] = defaultdict(int)
        self.small_counter = 0  # revisions of the ~4 KB file: every write changes its content

    def row(self, label: str, tool: str | None) -> Row:
        if label not in self.rows:
            self.rows[label] = Row(label, tool)
        return self.rows[label]

    async def call(self, tool: str, arguments: dict[str, Any], label: str | None = None) -> dict[str, Any]:
        """One tools/call; timed into `label` when given. Returns the structured content."""
        self.call_labels.append(label)
        started = time.perf_counter()
        result = await self.session.call_tool(tool, arguments)
        elapsed = time.perf_counter() - started
        if result.is_error:
            self.errors[f"{tool}: {result.content[0].text[:120]}"] += 1  # type: ignore[union-attr]
        if label is not None:
            self.row(label, tool).seconds.append(elapsed)
        return result.structured_content or {}

    async def ping(self, label: str | None = None) -> None:
        started = time.perf_counter()
        await self.session.send_ping()
        elapsed = time.perf_counter() - started
        if label is not None:
            self.row(label, None).seconds.append(elapsed)


def small_file(rng: random.Random, counter: int) -> str:
    """A ~4 KB notes file whose first line changes on every write."""
    lines = [f"# Current task (revision {counter}, seed {rng.randrange(10**9)})"]
    lines += markdown_lines(80, seed=11)[1:]
    text = "\n".join(lines) + "\n"
    return text[:4096]


def fill_content(base: str, index: int) -> str:
    """~1,000,000 bytes, unique per file: a header and a rotation of the base text."""
    offset = (index * 7919) % len(base)
    body = f"# Fill file {index}\n" + base[offset:] + base[:offset]
    return body[:1_000_000]


def log_entry(rng: random.Random, n: int) -> str:
    words = markdown_lines(30, seed=n % 97)
    text = f"[{n:06d}] {rng.choice(('ran', 'checked', 'wrote', 'read'))}: " + " | ".join(words[1:5])
    return text[:200].ljust(200, ".")


async def run(args: argparse.Namespace) -> None:
    iterations = 40 if args.quick else args.iterations
    warmup = 10 if args.quick else args.warmup
    fill_target = args.fill_mib * MIB
    temp_dir = tempfile.TemporaryDirectory(prefix="scratchpad-bench-")
    db_path = Path(args.db) if args.db else Path(temp_dir.name) / "bench.db"
    log_path = Path(temp_dir.name) / "server-stderr.jsonl"
    stamp = time.strftime("%H%M%S")
    agent, control = f"bench-{stamp}", f"bench-{stamp}-control"
    command = server_command()
    env = {
        "SCRATCHPAD_DB_PATH": str(db_path),
        "SCRATCHPAD_LOG_FORMAT": "json",
        "SCRATCHPAD_LOG_LEVEL": "INFO",
    }
    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    print(f"server: {' '.join(command)}  (SCRATCHPAD_DB_PATH={db_path})")
    print(
        f"python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}"
    )
    print(f"iterations {iterations} (+{warmup} warm-up), fill target {args.fill_mib} MiB, agent {agent}")

    rng = random.Random(1)
    big = markdown_file(1000)
    big_lines = big.split("\n")
    with log_path.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            print(f"protocol {init.protocol_version}, server {init.server_info.name} {init.server_info.version}")
            await session.list_tools()
            bench = Bench(session, agent)
            started = time.perf_counter()
            await phase_empty(bench, control, rng, big, big_lines, iterations, warmup)
            print(f"phase 1 (empty store) done in {time.perf_counter() - started:.1f} s")
            started = time.perf_counter()
            stored = await fill(bench, fill_target)
            print(
                f"phase 2 (fill) done in {time.perf_counter() - started:.1f} s: "
                f"{agent} total_bytes = {stored:,} B ({stored / MIB:.1f} MiB)"
            )
            started = time.perf_counter()
            await phase_full(bench, control, rng, iterations, warmup)
            print(f"phase 3 ({args.fill_mib} MiB stored) done in {time.perf_counter() - started:.1f} s")
            final = await bench.call("get_usage_stats", {"agent_id": agent})
            print(f"{agent} total_bytes after phase 3 = {final.get('total_bytes', 0):,} B")
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    attach_server_times(bench, log_path)
    report(bench, args.fill_mib)
    if args.keep_log:
        kept = Path(args.keep_log)
        kept.write_text(log_path.read_text())
        print(f"server log kept at {kept}")
    temp_dir.cleanup()


async def phase_empty(
    bench: Bench,
    control: str,
    rng: random.Random,
    big: str,
    big_lines: list[str],
    iterations: int,
    warmup: int,
) -> None:
    agent = bench.agent

    def next_small() -> str:
        bench.small_counter += 1
        return small_file(rng, bench.small_counter)

    # Setup (not timed): the files exist, the log has enough entries for full pages.
    await bench.call("write_file", {"agent_id": agent, "path": SMALL_PATH, "content": next_small()})
    await bench.call("write_file", {"agent_id": control, "path": SMALL_PATH, "content": next_small()})
    head = await bench.call("write_file", {"agent_id": agent, "path": BIG_PATH, "content": big})
    big_version = int(head["version"])
    entries = 0
    for _ in range(150):
        entries += 1
        await bench.call("append_log", {"agent_id": agent, "path": LOG_PATH, "entry": log_entry(rng, entries)})

    async def round_(timed: bool, i: int) -> None:
        nonlocal big_version, entries

        def label(name: str) -> str | None:
            return name if timed else None

        await bench.ping(label("ping"))
        await bench.call(
            "write_file",
            {"agent_id": agent, "path": SMALL_PATH, "content": next_small()},
            label("write_file 4 KB (empty store)"),
        )
        await bench.call(
            "write_file",
            {"agent_id": control, "path": SMALL_PATH, "content": next_small()},
            label("write_file 4 KB, control agent"),
        )
        await bench.call("read_file", {"agent_id": agent, "path": SMALL_PATH}, label("read_file full (4 KB)"))
        # A one-line change to the 1,000-line file (not timed), then the diff read.
        changed = list(big_lines)
        line = rng.randrange(1, 999)
        changed[line] = f"{changed[line][:40]} (changed {i})"
        written = await bench.call("write_file", {"agent_id": agent, "path": BIG_PATH, "content": "\n".join(changed)})
        previous, big_version = big_version, int(written.get("version", big_version))
        await bench.call(
            "read_file",
            {"agent_id": agent, "path": BIG_PATH, "since_version": previous},
            label("read_file diff (1-line change, 1,000 lines)"),
        )
        await bench.call(
            "read_file", {"agent_id": agent, "path": BIG_PATH}, label("read_file full (1,000 lines, 52 KB)")
        )
        entries += 1
        await bench.call(
            "append_log",
            {"agent_id": agent, "path": LOG_PATH, "entry": log_entry(rng, entries)},
            label("append_log (200 B)"),
        )
        since = rng.randrange(0, entries - 100)
        await bench.call(
            "read_log",
            {"agent_id": agent, "path": LOG_PATH, "since_entry": since, "limit": 100},
            label("read_log page (100 entries)"),
        )

    for i in range(warmup):
        await round_(False, i)
    for i in range(iterations):
        await round_(True, i)


async def fill(bench: Bench, target: int) -> int:
    base = markdown_file(25_000, seed=3)
    while len(base) < 1_100_000:
        base += base
    index = 0
    stats = await bench.call("get_usage_stats", {"agent_id": bench.agent})
    stored = int(stats.get("total_bytes", 0))
    while stored < target:
        await bench.call(
            "write_file",
            {
                "agent_id": bench.agent,
                "path": f"{FILL_PREFIX}blob-{index:03d}.md",
                "content": fill_content(base, index),
            },
        )
        index += 1
        if index % 10 == 0 or stored + 1_000_000 >= target:
            stats = await bench.call("get_usage_stats", {"agent_id": bench.agent})
            stored = int(stats.get("total_bytes", 0))
        else:
            stored += 1_000_000
    stats = await bench.call("get_usage_stats", {"agent_id": bench.agent})
    print(f"fill: wrote {index} files of ~1,000,000 B; file_count = {stats.get('file_count')}")
    return int(stats.get("total_bytes", 0))


async def phase_full(bench: Bench, control: str, rng: random.Random, iterations: int, warmup: int) -> None:
    agent = bench.agent

    async def round_(timed: bool) -> None:
        bench.small_counter += 2
        await bench.ping("ping (50 MiB stored)" if timed else None)
        await bench.call(
            "write_file",
            {"agent_id": agent, "path": SMALL_PATH, "content": small_file(rng, bench.small_counter)},
            "write_file 4 KB (50 MiB stored)" if timed else None,
        )
        await bench.call(
            "write_file",
            {"agent_id": control, "path": SMALL_PATH, "content": small_file(rng, bench.small_counter + 1)},
            "write_file 4 KB, control agent (phase 3)" if timed else None,
        )

    for _ in range(warmup):
        await round_(False)
    for _ in range(iterations):
        await round_(True)


def attach_server_times(bench: Bench, log_path: Path) -> None:
    """Match the server's per-call log lines (in call order) with the labels of the calls made."""
    durations: list[float] = []
    for line in log_path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if record.get("event") == "tool_call":
            durations.append(float(record["duration_ms"]))
    if len(durations) != len(bench.call_labels):
        print(f"(server log has {len(durations)} call lines for {len(bench.call_labels)} calls: no server times)")
        return
    for label, ms in zip(bench.call_labels, durations, strict=True):
        if label is not None:
            bench.rows[label].server_ms.append(ms)


def report(bench: Bench, fill_mib: int) -> None:
    print()
    header = "| operation | n | ops/s | p50 ms | p90 ms | p99 ms | server p50 ms |"
    print(header)
    print("|---|--:|--:|--:|--:|--:|--:|")
    for row in bench.rows.values():
        total = sum(row.seconds)
        ops = len(row.seconds) / total if total else 0.0
        server = f"{row.server_p50():.2f}" if row.server_ms else "-"
        print(
            f"| {row.label} | {len(row.seconds)} | {ops:,.0f} | {row.p(50):.2f} | {row.p(90):.2f} | "
            f"{row.p(99):.2f} | {server} |"
        )
    if bench.errors:
        print("\nerrors:")
        for text, count in bench.errors.items():
            print(f"  {count} x {text}")

    def p50(label: str) -> float:
        return bench.rows[label].p(50)

    empty, full = p50("write_file 4 KB (empty store)"), p50("write_file 4 KB (50 MiB stored)")
    ping1, ping3 = p50("ping"), p50("ping (50 MiB stored)")
    control1, control3 = p50("write_file 4 KB, control agent"), p50("write_file 4 KB, control agent (phase 3)")
    ratio_a = full / empty
    ratio_b1, ratio_b3 = empty / ping1, full / ping3
    print()
    print("Target ratios (p50 / p50, same run, same connection):")
    print(
        f"  (a) write with {fill_mib} MiB stored / write on an empty store = {full:.2f} / {empty:.2f} ms "
        f"= {ratio_a:.2f}  (target <= {TARGET_STORED})  {'PASS' if ratio_a <= TARGET_STORED else 'FAIL'}"
    )
    print(
        f"  (b) write / ping, empty store = {empty:.2f} / {ping1:.2f} ms = {ratio_b1:.2f}  "
        f"(target <= {TARGET_PING})  {'PASS' if ratio_b1 <= TARGET_PING else 'FAIL'}"
    )
    print(
        f"      write / ping, {fill_mib} MiB stored = {full:.2f} / {ping3:.2f} ms = {ratio_b3:.2f}  "
        f"(target <= {TARGET_PING})  {'PASS' if ratio_b3 <= TARGET_PING else 'FAIL'}"
    )
    print("Noise checks (for reading the ratios above):")
    print(f"  ping p50 phase 3 / phase 1 = {ping3:.2f} / {ping1:.2f} ms = {ping3 / ping1:.2f}")
    drift = control3 / control1
    print(f"  control agent write p50 phase 3 / phase 1 = {control3:.2f} / {control1:.2f} ms = {drift:.2f}")
    print(f"  phase 3: {fill_mib} MiB agent write / control agent write = {full / control3:.2f}")
    print(f"  phase 1: agent write / control agent write = {empty / control1:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--iterations", type=int, default=300, help="timed rounds per phase (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="untimed rounds before each phase (default 30)")
    parser.add_argument("--quick", action="store_true", help="a short run: 40 rounds, 10 warm-up")
    parser.add_argument("--db", help="SQLite file to use (default: a temporary file)")
    parser.add_argument("--fill-mib", type=int, default=50, help="bytes to store before phase 3, in MiB (default 50)")
    parser.add_argument("--keep-log", help="copy the server's JSON log here")
    args = parser.parse_args(argv)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
