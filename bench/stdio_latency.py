"""Latency of one scratchpad-mcp server over stdio, through a real MCP client session.

Run:  uv run python -m bench.stdio_latency [--iterations 300] [--quick] [--db PATH]

Starts the `scratchpad-mcp` console script on a temporary SQLite file, connects with the low-level
stdio_client + ClientSession (protocol 2025-11-25, as most hosts speak it over stdio) and times, call by
call, MCP pings and tool calls on that one connection. Operations are interleaved round by round
(ping, write, read, ...) so that background load on a noisy machine hits every row alike.

Sequence:
  1. all operations, interleaved round by round, on a nearly empty store (`iterations` rounds);
  2. --cycles times: a block of write rounds (ping, write the agent's ~4 KB file, write a control agent's
     ~4 KB file) on the empty store; fill the SAME agent's store to --fill-mib MiB with ~1 MB files
     (checked with get_usage_stats.total_bytes); the same block of write rounds; delete the fill files.
     Even cycles run the filled block first (ABBA order). The write rows pool `iterations` samples over
     the cycles, so slow drifts in machine load hit the empty and the filled state alike.

The control agent always has an empty store and writes in the same rounds: agent / control within a
block is the stored-bytes effect with no drift between blocks (it does not see the database file size).

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
import statistics
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

from bench.common import code_version, markdown_file, markdown_lines, percentile, server_command

MIB = 1024 * 1024
SMALL_PATH = "notes/current-task.md"
BIG_PATH = "notes/big-notes.md"
LOG_PATH = "logs/actions"
FILL_PREFIX = "fill/"
TARGET_STORED = 1.25  # p50 write with 50 MiB stored / p50 write on an empty store
TARGET_PING = 2.0  # p50 write / p50 ping on the same connection
SMALL_BODY = tuple(markdown_lines(80, seed=11)[1:])  # content is built outside the timed calls; keep it cheap
LOG_WORDS = tuple(markdown_lines(40, seed=17)[1:])


@dataclass
class Row:
    label: str
    tool: str | None  # the tool name (None for pings)
    seconds: list[float] = field(default_factory=list)
    cycles: list[int] = field(default_factory=list)  # the cycle of each sample (0: mixed rounds)
    server_ms: list[float] = field(default_factory=list)

    def p(self, q: float, cycle: int | None = None) -> float:
        values = (
            self.seconds if cycle is None else [s for s, c in zip(self.seconds, self.cycles, strict=True) if c == cycle]
        )
        return percentile(values, q) * 1000

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
        self.small_counter = 0  # revisions of the ~4 KB files: every write changes the content
        self.fill_paths: set[str] = set()

    def next_small(self, rng: random.Random) -> str:
        self.small_counter += 1
        return small_file(rng, self.small_counter)

    def record(self, label: str, tool: str | None, elapsed: float, cycle: int) -> None:
        if label not in self.rows:
            self.rows[label] = Row(label, tool)
        self.rows[label].seconds.append(elapsed)
        self.rows[label].cycles.append(cycle)

    async def call(
        self, tool: str, arguments: dict[str, Any], label: str | None = None, cycle: int = 0
    ) -> dict[str, Any]:
        """One tools/call; timed into `label` when given. Returns the structured content."""
        self.call_labels.append(label)
        started = time.perf_counter()
        result = await self.session.call_tool(tool, arguments)
        elapsed = time.perf_counter() - started
        if result.is_error:
            self.errors[f"{tool}: {result.content[0].text[:120]}"] += 1  # type: ignore[union-attr]
        if label is not None:
            self.record(label, tool, elapsed, cycle)
        return result.structured_content or {}

    async def ping(self, label: str | None = None, cycle: int = 0) -> None:
        started = time.perf_counter()
        await self.session.send_ping()
        elapsed = time.perf_counter() - started
        if label is not None:
            self.record(label, None, elapsed, cycle)


def small_file(rng: random.Random, counter: int) -> str:
    """A ~4 KB notes file whose first line changes on every write."""
    lines = [f"# Current task (revision {counter}, seed {rng.randrange(10**9)})", *SMALL_BODY]
    return ("\n".join(lines) + "\n")[:4096]


def fill_content(base: str, index: int) -> str:
    """~1,000,000 bytes, unique per file: a header and a rotation of the base text."""
    offset = (index * 7919) % len(base)
    body = f"# Fill file {index}\n" + base[offset:] + base[:offset]
    return body[:1_000_000]


def log_entry(rng: random.Random, n: int) -> str:
    """A 200-byte log entry."""
    first = LOG_WORDS[n % len(LOG_WORDS)]
    text = f"[{n:06d}] {rng.choice(('ran', 'checked', 'wrote', 'read'))}: {first} | " + " | ".join(LOG_WORDS[:3])
    return text[:200].ljust(200, ".")


async def run(args: argparse.Namespace) -> None:
    iterations = 40 if args.quick else args.iterations
    warmup = 10 if args.quick else args.warmup
    cycles = 2 if args.quick else max(1, args.cycles)
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
    print(f"server: {' '.join(command)}  (SCRATCHPAD_DB_PATH={db_path}), code {code_version()}")
    print(
        f"python {platform.python_version()} on {platform.system()} {platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average at start {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{iterations} timed rounds per row (+{warmup} warm-up), {cycles} empty/{args.fill_mib} MiB cycles, "
        f"agent {agent}"
    )

    rng = random.Random(1)
    try:
        bench = await measure(params, log_path, agent, control, rng, iterations, warmup, cycles, args.fill_mib)
    except BaseException:
        lines = log_path.read_text(errors="replace").splitlines() if log_path.exists() else []
        print("the run failed; the server's last log lines:", file=sys.stderr)
        for line in lines[-15:]:
            print(f"  {line[:300]}", file=sys.stderr)
        temp_dir.cleanup()
        raise
    print(f"load average at end {os.getloadavg()[0]:.2f}")
    attach_server_times(bench, log_path)
    report(bench, args.fill_mib, cycles)
    if args.keep_log:
        kept = Path(args.keep_log)
        kept.write_text(log_path.read_text())
        print(f"server log kept at {kept}")
    temp_dir.cleanup()


async def measure(
    params: StdioServerParameters,
    log_path: Path,
    agent: str,
    control: str,
    rng: random.Random,
    iterations: int,
    warmup: int,
    cycles: int,
    fill_mib: int,
) -> Bench:
    fill_target = fill_mib * MIB
    with log_path.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            print(f"protocol {init.protocol_version}, server {init.server_info.name}")
            await session.list_tools()
            bench = Bench(session, agent)
            started = time.perf_counter()
            await mixed_rounds(bench, rng, iterations, warmup)
            print(f"all operations, empty store: {time.perf_counter() - started:.1f} s")
            per_block = max(1, iterations // cycles)
            block_warmup = max(5, warmup // cycles)
            for cycle in range(1, cycles + 1):
                # Odd cycles measure the empty store first, even cycles the filled one (ABBA order), so that
                # what follows a fill or a delete of 50 MiB falls on both states alike.
                started = time.perf_counter()
                empty_first = cycle % 2 == 1
                if empty_first:
                    stored = await usage(bench)
                    await write_block(bench, control, rng, per_block, block_warmup, "empty store", cycle)
                filled = await fill(bench, fill_target)
                await write_block(bench, control, rng, per_block, block_warmup, f"{fill_mib} MiB stored", cycle)
                stored_after = await unfill(bench)
                if not empty_first:
                    stored = stored_after
                    await write_block(bench, control, rng, per_block, block_warmup, "empty store", cycle)
                order = "empty, then filled" if empty_first else "filled, then empty"
                print(
                    f"cycle {cycle} ({order}): writes at total_bytes = {stored:,} B and at {filled:,} B "
                    f"({filled / MIB:.1f} MiB); {time.perf_counter() - started:.1f} s"
                )
    return bench


async def mixed_rounds(bench: Bench, rng: random.Random, iterations: int, warmup: int) -> None:
    """Every operation once per round, interleaved, on a (nearly) empty store."""
    agent = bench.agent
    big = markdown_file(1000)
    big_lines = big.split("\n")

    # Setup (not timed): the files exist, the log has enough entries for full pages.
    await bench.call("write_file", {"agent_id": agent, "path": SMALL_PATH, "content": bench.next_small(rng)})
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
            {"agent_id": agent, "path": SMALL_PATH, "content": bench.next_small(rng)},
            label("write_file 4 KB"),
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


async def write_block(
    bench: Bench, control: str, rng: random.Random, rounds: int, warmup: int, state: str, cycle: int
) -> None:
    """Rounds of: ping, write the agent's ~4 KB file, write the control agent's ~4 KB file."""
    agent = bench.agent

    async def round_(timed: bool) -> None:
        await bench.ping(f"ping, {state}" if timed else None, cycle)
        await bench.call(
            "write_file",
            {"agent_id": agent, "path": SMALL_PATH, "content": bench.next_small(rng)},
            f"write_file 4 KB, {state}" if timed else None,
            cycle,
        )
        await bench.call(
            "write_file",
            {"agent_id": control, "path": SMALL_PATH, "content": bench.next_small(rng)},
            f"write_file 4 KB, {state}: control agent (empty)" if timed else None,
            cycle,
        )

    for _ in range(warmup):
        await round_(False)
    for _ in range(rounds):
        await round_(True)


async def usage(bench: Bench) -> int:
    stats = await bench.call("get_usage_stats", {"agent_id": bench.agent})
    return int(stats.get("total_bytes", 0))


async def fill(bench: Bench, target: int) -> int:
    """Write ~1,000,000-byte files into the agent's store until its total_bytes reaches `target`."""
    base = markdown_file(25_000, seed=3)
    while len(base) < 1_100_000:
        base += base
    index = 0
    stored = await usage(bench)
    while stored < target:
        path = f"{FILL_PREFIX}blob-{index:03d}.md"
        await bench.call("write_file", {"agent_id": bench.agent, "path": path, "content": fill_content(base, index)})
        bench.fill_paths.add(path)
        index += 1
        stored = await usage(bench) if index % 10 == 0 or stored + 2_000_000 >= target else stored + 1_000_000
    return await usage(bench)


async def unfill(bench: Bench) -> int:
    for path in sorted(bench.fill_paths):
        await bench.call("delete_file", {"agent_id": bench.agent, "path": path})
    bench.fill_paths.clear()
    return await usage(bench)


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


def report(bench: Bench, fill_mib: int, cycles: int) -> None:
    print()
    print("| operation | n | ops/s | min ms | p50 ms | p90 ms | p99 ms | server p50 ms |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for row in bench.rows.values():
        total = sum(row.seconds)
        ops = len(row.seconds) / total if total else 0.0
        server = f"{row.server_p50():.2f}" if row.server_ms else "-"
        print(
            f"| {row.label} | {len(row.seconds)} | {ops:,.0f} | {min(row.seconds) * 1000:.2f} | {row.p(50):.2f} | "
            f"{row.p(90):.2f} | {row.p(99):.2f} | {server} |"
        )
    print(
        "\nops/s: calls per second of that operation back to back (1 / mean latency); min: the fastest call, "
        "the closest to a quiet machine; server p50: the call's duration_ms as the server logs it (use case + "
        "CallRunner, in the worker thread)."
    )
    if bench.errors:
        print("\nerrors:")
        for text, count in bench.errors.items():
            print(f"  {count} x {text}")

    full_state = f"{fill_mib} MiB stored"

    def p50(label: str, cycle: int | None = None) -> float:
        return bench.rows[label].p(50, cycle)

    def verdict(value: float, target: float) -> str:
        return "PASS" if value <= target else "FAIL"

    empty_w, full_w = "write_file 4 KB, empty store", f"write_file 4 KB, {full_state}"
    empty_p, full_p = "ping, empty store", f"ping, {full_state}"
    empty_c, full_c = f"{empty_w}: control agent (empty)", f"{full_w}: control agent (empty)"
    empty, full = p50(empty_w), p50(full_w)
    ping_e, ping_f = p50(empty_p), p50(full_p)
    ratio_a, ratio_b, ratio_b_full = full / empty, empty / ping_e, full / ping_f
    print()
    print("Target ratios (p50 / p50, same run, same connection):")
    print(
        f"  (a) write with {full_state} / write on an empty store = {full:.2f} / {empty:.2f} ms "
        f"= {ratio_a:.2f}  (target <= {TARGET_STORED})  {verdict(ratio_a, TARGET_STORED)}"
    )
    if cycles > 1:
        ratios = [p50(full_w, c) / p50(empty_w, c) for c in range(1, cycles + 1)]
        listed = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"      per cycle: {listed}; median {statistics.median(ratios):.2f}")
    print(
        f"  (b) write / ping, empty store = {empty:.2f} / {ping_e:.2f} ms = {ratio_b:.2f}  "
        f"(target <= {TARGET_PING})  {verdict(ratio_b, TARGET_PING)}"
    )
    print(
        f"      write / ping, {full_state} = {full:.2f} / {ping_f:.2f} ms = {ratio_b_full:.2f}  "
        f"(target <= {TARGET_PING})  {verdict(ratio_b_full, TARGET_PING)}"
    )
    mixed_w, mixed_p = p50("write_file 4 KB"), p50("ping")
    print(f"      write / ping in the mixed rounds = {mixed_w:.2f} / {mixed_p:.2f} ms = {mixed_w / mixed_p:.2f}")
    print("Noise checks (for reading the ratios above):")
    print(
        f"  ping p50, {full_state} blocks / empty-store blocks = {ping_f:.2f} / {ping_e:.2f} ms = {ping_f / ping_e:.2f}"
    )
    control_e, control_f = p50(empty_c), p50(full_c)
    print(
        f"  control agent (always empty) write p50, {full_state} blocks / empty-store blocks = "
        f"{control_f:.2f} / {control_e:.2f} ms = {control_f / control_e:.2f}"
    )
    print(
        f"  same blocks, agent / control agent: empty store {empty / control_e:.2f}, "
        f"{full_state} {full / control_f:.2f}  (the stored-bytes effect without drift between blocks)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--iterations", type=int, default=300, help="timed samples per row (default 300)")
    parser.add_argument("--warmup", type=int, default=30, help="untimed rounds before measuring (default 30)")
    parser.add_argument("--quick", action="store_true", help="a short run: 40 samples, 10 warm-up rounds")
    parser.add_argument("--db", help="SQLite file to use (default: a temporary file)")
    parser.add_argument("--fill-mib", type=int, default=50, help="the agent's stored bytes to reach, MiB (default 50)")
    parser.add_argument(
        "--cycles",
        type=int,
        default=5,
        help="empty / filled write blocks, alternated by filling and deleting; iterations are split among them "
        "(default 5; --quick: 2)",
    )
    parser.add_argument("--keep-log", help="copy the server's JSON log here")
    args = parser.parse_args(argv)
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
