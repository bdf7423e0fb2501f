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
import json
import math
import multiprocessing
import os
import queue as queues
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from bench.common import code_version, create_database, drop_database, percentile, server_command
from bench.http_load import DEFAULT_POSTGRES, START_TIMEOUT, Replica, server_log_summary, start_replica
from bench.soak_clients import Call, client_process

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
