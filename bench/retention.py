"""Target (issue 24): an append to a log at its retention limit costs at most 1.3x an append to a log without a rule.

    uv run python -m bench.retention [--backends sqlite,postgres,memory] [--keep N] [--appends N] [--postgres URL]

Side by side in one run, on one store per backend: agent "free" has no rule at all; agent "capped" keeps the newest
--keep entries of its log, filled to that limit first, so that each measured append drops exactly one entry (and
its search rows) in its own transaction; a third, "aged", keeps entries younger than 30 days (nothing is old
enough to go: the cost of the check). Appends alternate between the logs, in rounds, so that drift (the WAL
growing, a checkpoint, autovacuum) falls on both alike. Each time is one library append_log call, wall clock.
Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import create_database, drop_database, markdown_table, note_line, percentile
from scratchpad_adapters import open_store
from scratchpad_core.service import Scratchpad

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
LOGS = {"free": None, "capped": "keep", "aged": "age"}


def measure(store: Scratchpad, keep: int, appends: int) -> dict[str, list[float]]:
    rng = random.Random(24)
    store.set_retention("capped", logs="run.log", keep_entries=keep)
    store.set_retention("aged", logs="run.log", max_age="30d")
    for agent in LOGS:  # every log as long as the capped one at its limit
        for number in range(keep):
            store.append_log(agent, "run.log", note_line(rng, number))
    times: dict[str, list[float]] = {agent: [] for agent in LOGS}
    for number in range(appends):
        order = list(LOGS) if number % 2 == 0 else list(reversed(LOGS))
        for agent in order:
            entry = note_line(rng, keep + number)
            start = time.perf_counter()
            store.append_log(agent, "run.log", entry)
            times[agent].append(time.perf_counter() - start)
    assert store.read_log("capped", "run.log").total == keep  # at its limit all along
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres,memory")
    parser.add_argument("--keep", type=int, default=1000)
    parser.add_argument("--appends", type=int, default=1000)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    args = parser.parse_args()
    rows = []
    for backend in args.backends.split(","):
        with tempfile.TemporaryDirectory() as folder:
            url = {"sqlite": f"sqlite:///{Path(folder) / 'bench.db'}", "memory": "memory://"}.get(backend)
            if url is None:
                url = create_database(args.postgres, "bench_retention")
            try:
                with open_store(url) as store:
                    times = measure(store, args.keep, args.appends)
            finally:
                if backend == "postgres":
                    drop_database(args.postgres, url)
        free = times["free"]
        for agent in LOGS:
            ms = [t * 1000 for t in times[agent]]
            mean = statistics.mean(times[agent]) / statistics.mean(free)
            median = statistics.median(times[agent]) / statistics.median(free)
            rows.append(
                [backend, agent, f"{statistics.median(ms):.3f}", f"{percentile(ms, 95):.3f}",
                 f"{statistics.mean(ms):.3f}", f"{mean:.2f}x", f"{median:.2f}x"]
            )  # fmt: skip
    print(f"{args.appends} appends to each log, after {args.keep} entries (capped: keep {args.keep}; aged: 30d)")
    headers = ["backend", "log", "median ms", "p95 ms", "mean ms", "mean vs free", "median vs free"]
    print(markdown_table(headers, rows, right=[2, 3, 4, 5, 6]))


if __name__ == "__main__":
    main()
