"""HTTP load: 16 concurrent MCP clients against 2 replicas on one Postgres database.

    uv run python -m bench.http_load [--postgres URL] [--seconds 60] [--warmup 10] [--clients 16]
                                     [--client-processes 2] [--rate-limit R [--rate-burst B]]

Creates a fresh Postgres database (dropped at the end), starts two `scratchpad-mcp` replicas on it
(MCP_TRANSPORT=http, API keys, JSON logs to a file), makes one key per client agent, and runs the
clients as asyncio tasks in a few client processes, each task with its own httpx2 client and MCP
session, alternating between the replicas. Each client acts as its own agent with a realistic mix:
read_file with since_version, edit_file, append_log, read_log tail, write_file, list_files and
get_usage_stats.

Prints calls/s, p50 and p99 latency (overall and per tool), the error count (refusals by the rate
limit counted apart when --rate-limit is given), and each replica's resident memory (VmRSS) at start,
after the warm-up and at the end, with the end / after-warm-up ratio (target: within 1.2).
Only calls that start after the warm-up are measured.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy.engine import make_url

from bench.common import (
    DEFAULT_POSTGRES,
    START_TIMEOUT,
    Replica,
    code_version,
    create_database,
    drop_database,
    file_content,
    markdown_table,
    note_line,
    percentile,
    reply_text,
    server_log_summary,
    start_replica,
)

RATE_LIMITED = "Rate limit exceeded"

# Relative weights of the operations in one client's loop.
MIX = {
    "read_file": 25,  # with since_version: only the changes since the version this client last saw
    "edit_file": 15,
    "append_log": 20,
    "read_log": 10,  # tail
    "write_file": 10,
    "list_files": 10,
    "get_usage_stats": 10,
}
FILES_PER_AGENT = 5


# --------------------------------------------------------------------------- database and servers


def create_keys(database: str, agents: list[str]) -> list[str]:
    """One read-write key per agent, made with the same ApiKeys the CLI uses (in process: much faster here)."""
    from scratchpad_adapters import open_backend

    backend = open_backend(database)  # also brings the schema to head before the replicas start
    try:
        return [backend.keys.create(agent, label="http_load")[1] for agent in agents]
    finally:
        backend.close()


# --------------------------------------------------------------------------- one client


@dataclass
class ClientStats:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))  # measured only
    errors: Counter[str] = field(default_factory=Counter)  # message prefix -> count (measured only)
    rate_limited: int = 0
    exceptions: int = 0
    calls_total: int = 0  # including the warm-up


async def run_client(index: int, url: str, secret: str, measure_from: float, stop_at: float) -> ClientStats:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(index)
    stats = ClientStats()
    seen: dict[str, int] = {}  # path -> the version this client last read or wrote
    counters: dict[str, int] = {}  # path -> the counter value in the file
    log_entries = 0
    operations = list(MIX)
    weights = [MIX[name] for name in operations]
    headers = {"Authorization": f"Bearer {secret}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):

        async def call(tool: str, arguments: dict[str, Any]) -> Any:
            started = time.time()
            try:
                result = await client.call_tool(tool, arguments)
            except Exception as error:
                if started >= measure_from:
                    stats.exceptions += 1
                    stats.errors[f"exception {type(error).__name__}"] += 1
                return None
            finished = time.time()
            stats.calls_total += 1
            if started < measure_from:
                return result
            message = reply_text(result) if result.is_error else ""
            if result.is_error and message.startswith(RATE_LIMITED):
                stats.rate_limited += 1
            elif result.is_error:
                stats.errors[message[:70]] += 1
            stats.latencies[tool].append(finished - started)
            return result

        for n in range(FILES_PER_AGENT):  # setup, not measured (it runs before measure_from)
            path = f"notes/file-{n}.md"
            result = await call("write_file", {"path": path, "content": file_content(rng, 0, n)})
            if result is not None and not result.is_error:
                seen[path], counters[path] = result.structured_content["version"], 0

        await call("append_log", {"path": "journal", "entry": "session start"})
        log_entries = 1

        while time.time() < stop_at:
            tool = rng.choices(operations, weights)[0]
            path = f"notes/file-{rng.randrange(FILES_PER_AGENT)}.md"
            if tool == "read_file":
                arguments: dict[str, Any] = {"path": path}
                if path in seen:
                    arguments["since_version"] = seen[path]
                result = await call(tool, arguments)
                if result is not None and not result.is_error:
                    seen[path] = result.structured_content["current_version"]
            elif tool == "edit_file":
                counter = counters.get(path, 0)
                result = await call(
                    tool, {"path": path, "old_str": f"counter: {counter}\n", "new_str": f"counter: {counter + 1}\n"}
                )
                if result is not None and not result.is_error:
                    counters[path] = counter + 1
            elif tool == "write_file":
                counter = counters.get(path, 0)
                await call(tool, {"path": path, "content": file_content(rng, counter, rng.randrange(1_000_000))})
            elif tool == "append_log":
                log_entries += 1
                entry = f"step {log_entries}: {note_line(rng, log_entries)}"
                await call(tool, {"path": "journal", "entry": entry})
            elif tool == "read_log":
                await call(tool, {"path": "journal", "tail": 5})
            elif tool == "list_files":
                await call(tool, {"prefix": "notes/"})
            else:
                await call(tool, {})
    return stats


def client_process(
    indexes: list[int], urls: list[str], secrets: list[str], measure_from: float, stop_at: float, queue: Any
) -> None:
    async def main() -> list[ClientStats]:
        tasks = [run_client(i, urls[i % len(urls)], secrets[i], measure_from, stop_at) for i in indexes]
        return list(await asyncio.gather(*tasks))

    results = asyncio.run(main())
    queue.put(
        [
            {
                "latencies": dict(s.latencies),
                "errors": dict(s.errors),
                "rate_limited": s.rate_limited,
                "exceptions": s.exceptions,
                "calls_total": s.calls_total,
            }
            for s in results
        ]
    )


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--seconds", type=float, default=60.0, help="measured time (after the warm-up)")
    parser.add_argument("--warmup", type=float, default=10.0, help="load before measuring and the RSS baseline")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--rate-limit", type=float, default=0.0, help="SCRATCHPAD_RATE_LIMIT for the replicas")
    parser.add_argument("--rate-burst", type=int, default=0, help="SCRATCHPAD_RATE_BURST (default: 2 x rate)")
    parser.add_argument("--keep-logs", action="store_true", help="keep the replicas' JSON logs")
    args = parser.parse_args()

    extra: dict[str, str] = {}
    if args.rate_limit:
        extra["SCRATCHPAD_RATE_LIMIT"] = str(args.rate_limit)
        if args.rate_burst:
            extra["SCRATCHPAD_RATE_BURST"] = str(args.rate_burst)

    admin = make_url(args.postgres)
    if admin.drivername == "postgresql":
        admin = admin.set(drivername="postgresql+psycopg")
    admin_url = admin.render_as_string(hide_password=False)
    folder = Path(tempfile.mkdtemp(prefix="scratchpad-httpload-"))
    database = create_database(admin_url, "scratchpad_httpload")
    replicas: list[Replica] = []
    try:
        agents = [f"load-{i:02}" for i in range(args.clients)]
        secrets = create_keys(database, agents)
        replicas = [start_replica(f"replica-{n + 1}", database, folder, extra) for n in range(args.replicas)]
        for replica in replicas:
            replica.wait_healthy(START_TIMEOUT)
        rss_start = [r.rss_kib() for r in replicas]

        context = multiprocessing.get_context("spawn")
        queue = context.Queue()
        begin = time.time() + 8.0  # time for the client processes to import and connect
        measure_from = begin + args.warmup
        stop_at = measure_from + args.seconds
        groups = [list(range(args.clients))[p :: args.client_processes] for p in range(args.client_processes)]
        urls = [r.mcp_url for r in replicas]
        processes = [
            context.Process(target=client_process, args=(group, urls, secrets, measure_from, stop_at, queue))
            for group in groups
            if group
        ]
        for process in processes:
            process.start()
        time.sleep(max(0.0, measure_from - time.time()))
        rss_warm = [r.rss_kib() for r in replicas]
        results = [stats for _ in processes for stats in queue.get(timeout=args.seconds + args.warmup + 600)]
        for process in processes:
            process.join()
        rss_end = [r.rss_kib() for r in replicas]
    finally:
        for replica in replicas:
            replica.stop()
        drop_database(admin_url, database)

    latencies: dict[str, list[float]] = defaultdict(list)
    errors: Counter[str] = Counter()
    for stats in results:
        for tool, values in stats["latencies"].items():
            latencies[tool].extend(values)
        errors.update(stats["errors"])
    everything = [v for values in latencies.values() for v in values]
    rate_limited = sum(s["rate_limited"] for s in results)
    error_count = sum(errors.values())

    print(f"# HTTP load: {args.clients} clients, {len(replicas)} replicas, Postgres, {args.seconds:g} s measured")
    print()
    print(f"code {code_version()}, cpus {os.cpu_count()}, python {sys.version.split()[0]}, "
          f"{args.client_processes} client processes, warm-up {args.warmup:g} s, "
          f"rate limit {args.rate_limit or 'off'}")  # fmt: skip
    print()
    rows = [
        [tool, str(len(values)), f"{percentile(values, 50) * 1000:.1f}", f"{percentile(values, 99) * 1000:.1f}"]
        for tool, values in sorted(latencies.items())
    ]
    rows.append(
        [
            "all",
            str(len(everything)),
            f"{percentile(everything, 50) * 1000:.1f}",
            f"{percentile(everything, 99) * 1000:.1f}",
        ]
    )
    print(markdown_table(["tool", "calls", "p50 ms", "p99 ms"], rows, right=[1, 2, 3]))
    print()
    print(f"calls/s: {len(everything) / args.seconds:.1f}")
    print(f"p50: {percentile(everything, 50) * 1000:.1f} ms, p99: {percentile(everything, 99) * 1000:.1f} ms")
    print(f"errors: {error_count}" + (f" (plus {rate_limited} rate-limit refusals)" if args.rate_limit else ""))
    if not args.rate_limit and rate_limited:
        print(f"unexpected rate-limit refusals: {rate_limited}")
    for message, count in errors.most_common(5):
        print(f"  {count} x {message}")
    print()
    rows = [
        [
            r.name,
            f"{a / 1024:.1f}",
            f"{b / 1024:.1f}",
            f"{c / 1024:.1f}",
            f"{c / b:.2f}",
        ]
        for r, a, b, c in zip(replicas, rss_start, rss_warm, rss_end, strict=True)
    ]
    print(
        markdown_table(
            ["replica", "RSS start MiB", "after warm-up MiB", "end MiB", "end / after warm-up"],
            rows,
            right=[1, 2, 3, 4],
        )
    )
    print()
    for replica in replicas:
        print(f"{replica.name} log: {server_log_summary(replica)}")
    if args.keep_logs:
        print(f"logs kept in {folder}")
    else:
        for replica in replicas:
            replica.log.unlink(missing_ok=True)
        folder.rmdir()


if __name__ == "__main__":
    main()
