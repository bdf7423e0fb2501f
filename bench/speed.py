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
stored (--calls / 10). Then start-up to the first tools/list answer and to a first call's answer (on an
existing database; a first start, with a new HOME and a new database; `uv run scratchpad-mcp` on this checkout),
the same rows over streamable HTTP with 8 concurrent client sessions on one process (MCP_TRANSPORT=http; ours
with SCRATCHPAD_AUTH=none as the original has no auth), and Postgres writes and appends with 8 client processes
against 1 (ours only: the original has no Postgres).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from bench.common import (
    ServerProcess,
    code_version,
    create_database,
    drop_database,
    free_port,
    markdown_file,
    markdown_lines,
    percentile,
    run,
    server_command,
)
from scratchpad_adapters import open_store

# --------------------------------------------------------------------------------------------------------------
# speed_procs.py: Server processes for bench.speed: how each server starts, and the CPU time its process tree has used
# (/proc).


TICKS = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Server:
    """One server under test: its name in the tables, the command that starts it, and how it names its database."""

    name: str
    command: tuple[str, ...]
    original: bool  # the TypeScript server (SCRATCHPAD_DB_PATH, MCP_TRANSPORT=http + PORT, no auth)
    cwd: Path | None = None

    def env(self, db_path: Path, **extra: str) -> dict[str, str]:
        """This process's environment without the servers' settings, and without PYTHONDONTWRITEBYTECODE: ours
        caches the bytecode of what it imports on its first (untimed) start, as on a user's machine."""
        cleared = ("MCP_TRANSPORT", "PORT", "PYTHONDONTWRITEBYTECODE")
        ours = ("SCRATCHPAD_", "ANTHROPIC_")
        base = {k: v for k, v in os.environ.items() if not k.startswith(ours) and k not in cleared}
        base["SCRATCHPAD_DB_PATH"] = str(db_path)
        return {**base, **extra}


def servers(original: str | None) -> list[Server]:
    """Ours as its console script (what `uv run scratchpad-mcp` ends up running), and the original if given."""
    found = [Server("ours", tuple(server_command()), original=False)]
    if original:
        found.append(Server("original", ("node", str(Path(original).resolve())), original=True))
    return found


def uv_run() -> Server:
    """Ours the way a user on a set-up checkout starts it."""
    return Server("ours (uv run)", ("uv", "run", "scratchpad-mcp"), original=False, cwd=ROOT)


def children(pid: int) -> list[int]:
    """The live processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def tree(pid: int) -> list[int]:
    pids = [pid]
    for child in children(pid):
        pids += tree(child)
    return pids


def cpu_seconds(pids: Sequence[int]) -> float:
    """utime + stime of these processes, in seconds (a process gone since counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5), counted from the state (3)
    return total / TICKS


@dataclass
class Sample:
    """One row measured once on one server: each call's seconds and the server's CPU seconds over them."""

    seconds: list[float] = field(default_factory=list)
    cpu: float = 0.0
    wall: float = 0.0  # the calls' wall time when they ran concurrently (0: back to back)

    @property
    def ops(self) -> float:
        total = self.wall or sum(self.seconds)
        return len(self.seconds) / total if total else 0.0

    def p(self, q: float) -> float:
        return percentile(self.seconds, q) * 1000

    @property
    def cpu_ms(self) -> float:
        return self.cpu / len(self.seconds) * 1000 if self.seconds else 0.0


def median_of(samples: Sequence[Sample]) -> tuple[float, float, float, float]:
    """ops/s, p50 ms, p99 ms and CPU ms per call, each the median over rounds."""
    return (
        statistics.median(s.ops for s in samples),
        statistics.median(s.p(50) for s in samples),
        statistics.median(s.p(99) for s in samples),
        statistics.median(s.cpu_ms for s in samples),
    )


# --------------------------------------------------------------------------------------------------------------
# speed_stdio.py: The stdio rows of bench.speed: one MCP client session per server, the same calls on each, and start-
# up times.


KIB = 1024
FILL_FILE = 1_000_000  # the original refuses a write over 1 MiB
BODY = "\n".join(markdown_lines(40, seed=11)[1:])
ENTRY_WORDS = " ".join(markdown_lines(8, seed=17)[1:])

# row label -> the share of --calls it makes (the slow rows make fewer calls)
ROWS = {
    "ping": 1.0,
    "write_file 1 KiB": 1.0,
    "read_file 1 KiB": 1.0,
    "read_file since_version (1 line changed in 1,000)": 1.0,
    "append_log 200 B": 1.0,
    "read_log, a page of 100": 1.0,
    "list_files, 1,000 files in one call": 0.1,
    "write_file 1 KiB with 50 MiB stored": 0.1,
}


def kib_file(counter: int) -> str:
    return (f"# revision {counter}\n" + BODY)[:KIB]


def log_entry(counter: int) -> str:
    return f"[{counter:06d}] {ENTRY_WORDS}"[:200].ljust(200, ".")


def text_of(result: Any) -> dict[str, Any]:
    """The reply as JSON (both servers put their result as JSON in the text content); raises on a tool error."""
    text = result.content[0].text
    if result.is_error:
        raise RuntimeError(f"tool error: {text[:300]}")
    parsed: dict[str, Any] = json.loads(text)
    return parsed


@dataclass
class Connected:
    """A server over stdio with its client session, its process tree, and what the rows need set up."""

    server: Server
    session: ClientSession
    pids: list[int]
    agent: str = "speed"
    counter: int = 0
    since: int = 0  # the version of the 1,000-line file the diff reads from

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        return text_of(await self.session.call_tool(tool, arguments))

    async def set_up(self) -> None:
        """The files and log the rows read: a 1 KiB file, a 1,000-line file changed on one line, 200 log entries,
        1,000 files of another agent, 50 MiB stored by a third."""
        await self.call("write_file", agent_id=self.agent, path="notes/small.md", content=kib_file(0))
        lines = markdown_file(1000).split("\n")
        first = await self.call("write_file", agent_id=self.agent, path="notes/big.md", content="\n".join(lines))
        lines[500] = lines[500][:40] + " (changed)"
        await self.call("write_file", agent_id=self.agent, path="notes/big.md", content="\n".join(lines))
        self.since = int(first["version"])
        for n in range(200):
            await self.call("append_log", agent_id=self.agent, path="logs/actions", entry=log_entry(n))
        for n in range(1000):
            await self.call("write_file", agent_id="speed-list", path=f"files/{n:04d}.md", content=f"file {n}\n")
        base = markdown_file(25_000, seed=3)
        for n in range(50):
            offset = n * 7919 % len(base)
            content = (f"# fill {n}\n" + base[offset:] + base)[:FILL_FILE]
            await self.call("write_file", agent_id="speed-full", path=f"fill/{n:02d}.md", content=content)

    def operation(self, row: str) -> Callable[[], Awaitable[Any]]:
        """One call of the row's operation."""
        agent = self.agent

        def write(who: str) -> Callable[[], Awaitable[Any]]:
            async def run() -> Any:
                self.counter += 1
                return await self.call(
                    "write_file", agent_id=who, path="notes/small.md", content=kib_file(self.counter)
                )

            return run

        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "ping": self.session.send_ping,
            "write_file 1 KiB": write(agent),
            "read_file 1 KiB": lambda: self.call("read_file", agent_id=agent, path="notes/small.md"),
            "read_file since_version (1 line changed in 1,000)": lambda: self.call(
                "read_file", agent_id=agent, path="notes/big.md", since_version=self.since
            ),
            "append_log 200 B": self._append,
            "read_log, a page of 100": lambda: self.call(
                "read_log", agent_id=agent, path="logs/actions", since_entry=0
            ),
            "list_files, 1,000 files in one call": lambda: self.call("list_files", agent_id="speed-list"),
            "write_file 1 KiB with 50 MiB stored": write("speed-full"),
        }
        return calls[row]

    async def _append(self) -> Any:
        self.counter += 1
        return await self.call("append_log", agent_id=self.agent, path="logs/actions", entry=log_entry(self.counter))

    async def measure(self, row: str, calls: int, warmup: int) -> Sample:
        run = self.operation(row)
        for _ in range(warmup):
            await run()
        sample = Sample()
        before = cpu_seconds(self.pids)
        for _ in range(calls):
            started = time.perf_counter()
            await run()
            sample.seconds.append(time.perf_counter() - started)
        sample.cpu = cpu_seconds(self.pids) - before
        return sample


@contextlib.asynccontextmanager
async def session_of(server: Server, db_path: Path, stderr: Path, **env: str) -> Any:
    """A server started over stdio, initialized (protocol 2025-11-25, as most hosts speak it) and its tools listed."""
    params = StdioServerParameters(
        command=server.command[0], args=list(server.command[1:]), env=server.env(db_path, **env), cwd=server.cwd
    )
    with stderr.open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            yield session


@contextlib.asynccontextmanager
async def connect(server: Server, db_path: Path, stderr: Path) -> Any:
    """A server over stdio with its process tree found."""
    before = set(children(os.getpid()))
    async with session_of(server, db_path, stderr) as session:
        started = [pid for pid in children(os.getpid()) if pid not in before]
        yield Connected(server, session, [p for pid in started for p in tree(pid)])


async def start_up(server: Server, db_path: Path, stderr: Path, **env: str) -> tuple[float, float]:
    """Seconds from starting the process to the first tools/list answer, and to the answer of a first tool call
    sent right after it (a listing of an agent's files)."""
    started = time.perf_counter()
    async with session_of(server, db_path, stderr, **env) as session:
        listed = time.perf_counter() - started
        text_of(await session.call_tool("list_files", {"agent_id": "speed"}))
        return listed, time.perf_counter() - started


# --------------------------------------------------------------------------------------------------------------
# speed_http.py: The streamable-HTTP rows of bench.speed: one server process per server under test, N concurrent
# client sessions making the same calls as the stdio rows.


Results = dict[str, dict[str, list[Sample]]]  # row -> server name -> one sample per round
START_TIMEOUT = 60.0


def start(server: Server, db: Path, folder: Path) -> ServerProcess:
    port = free_port()
    log = folder / f"{server.name}-http.stderr"
    env = server.env(db, MCP_TRANSPORT="http", PORT=str(port))
    if not server.original:
        env["SCRATCHPAD_AUTH"] = "none"  # the original has no auth: compare like with like (stdio has none either)
    with log.open("ab") as errors:
        process = subprocess.Popen(
            list(server.command), env=env, cwd=server.cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=errors,
        )  # fmt: skip
    started = ServerProcess(server.name, port, process, log)
    started.wait_healthy(START_TIMEOUT)
    return started


@contextlib.asynccontextmanager
async def http_session(url: str) -> Any:
    async with (
        httpx2.AsyncClient(timeout=120) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        await session.list_tools()
        yield session


async def measure(sessions: list[Connected], pids: list[int], row: str, calls: int) -> Sample:
    """`calls` calls of the row, spread over the sessions, all running at once."""
    sample = Sample()
    each = max(1, calls // len(sessions))

    async def client(connected: Connected) -> None:
        run = connected.operation(row)
        for _ in range(each):
            started = time.perf_counter()
            await run()
            sample.seconds.append(time.perf_counter() - started)

    warm = [connected.operation(row) for connected in sessions]
    await asyncio.gather(*(run() for run in warm))
    before, began = cpu_seconds(pids), time.perf_counter()
    await asyncio.gather(*(client(connected) for connected in sessions))
    sample.wall = time.perf_counter() - began
    sample.cpu = cpu_seconds(pids) - before
    return sample


async def http_rounds(found: list[Server], rounds: int, calls: int, count: int, folder: Path) -> Results:
    """Each round: both servers up on fresh files with `count` sessions each; rows alternate which goes first."""
    results: Results = defaultdict(lambda: defaultdict(list))
    for number in range(rounds):
        processes = [start(server, folder / f"{server.name}-http-{number}.db", folder) for server in found]
        try:
            async with contextlib.AsyncExitStack() as stack:
                clients: list[tuple[list[Connected], list[int]]] = []
                for server, process in zip(found, processes, strict=True):
                    sessions = [
                        Connected(server, await stack.enter_async_context(http_session(process.mcp_url)), [])
                        for _ in range(count)
                    ]
                    await sessions[0].set_up()
                    for other in sessions[1:]:
                        other.since = sessions[0].since
                    clients.append((sessions, tree(process.process.pid)))
                for index, (row, share) in enumerate(ROWS.items()):
                    order = clients if (number + index) % 2 == 0 else clients[::-1]
                    for sessions, pids in order:
                        sample = await measure(sessions, pids, row, max(count * 2, int(calls * share)))
                        results[row][sessions[0].server.name].append(sample)
        finally:
            for process in processes:
                process.stop()
        print(f"  http round {number + 1}/{rounds} done", file=sys.stderr, flush=True)
    return results


# --------------------------------------------------------------------------------------------------------------
# speed_pg.py: The Postgres rows of bench.speed: writes and appends with 8 client processes against 1 (ours only: the
# original has no Postgres), each client process its own store and agent, as in bench.throughput; rounds interleave 1
# and 8.


CLIENTS = (1, 8)
TARGET = 2.0


def postgres_scaling(admin_url: str, rounds: int, seconds: float) -> None:
    url = create_database(admin_url, "scratchpad_speed")
    rates: dict[tuple[str, int], list[float]] = defaultdict(list)
    p50s: dict[tuple[str, int], list[float]] = defaultdict(list)
    try:
        open_store(url).close()  # migrate once, before the clients start
        for number in range(rounds):
            for operation in ("write", "append"):
                for clients in CLIENTS if number % 2 == 0 else CLIENTS[::-1]:
                    rate, p50, _, errors = run(url, operation, clients, seconds)
                    if errors:
                        print(f"  ({errors} errors: {operation}, {clients} clients)", file=sys.stderr)
                    rates[operation, clients].append(rate)
                    p50s[operation, clients].append(p50)
            print(f"  postgres round {number + 1}/{rounds} done", file=sys.stderr, flush=True)
    finally:
        drop_database(admin_url, url)
    print(f"\nPostgreSQL (library clients, one process each, {seconds:g} s per run), median over rounds\n")
    print("| operation | 1 client calls/s | p50 ms | 8 clients calls/s | p50 ms | 8 / 1 | target |")
    print("|---|--:|--:|--:|--:|--:|--:|")
    for operation in ("write", "append"):
        one, eight = (statistics.median(rates[operation, n]) for n in CLIENTS)
        p_one, p_eight = (statistics.median(p50s[operation, n]) for n in CLIENTS)
        verdict = "met" if eight / one >= TARGET else "MISSED"
        print(
            f"| {operation} | {one:,.0f} | {p_one:.2f} | {eight:,.0f} | {p_eight:.2f} | {eight / one:.2f} "
            f"| >= {TARGET} {verdict} |"
        )


# --------------------------------------------------------------------------------------------------------------
# speed


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


COLD = "ours, nothing recalled"  # an empty cache and a limit set (no packaged replies hold): the server's own replies
FIRST = ", first start"  # a new HOME (no cache, no data) and a new database: a user's very first start


def fresh_home(folder: Path, name: str) -> dict[str, str]:
    """A new, empty HOME and the user directories under it (as on a machine the server never ran on)."""
    home = Path(tempfile.mkdtemp(prefix=f"home-{name}-", dir=folder))
    return {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local/share")}


async def start_ups(found: list[Server], rounds: int, folder: Path) -> dict[str, list[tuple[float, float]]]:
    """Starts on a database made by an untimed first start (as a user's every start after the first, which for ours
    also recalls the first replies: warm_start); ours with nothing to answer early from (an empty cache, and a limit
    set, for which the package's replies do not hold: stdio.first_start); each server's first start (a new HOME and
    a new database). Round -1 is not timed: it makes the databases and warms the OS's caches."""
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    cold = next(s for s in found if s.name == "ours")
    firsts = [s for s in found if s.name in ("ours", "original")]
    for number in range(-1, rounds):
        for server in found if number % 2 == 0 else found[::-1]:
            db, log = folder / f"start-{server.name}.db", folder / f"{server.name}.stderr"
            taken = await start_up(server, db, log)
            if number >= 0:
                times[server.name].append(taken)
        empty = {"XDG_CACHE_HOME": str(folder / f"cache-{number}"), "SCRATCHPAD_MAX_VERSIONS": "5"}
        taken = await start_up(cold, folder / "start-cold.db", folder / "ours.stderr", **empty)
        if number >= 0:
            times[COLD].append(taken)
        for server in firsts if number % 2 == 0 else firsts[::-1]:
            db, log = folder / f"first-{server.name}-{number}.db", folder / f"{server.name}.stderr"
            taken = await start_up(server, db, log, **fresh_home(folder, server.name))
            if number >= 0:
                times[server.name + FIRST].append(taken)
    return times


def start_up_table(times: dict[str, list[tuple[float, float]]]) -> None:
    print("\nStart-up (stdio): process start to the first tools/list answer, and to the answer of a first tool call")
    print("sent right after it; on an existing database, and a first start (a new HOME and a new database)\n")
    print("| server | tools/list median s | min s | first call median s | min s |")
    print("|---|--:|--:|--:|--:|")
    medians = {}
    for name, values in times.items():
        listed, called = [v[0] for v in values], [v[1] for v in values]
        medians[name] = (statistics.median(listed), statistics.median(called))
        print(f"| {name} | {medians[name][0]:.3f} | {min(listed):.3f} | {medians[name][1]:.3f} | {min(called):.3f} |")
    if "original" in medians:
        pairs = [("ours", "original"), (COLD, "original"), ("ours" + FIRST, "original" + FIRST)]
        print()
        for name, base_name in pairs:
            ours, base = medians[name], medians[base_name]
            print(f"{name} / {base_name}: tools/list {ours[0] / base[0]:.2f}, first call {ours[1] / base[1]:.2f}")
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
            results = await http_rounds(found, args.rounds, args.calls, args.sessions, folder)
            table(f"streamable HTTP, {args.sessions} concurrent client sessions, one process", results, names)
        if "postgres" in args.only:
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
