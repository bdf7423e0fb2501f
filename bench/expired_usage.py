"""Target (issue 28): expired files count nowhere at a cost that does not grow with the agent's number of files.

    uv run python -m bench.expired_usage [--backends sqlite,postgres] [--sizes 1000,10000] [--calls N]
                                         [--postgres URL]

For each size N, one store per backend holds two agents with N long-lived files under notes/ (written two hours
before the measurement, so older than the rule's max-age) and 64 files under tmp/: "ruled" has the rule
`--files tmp/ --max-age 1h`, which makes all 64 expired (not yet pruned); "free" has no rule. Measured, each a
library call on the wall clock:
- get_usage_stats of each agent (--calls calls, alternating): the ruled agent's adds a range scan of its expired
  files (their count and bytes come off its counters);
- a write that the file quota (N + 64) would refuse while the 64 expired files count: it deletes them first, in
  its own transaction, and is accepted (5 rounds, each with 64 newly expired files);
and, for reference, a plain write of the same agent with nothing to make room for.
Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import create_database, drop_database, markdown_table
from scratchpad_adapters.factory import open_backend
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
EXPIRED = 64
HOUR = 3_600_000
ROUNDS = 5


class Clock:
    def __init__(self) -> None:
        self.now = time.time_ns() // 1_000_000

    def __call__(self) -> int:
        return self.now


def timed(call: Callable[..., object], *args: str) -> float:
    start = time.perf_counter()
    call(*args)
    return (time.perf_counter() - start) * 1000


def measure(url: str, size: int, calls: int) -> dict[str, float]:
    backend = open_backend(url)
    clock = Clock()
    store = Scratchpad(backend.unit_of_work, Limits(quota_files=size + EXPIRED), clock=clock)
    try:
        store.set_retention("ruled", files="tmp/", max_age="1h")
        clock.now -= 2 * HOUR
        for agent in ("ruled", "free"):
            for number in range(size):
                store.write_file(agent, f"notes/{number:06}.md", f"note {number}\n")
            for number in range(EXPIRED):
                store.write_file(agent, f"tmp/{number:03}.md", f"scratch {number}\n")
        clock.now += 2 * HOUR
        assert store.get_usage_stats("ruled").file_count == size
        stats: dict[str, list[float]] = {"ruled": [], "free": []}
        for number in range(calls):
            for agent in ("ruled", "free") if number % 2 == 0 else ("free", "ruled"):
                stats[agent].append(timed(store.get_usage_stats, agent))
        room, plain = [], []
        for round_number in range(ROUNDS):
            plain.append(timed(store.write_file, "ruled", "notes/000000.md", f"again {round_number}\n"))
            room.append(timed(store.write_file, "ruled", f"new/{round_number}.md", "made room\n"))
            assert store.get_usage_stats("ruled").file_count == size + 1
            store.delete_file("ruled", f"new/{round_number}.md")
            clock.now -= 2 * HOUR  # the next round's expired files: the agent at its file quota again
            for number in range(EXPIRED):
                store.write_file("ruled", f"tmp/{round_number}/{number:03}.md", "scratch\n")
            clock.now += 2 * HOUR
        return {
            "usage ruled": statistics.median(stats["ruled"]),
            "usage free": statistics.median(stats["free"]),
            "write making room": statistics.median(room),
            "plain write": statistics.median(plain),
        }
    finally:
        store.close()
        backend.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    args = parser.parse_args()
    rows = []
    for backend in args.backends.split(","):
        for size in (int(n) for n in args.sizes.split(",")):
            with tempfile.TemporaryDirectory() as folder:
                url = {"sqlite": f"sqlite:///{Path(folder) / 'bench.db'}", "memory": "memory://"}.get(backend)
                if url is None:
                    url = create_database(args.postgres, "bench_expired")
                try:
                    ms = measure(url, size, args.calls)
                finally:
                    if backend == "postgres":
                        drop_database(args.postgres, url)
            rows.append(
                [backend, f"{size:,}", f"{ms['usage ruled']:.3f}", f"{ms['usage free']:.3f}",
                 f"{ms['write making room']:.2f}", f"{ms['plain write']:.3f}"]
            )  # fmt: skip
    print(f"{EXPIRED} expired files (not yet pruned) beside N long-lived ones; medians, ms a call")
    headers = ["backend", "files", "usage (rule)", "usage (no rule)", f"write deleting {EXPIRED}", "plain write"]
    print(markdown_table(headers, rows, right=[1, 2, 3, 4, 5]))


if __name__ == "__main__":
    main()
