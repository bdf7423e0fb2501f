"""The Postgres rows of bench.speed: writes and appends with 8 client processes against 1 (ours only: the original
has no Postgres), each client process its own store and agent, as in bench.throughput; rounds interleave 1 and 8."""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict

from bench.common import create_database, drop_database
from bench.throughput import run
from scratchpad_adapters import open_store

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
