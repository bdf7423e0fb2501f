"""Write and append throughput with 1, 4 and 8 concurrent client processes, on SQLite and Postgres.

    uv run python -m bench.throughput [--postgres URL] [--seconds 5] [--clients 1 4 8]

Each client process opens its own store (its own connection pool) on the same database and
acts as its own agent, like a team of agents sharing one deployment. Reports calls/s, p50 and
p99 latency and errors per configuration, and the speed-up of N clients over one.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import tempfile
import time
from multiprocessing.synchronize import Barrier

from bench.common import create_database, drop_database
from scratchpad_adapters import open_store

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def client(url: str, operation: str, seconds: float, barrier: Barrier, queue: multiprocessing.Queue[object]) -> None:
    agent = f"bench-{os.getpid()}"
    latencies: list[float] = []
    errors = 0
    with open_store(url, upgrade=False) as store:
        store.write_file(agent, "warm.md", "warm-up\n")
        barrier.wait()
        deadline = time.perf_counter() + seconds
        i = 0
        while (started := time.perf_counter()) < deadline:
            try:
                if operation == "write":
                    store.write_file(agent, f"notes/{i % 20}.md", f"line {i}\n" * 40)
                else:
                    store.append_log(agent, "events", f"event {i}: something happened")
            except Exception:
                errors += 1
            latencies.append(time.perf_counter() - started)
            i += 1
    queue.put((latencies, errors))


def run(url: str, operation: str, clients: int, seconds: float) -> tuple[float, float, float, int]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(clients)
    queue: multiprocessing.Queue[object] = context.Queue()
    processes = [context.Process(target=client, args=(url, operation, seconds, barrier, queue)) for _ in range(clients)]
    for process in processes:
        process.start()
    results: list[tuple[list[float], int]] = [queue.get() for _ in processes]  # type: ignore[misc]
    for process in processes:
        process.join()
    latencies = [lat for lats, _ in results for lat in lats]
    errors = sum(err for _, err in results)
    ordered = sorted(latencies)
    p99 = ordered[int(len(ordered) * 0.99) - 1]
    return len(latencies) / seconds, statistics.median(ordered) * 1000, p99 * 1000, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 8])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"])
    args = parser.parse_args()

    print(f"cpus={os.cpu_count()} seconds per run={args.seconds}")
    print("| backend | operation | clients | calls/s | p50 ms | p99 ms | errors | speed-up vs 1 |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for backend in args.backends:
        workdir = tempfile.mkdtemp(prefix="scratchpad-bench-")
        url = (
            f"sqlite:///{workdir}/bench.db"
            if backend == "sqlite"
            else create_database(args.postgres, "scratchpad_bench")
        )
        open_store(url).close()  # migrate once, before the clients start
        try:
            for operation in ("write", "append"):
                base = None
                for clients in args.clients:
                    rate, p50, p99, errors = run(url, operation, clients, args.seconds)
                    base = base or rate
                    print(f"| {backend} | {operation} | {clients} | {rate:,.0f} | {p50:.2f} | {p99:.2f} | {errors} "
                          f"| {rate / base:.2f}x |", flush=True)  # fmt: skip
        finally:
            if backend == "postgres":
                drop_database(args.postgres, url)


if __name__ == "__main__":
    main()
