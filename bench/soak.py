"""Soak: 16 MCP clients over HTTP on 2 replicas and Postgres for 10 minutes of mixed calls.

    uv run python -m bench.soak [--minutes 10] [--clients 16] [--replicas 2] [--agents 4]
                                [--database URL | --postgres ADMIN_URL] [--interval 60] [--json PATH]

Starts the replicas as a user does (`scratchpad-mcp` with MCP_TRANSPORT=http, PORT, SCRATCHPAD_DATABASE_URL,
SCRATCHPAD_AUTH=keys), makes one key per agent with `scratchpad-mcp --database URL keys create --agent NAME`,
and spreads the clients over the replicas and the agents (a few clients per agent), in a few client
processes (bench/soak_clients.py: writes, edits, reads with since_version in chunks and compact diffs, full
reads, appends, read_log pages, list_files, search_files, deletes). Without --database it creates its own
database next to ADMIN_URL and drops it at the end.

Each interval (a minute) prints one row: calls/s, p50 and p99 of the calls that finished in it, errors,
each replica's RSS (VmRSS) and open file descriptors at its end, and the machine's 1-minute load average.
The verdict: after the first interval (the warm-up), calls/s, p99, RSS and fds are flat within 10% (max / min
of the per-interval values), and no call failed; each MET or MISSED with its figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import os
import queue as queues
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy.engine import make_url

from bench.common import (
    DEFAULT_POSTGRES,
    START_TIMEOUT,
    WORDS,
    Replica,
    code_version,
    create_database,
    drop_database,
    file_content,
    note_line,
    percentile,
    reply_text,
    server_command,
    server_log_summary,
    start_replica,
)

# --------------------------------------------------------------------------------------------------------------
# soak_clients.py: The soak's clients: real MCP clients over streamable HTTP with a bearer key, run as asyncio tasks
# in a few spawned processes. Each client owns a few files under its agent (c<N>/...) and shares its agent's journal
# with the agent's other clients; it sends every finished call, (finish time, seconds, error or None), to the main
# process about once a second.


FILES_PER_CLIENT = 4
LOG_PAGE = 20
FLUSH_EVERY = 1.0  # seconds between batches sent to the main process

# Relative weights of the operations in one client's loop.
MIX = {
    "read_diff": 15,  # read_file since_version (chunks)
    "read_compact": 10,  # read_file since_version, format="compact"
    "read_full": 5,
    "edit_file": 15,
    "write_file": 8,
    "append_log": 15,
    "read_log": 10,  # the next page after this client's cursor
    "list_files": 8,
    "search_files": 8,
    "delete_file": 3,  # the file is written again the next time it comes up
}

Call = tuple[float, float, str | None]  # finished at (epoch s), seconds, error message or None


async def run_client(index: int, url: str, secret: str, out: list[Call], setup: asyncio.Barrier,
                     go: asyncio.Event, stop: Any) -> None:  # fmt: skip
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    rng = random.Random(index)
    seen: dict[str, int] = {}  # path -> the version this client last read or wrote; absent: deleted
    counters: dict[str, int] = {}  # path -> the counter value in the file
    cursor = 0  # the journal entry this client has read up to
    appended = 0
    operations = list(MIX)
    weights = [MIX[name] for name in operations]
    paths = [f"c{index}/notes-{n}.md" for n in range(FILES_PER_CLIENT)]
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):

        async def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
            started = time.time()
            try:
                result = await client.call_tool(tool, arguments)
            except Exception as error:  # counted as an error, the client goes on
                out.append((time.time(), time.time() - started, f"exception {type(error).__name__}: {error}"[:90]))
                return None
            finished = time.time()
            out.append((finished, finished - started, reply_text(result)[:90] if result.is_error else None))
            return None if result.is_error else dict(result.structured_content or {})

        async def write(path: str) -> None:
            reply = await call("write_file", {"path": path, "content": file_content(rng, 0, rng.randrange(10**6))})
            if reply is not None:
                seen[path], counters[path] = reply["version"], 0

        for path in paths:
            await write(path)
        await setup.wait()
        await go.wait()

        while not stop.is_set():
            operation = rng.choices(operations, weights)[0]
            path = rng.choice(paths)
            if path not in seen and operation in ("read_diff", "read_compact", "read_full", "edit_file",
                                                  "write_file", "delete_file"):  # fmt: skip
                await write(path)
            elif operation.startswith("read_") and operation != "read_log":
                arguments: dict[str, Any] = {"path": path}
                if operation != "read_full":
                    arguments["since_version"] = seen[path]
                if operation == "read_compact":
                    arguments["format"] = "compact"
                reply = await call("read_file", arguments)
                if reply is not None:
                    seen[path] = reply["current_version"]
            elif operation == "edit_file":
                counter = counters[path]
                change = {"old_str": f"counter: {counter}\n", "new_str": f"counter: {counter + 1}\n"}
                reply = await call("edit_file", {"path": path, **change})
                if reply is not None:
                    seen[path], counters[path] = reply["version"], counter + 1
            elif operation == "write_file":
                await write(path)
            elif operation == "delete_file":
                if await call("delete_file", {"path": path}) is not None:
                    del seen[path], counters[path]
            elif operation == "append_log":
                appended += 1
                await call("append_log", {"path": "team/journal", "entry": f"c{index} step {appended}: "
                                          + note_line(rng, appended)})  # fmt: skip
            elif operation == "read_log":
                reply = await call("read_log", {"path": "team/journal", "since_entry": cursor, "limit": LOG_PAGE})
                if reply is not None:
                    cursor = reply["last_entry_id"]
            elif operation == "list_files":
                await call("list_files", {"prefix": f"c{index}/"})
            else:
                await call("search_files", {"query": rng.choice(WORDS), "max_results": 10})


def client_process(indexes: list[int], urls: list[str], secrets: list[str], queue: Any, go: Any, stop: Any) -> None:
    """Run the clients `indexes` (client i on urls[i % replicas] with secrets[i]); report to `queue`:
    ("ready",) once all are connected and set up, ("calls", [...]) batches, then ("done",) or ("failed", why)."""

    async def main() -> None:
        out: list[Call] = []
        setup = asyncio.Barrier(len(indexes) + 1)
        started = asyncio.Event()
        tasks = [
            asyncio.create_task(run_client(i, urls[i % len(urls)], secrets[i], out, setup, started, stop))
            for i in indexes
        ]
        waiting = asyncio.create_task(setup.wait())
        await asyncio.wait([waiting, *tasks], return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            if task.done():
                task.result()  # a client that failed to set up
        queue.put(("ready",))
        await asyncio.to_thread(go.wait)
        out.clear()  # the setup's calls are not measured
        started.set()
        running = asyncio.gather(*tasks)
        while not running.done():
            await asyncio.wait([running], timeout=FLUSH_EVERY)
            batch, out[:] = list(out), []
            queue.put(("calls", batch))
        running.result()

    try:
        asyncio.run(main())
    except BaseException as error:
        queue.put(("failed", f"{type(error).__name__}: {error}"))
        raise
    queue.put(("done",))


# --------------------------------------------------------------------------------------------------------------
# soak


FLAT = 1.10  # max / min of the per-interval values after the warm-up
GRACE = 2.0  # seconds after an interval's end for its calls' batches to arrive
READY_TIMEOUT = 240.0


def create_keys(database: str, agents: list[str]) -> list[str]:
    """`scratchpad-mcp --database URL keys create --agent NAME` for each agent, at once; the secrets."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRATCHPAD_")}
    processes = [
        subprocess.Popen(
            [*server_command(), "--database", database, "keys", "create", "--agent", agent, "--label", "soak"],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for agent in agents
    ]
    secrets = []
    for agent, process in zip(agents, processes, strict=True):
        out, err = process.communicate(timeout=START_TIMEOUT)
        if process.returncode != 0:
            raise RuntimeError(f"keys create --agent {agent} exited {process.returncode}: {err}")
        secrets.append(out.strip())
    return secrets


def sample(replica: Replica) -> dict[str, float]:
    fds = len(os.listdir(f"/proc/{replica.process.pid}/fd"))
    return {"rss_mib": round(replica.rss_kib() / 1024, 1), "fds": fds}


def interval_row(number: int, length: float, calls: list[Call], replicas: list[dict[str, float]]) -> dict[str, Any]:
    seconds = [c[1] for c in calls]
    return {
        "minute": number,
        "calls": len(calls),
        "calls_per_s": round(len(calls) / length, 1),
        "p50_ms": round(percentile(seconds, 50) * 1000, 1),
        "p99_ms": round(percentile(seconds, 99) * 1000, 1),
        "errors": sum(1 for c in calls if c[2] is not None),
        "replicas": replicas,
        "load": round(os.getloadavg()[0], 2),  # the machine's 1-minute load average at the interval's end
    }


def headers(replicas: int) -> list[str]:
    names = ["minute", "calls/s", "p50 ms", "p99 ms", "errors"]
    return [*names, *(f"r{n + 1} {what}" for n in range(replicas) for what in ("RSS MiB", "fds")), "load"]


def cells(row: dict[str, Any]) -> list[str]:
    values = [row["minute"], row["calls_per_s"], row["p50_ms"], row["p99_ms"], row["errors"]]
    values += [v for r in row["replicas"] for v in (r["rss_mib"], r["fds"])] + [row["load"]]
    return [str(v) for v in values]


def line(values: list[str], widths: list[int]) -> str:
    return "| " + " | ".join(v.rjust(w) for v, w in zip(values, widths, strict=True)) + " |"


def flat(name: str, values: list[float], unit: str) -> dict[str, Any]:
    low, high = min(values), max(values)
    ratio = high / low if low > 0 else float("inf")
    figures = f"{low:g}-{high:g} {unit}, max/min {ratio:.2f}"
    return {"check": name, "met": ratio <= FLAT, "figures": figures}


def verdict(rows: list[dict[str, Any]], errors: Counter[str]) -> list[dict[str, Any]]:
    after = rows[1:] or rows  # the first interval is the warm-up
    checks = [
        flat("calls/s flat", [r["calls_per_s"] for r in after], "calls/s"),
        flat("p99 flat", [r["p99_ms"] for r in after], "ms"),
    ]
    for n in range(len(rows[0]["replicas"])):
        checks.append(flat(f"r{n + 1} RSS flat", [r["replicas"][n]["rss_mib"] for r in after], "MiB"))
        checks.append(flat(f"r{n + 1} fds flat", [r["replicas"][n]["fds"] for r in after], "fds"))
    total = sum(errors.values())
    top = "; ".join(f"{count} x {message}" for message, count in errors.most_common(3))
    checks.append({"check": "no error", "met": total == 0, "figures": f"{total} errors" + (f": {top}" if top else "")})
    return checks


Rows = list[dict[str, Any]]


def drive(args: argparse.Namespace, replicas: list[Replica], secrets: list[str]) -> tuple[Rows, Counter[str]]:
    """Run the clients for the duration, printing a row per interval; the rows and the error messages."""
    context = multiprocessing.get_context("spawn")
    queue, go, stop = context.Queue(), context.Event(), context.Event()
    urls = [r.mcp_url for r in replicas]
    groups = [list(range(args.clients))[p :: args.client_processes] for p in range(args.client_processes)]
    agent_secrets = [secrets[i % len(secrets)] for i in range(args.clients)]
    processes = [
        context.Process(target=client_process, args=(g, urls, agent_secrets, queue, go, stop)) for g in groups if g
    ]
    for process in processes:
        process.start()
    buckets: dict[int, list[Call]] = {}
    errors: Counter[str] = Counter()
    finished = 0
    start = end = 0.0

    def receive(until: float, ready: bool = False) -> None:
        nonlocal finished
        while time.time() < until and finished < len(processes):
            try:
                message = queue.get(timeout=max(0.01, min(0.5, until - time.time())))
            except queues.Empty:
                continue
            if message[0] == "failed":
                raise RuntimeError(f"a client process failed: {message[1]}")
            if message[0] in ("ready", "done"):
                finished += 1
                if ready and finished == len(processes):
                    return
            for call in message[1] if message[0] == "calls" else []:
                if start <= call[0] < end:
                    buckets.setdefault(int((call[0] - start) // args.interval), []).append(call)
                    if call[2] is not None:
                        errors[call[2]] += 1

    try:
        receive(time.time() + READY_TIMEOUT, ready=True)
        if finished < len(processes):
            raise RuntimeError(f"clients not ready within {READY_TIMEOUT:g} s")
        finished = 0
        start = time.time()
        end = start + args.minutes * 60
        go.set()
        count = max(1, math.ceil(args.minutes * 60 / args.interval - 1e-9))
        widths = [max(len(h), 7) for h in headers(len(replicas))]
        print(line(headers(len(replicas)), widths))
        print("|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|", flush=True)
        rows = []
        for n in range(count):
            boundary = min(end, start + (n + 1) * args.interval)
            receive(boundary)
            samples = [sample(r) for r in replicas]
            if n == count - 1:
                stop.set()
                receive(time.time() + 120)  # until every process is done
            else:
                receive(boundary + GRACE)
            length = boundary - (start + n * args.interval)
            rows.append(interval_row(n + 1, length, buckets.pop(n, []), samples))
            print(line(cells(rows[-1]), widths), flush=True)
    finally:
        stop.set()
        go.set()
        for process in processes:
            process.join(timeout=60)
            if process.is_alive():
                process.kill()
    return rows, errors


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--agents", type=int, default=4, help="the clients share these agents' keys")
    parser.add_argument("--database", help="an existing Postgres database to use (default: a new one, dropped)")
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES),
                        help="where to create the database without --database")  # fmt: skip
    parser.add_argument("--interval", type=float, default=60.0, help="seconds per row (a minute)")
    parser.add_argument("--client-processes", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the rows and the verdict to this file")
    args = parser.parse_args(argv)
    args.agents = max(1, min(args.agents, args.clients))

    admin = make_url(args.postgres)
    if admin.drivername == "postgresql":
        admin = admin.set(drivername="postgresql+psycopg")
    admin_url = admin.render_as_string(hide_password=False)
    database = args.database or create_database(admin_url, "scratchpad_soak")
    folder = Path(tempfile.mkdtemp(prefix="scratchpad-soak-"))
    replicas: list[Replica] = []
    load_before = os.getloadavg()
    try:
        replicas = [start_replica(f"replica-{n + 1}", database, folder, {}) for n in range(args.replicas)]
        for replica in replicas:
            replica.wait_healthy(START_TIMEOUT)
        secrets = create_keys(database, [f"soak-{n + 1}" for n in range(args.agents)])
        print(f"# Soak: {args.clients} clients ({args.agents} agents), {args.replicas} replicas, Postgres, "
              f"{args.minutes:g} min; code {code_version()}, cpus {os.cpu_count()}, python "
              f"{sys.version.split()[0]}, load average {load_before[0]:.2f} at start")  # fmt: skip
        print()
        rows, errors = drive(args, replicas, secrets)
        logs = [f"{r.name} log: {server_log_summary(r)}" for r in replicas]
    finally:
        for replica in replicas:
            replica.stop()
            replica.log.unlink(missing_ok=True)
        folder.rmdir()
        if not args.database:
            drop_database(admin_url, database)

    load_after = os.getloadavg()
    checks = verdict(rows, errors)
    print()
    print(f"load average {load_before[0]:.2f} at start, {load_after[0]:.2f} / {load_after[1]:.2f} / "
          f"{load_after[2]:.2f} (1 / 5 / 15 min) at the end")  # fmt: skip
    print(*logs, sep="\n")
    print()
    print("verdict (after the first minute):")
    for check in checks:
        print(f"  {check['check']}: {'MET' if check['met'] else 'MISSED'} ({check['figures']})")
    if args.json:
        summary = {"rows": rows, "verdict": checks, "load_average": [load_before, load_after], "args": vars(args)}
        args.json.write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
