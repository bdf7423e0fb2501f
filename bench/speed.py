"""Per-call cost of our server against the original TypeScript server, side by side in one run (issue 9).

    uv run python -m bench.speed --original /tmp/original/dist/index.js [--rounds 3] [--calls 1000]
                                 [--only stdio startup http postgres]

The original is built outside this repository (MikePressure/scratchpad-mcp: npm install && npm run build);
without --original only our server is measured and no ratio is given. Both servers get the same Python MCP
client (mcp's ClientSession, protocol 2025-11-25) and the same calls; each round starts both on fresh SQLite
files, sets up the same data, then runs every row on one server and then the other (which one goes first
alternates by round), so a noisy machine hits both alike. Tables show the median over rounds of each round's
ops/s, p50 and p99 and server CPU per call (utime+stime of the server's process tree over the row's calls,
from /proc); ratios are ours / original (above 1 is better for ops/s, below 1 for CPU and p99).

Rows: ping, write_file 1 KiB, read_file 1 KiB, read_file since_version of a 1-line change in 1,000 lines,
append_log 200 B, read_log page of 100, list_files of 1,000 files (--calls / 10), write_file 1 KiB with 50 MiB
stored (--calls / 10). Then start-up to the first tools/list answer (and `uv run scratchpad-mcp` on this
checkout), the same rows over streamable HTTP with 8 concurrent client sessions on one process
(MCP_TRANSPORT=http; ours with SCRATCHPAD_AUTH=none as the original has no auth), and Postgres writes and
appends with 8 client processes against 1 (ours only: the original has no Postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from bench.common import code_version
from bench.speed_procs import Sample, Server, median_of, servers, uv_run
from bench.speed_stdio import ROWS, connect, start_up

Results = dict[str, dict[str, list[Sample]]]  # row -> server name -> one sample per round


def ratio(ours: float, original: float) -> str:
    return f"{ours / original:.2f}" if original else "-"


def table(title: str, results: Results, names: list[str]) -> None:
    print(f"\n{title}\n")
    head = "| operation | " + " | ".join(f"{n} ops/s | p50 ms | p99 ms | CPU ms/call" for n in names)
    compare = len(names) == 2
    if compare:
        head += " | ops/s ours/orig | CPU ours/orig | p99 ours/orig"
    print(head + " |")
    print("|---|" + "--:|" * (4 * len(names) + (3 if compare else 0)))
    for row, by_server in results.items():
        figures = [median_of(by_server[n]) for n in names]
        cells = [f"{ops:,.0f} | {p50:.2f} | {p99:.2f} | {cpu:.2f}" for ops, p50, p99, cpu in figures]
        if compare:
            (o_ops, _, o_p99, o_cpu), (r_ops, _, r_p99, r_cpu) = figures
            cells.append(f"{ratio(o_ops, r_ops)} | {ratio(o_cpu, r_cpu)} | {ratio(o_p99, r_p99)}")
        print(f"| {row} | " + " | ".join(cells) + " |")


async def stdio_rounds(found: list[Server], rounds: int, calls: int, folder: Path) -> Results:
    """Both servers up at once; each row runs on one, then on the other (the first alternates row by row)."""
    results: Results = defaultdict(lambda: defaultdict(list))
    for number in range(rounds):
        async with contextlib.AsyncExitStack() as stack:
            connected = []
            for server in found:
                db, log = folder / f"{server.name}-{number}.db", folder / f"{server.name}.stderr"
                connected.append(await stack.enter_async_context(connect(server, db, log)))
            for each in connected:
                await each.set_up()
            for index, (row, share) in enumerate(ROWS.items()):
                count = max(10, int(calls * share))
                for each in connected if (number + index) % 2 == 0 else connected[::-1]:
                    sample = await each.measure(row, count, warmup=max(3, count // 10))
                    results[row][each.server.name].append(sample)
        print(f"  stdio round {number + 1}/{rounds} done", file=sys.stderr, flush=True)
    return results


COLD = "ours, no warm start"  # ours with an empty cache at every start: a first start, or a changed set-up


async def start_ups(found: list[Server], rounds: int, folder: Path) -> dict[str, list[tuple[float, float]]]:
    """Starts on a database made by an untimed first start (as a user's every start after the first, which for ours
    also recalls the first replies: warm_start), and ours with an empty cache each time."""
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    cold = next(s for s in found if s.name == "ours")
    for number in range(-1, rounds):
        for server in found if number % 2 == 0 else found[::-1]:
            db, log = folder / f"start-{server.name}.db", folder / f"{server.name}.stderr"
            taken = await start_up(server, db, log)
            if number >= 0:
                times[server.name].append(taken)
        taken = await start_up(
            cold, folder / "start-cold.db", folder / "ours.stderr", XDG_CACHE_HOME=str(folder / f"cache-{number}")
        )
        if number >= 0:
            times[COLD].append(taken)
    return times


def start_up_table(times: dict[str, list[tuple[float, float]]]) -> None:
    print("\nStart-up (stdio, on an existing database): process start to the first tools/list answer, and to the")
    print("answer of a first tool call sent right after it\n")
    print("| server | tools/list median s | min s | first call median s | min s |")
    print("|---|--:|--:|--:|--:|")
    medians = {}
    for name, values in times.items():
        listed, called = [v[0] for v in values], [v[1] for v in values]
        medians[name] = (statistics.median(listed), statistics.median(called))
        print(f"| {name} | {medians[name][0]:.3f} | {min(listed):.3f} | {medians[name][1]:.3f} | {min(called):.3f} |")
    if "original" in medians:
        base = medians["original"]
        for name in ("ours", COLD):
            ratios = medians[name][0] / base[0], medians[name][1] / base[1]
            print(f"\n{name} / original: tools/list {ratios[0]:.2f}, first call {ratios[1]:.2f}", end="")
        print()
    if "ours (uv run)" in medians:
        extra = medians["ours (uv run)"][0] - medians["ours"][0]
        print(f"`uv run scratchpad-mcp` adds {extra:.3f} s to the console script's start-up")


async def main_async(args: argparse.Namespace) -> None:
    found = servers(args.original)
    names = [s.name for s in found]
    if not args.original:
        print("NOTE: --original not given: measuring ours only, no ratios. Build the original outside this repo")
        print("      (MikePressure/scratchpad-mcp: npm install && npm run build) and pass --original .../dist/index.js")
    print(f"code {code_version()}; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
    print(
        f"{args.rounds} rounds, {args.calls} calls per row; servers: " + "; ".join(" ".join(s.command) for s in found)
    )
    with tempfile.TemporaryDirectory(prefix="scratchpad-speed-") as temp:
        folder = Path(temp)
        if "stdio" in args.only:
            table("stdio, one client session", await stdio_rounds(found, args.rounds, args.calls, folder), names)
        if "startup" in args.only:
            start_up_table(await start_ups([*found, uv_run()], max(5, args.rounds), folder))
        if "http" in args.only:
            from bench.speed_http import http_rounds

            results = await http_rounds(found, args.rounds, args.calls, args.sessions, folder)
            table(f"streamable HTTP, {args.sessions} concurrent client sessions, one process", results, names)
        if "postgres" in args.only:
            from bench.speed_pg import postgres_scaling

            with contextlib.suppress(KeyboardInterrupt):
                postgres_scaling(args.postgres, args.rounds, args.seconds)
    print(f"\nload average at end {os.getloadavg()[0]:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--original", help="the original's dist/index.js (without it: ours only, no ratios)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; tables show the median (default 3)")
    parser.add_argument("--calls", type=int, default=1000, help="calls per row and round (default 1000)")
    parser.add_argument("--sessions", type=int, default=8, help="concurrent HTTP client sessions (default 8)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per Postgres run (default 5)")
    parser.add_argument(
        "--postgres",
        default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
    )
    parser.add_argument(
        "--only", nargs="+", default=["stdio", "startup", "http", "postgres"], help="parts to run (default all)"
    )
    asyncio.run(main_async(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
