"""In-process writes on PostgreSQL, a release from git history against this tree, in alternating blocks (issue 29).

    uv run python -m bench.write_ab [--release a42ecc5] [--blocks 20] [--calls 50] [--postgres URL]

bench.search_scale's `writes` runs each release's calls one after the other; on a machine shared with other work
the load moves between them by more than the difference measured. Here both stay up at once, each in its own
process on its own fresh database (a release's packages taken from git history), and take turns by blocks of
--calls calls (the first alternating block by block): write_file of 1 KiB (a new first line each time), then
append_log of 200 B. The figure is the median over the blocks of this tree's throughput over the release's, with
its quartiles: a load swing meets both sides of a block pair alike. Figures only; they go to the README.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import DEFAULT_POSTGRES, ROOT, create_database, drop_database, release_from_history

WORKER = r"""
import sys, time
from scratchpad_adapters import open_store
store = open_store(sys.argv[1])
body, words, n = "body text " * 100, "y" * 190, [0]
def write(): n[0] += 1; store.write_file("w", "small.md", f"# rev {n[0]}\n" + body)
def append(): n[0] += 1; store.append_log("w", "a.log", f"entry {n[0]} " + words)
ops = {"write": write, "append": append}
for op in ops.values():
    for _ in range(50): op()
print("ready", flush=True)
for line in sys.stdin:
    name, count = line.split()
    started = time.perf_counter()
    for _ in range(int(count)): ops[name]()
    print(time.perf_counter() - started, flush=True)
"""


def worker(code: Path, url: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", WORKER, url], cwd=code, text=True, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(code)})  # fmt: skip
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def block(process: subprocess.Popen[str], op: str, calls: int) -> float:
    """Milliseconds a call over one block of `calls` calls."""
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"{op} {calls}\n")
    process.stdin.flush()
    return float(process.stdout.readline()) / calls * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--release", default="a42ecc5")
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        code = release_from_history(args.release, Path(folder) / args.release)
        if code is None:
            sys.exit(f"{args.release} is not in git history")
        urls = [create_database(args.postgres, "bench_ab") for _ in range(2)]
        processes = {args.release: worker(code, urls[0]), "this": worker(ROOT, urls[1])}
        try:
            for op in ("write", "append"):
                times: dict[str, list[float]] = {name: [] for name in processes}
                for number in range(args.blocks):
                    for name in list(processes)[:: 1 if number % 2 == 0 else -1]:
                        times[name].append(block(processes[name], op, args.calls))
                ratios = [before / after for before, after in zip(times[args.release], times["this"], strict=True)]
                low, median, high = statistics.quantiles(ratios, n=4)
                print(
                    f"{op}: {args.release} {statistics.median(times[args.release]):.2f} ms a call, this "
                    f"{statistics.median(times['this']):.2f} ms; throughput this/{args.release} {median:.2f} "
                    f"(quartiles {low:.2f}-{high:.2f}; {args.blocks} block pairs of {args.calls})",
                    flush=True,
                )
        finally:
            for process in processes.values():
                if process.stdin is not None:
                    process.stdin.close()
                process.wait()
            for url in urls:
                drop_database(args.postgres, url)


if __name__ == "__main__":
    main()
