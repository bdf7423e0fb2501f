"""Write and append throughput with 1, 4 and 8 concurrent client processes, on SQLite and Postgres.

    uv run python -m bench.throughput [--postgres URL] [--seconds 5] [--clients 1 4 8]

Each client process opens its own store (its own connection pool) on the same database and
acts as its own agent, like a team of agents sharing one deployment. Reports calls/s, p50 and
p99 latency and errors per configuration, and the speed-up of N clients over one.
"""

from __future__ import annotations

import argparse
import os
import tempfile

from bench.common import DEFAULT_POSTGRES, create_database, drop_database, run
from scratchpad_adapters import open_store


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
