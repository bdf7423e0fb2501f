"""Word search at scale, and what the index costs writers (issues 22 and 29), in process through the library.

    uv run python -m bench.search_scale [--only size agents writes stdio] [--postgres URL] [--queries 50]

- size: search time on an agent holding ~100 MiB in 1,000 files against one holding 1 MiB (10 files), on SQLite
  and PostgreSQL, in three regimes: steady (no backlog: the median of --queries questions, each a few words of
  the store's own vocabulary, frequent and rare, and common English words); the first search right after a burst
  of 1,000 writes (one-line edits of each file's first line, spread evenly over the store's files: 1 a file in
  the large store, 100 a file in the small one), whatever catching up it pays included (median of --bursts);
  and a steady mix of one search per 50 such edits (the median of 20 searches, catch-up included). In process:
  no background pass runs (a server's runs while no call comes), so a search pays for the whole backlog. Text
  is drawn from a vocabulary of 30,000 words with Zipf frequencies (as in real text a few words are everywhere
  and most are rare), 80-character lines.
- agents: on PostgreSQL, one agent's search (it holds --agent-kib, 100 KiB) alone in its database, and among
  1,000 agents holding as much each.
- writes: the release before the index (a42ecc5; its packages taken from git history) side by side with this
  one, each in its own process on a SQLite file and on PostgreSQL: write_file of 1 KiB (a new first line each
  time), append_log of 200 B, and a one-line edit_file of a ~1 MiB file (medians over --calls calls, after a
  warm-up).
- stdio: the same two releases as servers over stdio (SQLite), both up at once, a real MCP client calling
  write_file of 1 KiB, then append_log of 200 B, on each in turn (the first alternates round by round): calls per
  second, as issue 29's targets are put (at least 0.9x the previous release's throughput).

Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
from mcp import ClientSession

from bench.common import (
    ROOT,
    SCALE_LIMITS,
    Text,
    create_database,
    drop_database,
    fill,
    markdown_file,
    markdown_table,
    release_from_history,
    stdio_server,
)
from scratchpad_adapters import open_store
from scratchpad_core.service import Scratchpad

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
PREVIOUS = "a42ecc5"  # the release before the index (issue 22)
LIMITS = SCALE_LIMITS


BURST = 1000  # writes in a burst
MIX = 50  # writes between two searches in the steady mix
MIX_SEARCHES = 20


class Editor:
    """One-line edits of the first line of each of an agent's files, in turn (a new line of the store's text)."""

    def __init__(self, store: Scratchpad, agent: str, text: Text) -> None:
        self.store, self.agent, self.text = store, agent, text
        self.paths = [info.path for info in store.list_files(agent).files]
        self.first = {p: (store.read_file(agent, p, max_lines=1).content or "").rstrip("\n") for p in self.paths}
        self.turn = 0

    def edits(self, count: int) -> None:
        for _ in range(count):
            path = self.paths[self.turn % len(self.paths)]
            self.turn += 1
            new = self.text.line()
            self.store.edit_file(self.agent, path, self.first[path], new)
            self.first[path] = new


def timed_ms(store: Scratchpad, agent: str, query: str) -> float:
    started = time.perf_counter()
    store.search_files(agent, query)
    return (time.perf_counter() - started) * 1000


def after_burst_ms(editor: Editor, queries: list[str], bursts: int) -> float:
    """The first search after each burst of BURST edits: the median."""
    times = []
    for n in range(bursts):
        editor.edits(BURST)
        times.append(timed_ms(editor.store, editor.agent, queries[n % len(queries)]))
    return statistics.median(times)


def mixed_ms(editor: Editor, queries: list[str]) -> float:
    """One search per MIX edits, MIX_SEARCHES times: the median search."""
    times = []
    for n in range(MIX_SEARCHES):
        editor.edits(MIX)
        times.append(timed_ms(editor.store, editor.agent, queries[n % len(queries)]))
    return statistics.median(times)


def median_ms(store: Scratchpad, agent: str, queries: list[str]) -> float:
    store.search_files(agent, queries[0])  # warm
    times = []
    for query in queries:
        started = time.perf_counter()
        store.search_files(agent, query)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


@contextmanager
def database(kind: str, postgres: str, keep: Path | None = None) -> Iterator[str]:
    if kind == "sqlite" and keep is not None:
        yield f"sqlite:///{keep.resolve()}"
    elif kind == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/scale.db"
    else:
        url = create_database(postgres, "bench_scale")
        try:
            yield url
        finally:
            drop_database(postgres, url)


def size_rows(postgres: str, queries: int, backends: list[str], keep: Path | None, bursts: int) -> list[list[str]]:
    rows = []
    for kind in backends:
        with database(kind, postgres, keep) as url:
            store = open_store(url, limits=LIMITS)
            try:
                text = Text()
                asked = [text.question() for _ in range(queries)]
                if not store.list_files("large", limit=1).files:  # a kept SQLite file is filled once
                    fill(store, "small", 10, 100 * 1024, text, f"{kind} 1 MiB")
                    fill(store, "large", 1000, 100 * 1024, text, f"{kind} 100 MiB")
                small, large = median_ms(store, "small", asked), median_ms(store, "large", asked)
                rows.append([kind, "steady", f"{small:.1f}", f"{large:.1f}", f"{large / small:.2f}"])
                seed = random.SystemRandom().randrange(1 << 30)  # new lines, also on a kept file edited before
                editors = [Editor(store, agent, Text(seed=seed)) for agent in ("small", "large")]
                small, large = (after_burst_ms(editor, asked, bursts) for editor in editors)
                rows.append([kind, f"first after {BURST:,} writes", f"{small:.1f}", f"{large:.1f}",
                             f"{large / small:.2f}"])  # fmt: skip
                small, large = (mixed_ms(editor, asked) for editor in editors)
                rows.append([kind, f"1 search a {MIX} writes", f"{small:.1f}", f"{large:.1f}", f"{large / small:.2f}"])
                print(f"  {kind}: {rows[-3:]}", file=sys.stderr, flush=True)
            finally:
                store.close()
    return rows


def agents_rows(postgres: str, queries: int, size: int) -> list[list[str]]:
    text = Text(seed=9)
    asked = [text.question() for _ in range(queries)]
    times = []
    for others in (0, 999):
        with database("postgres", postgres) as url:
            store = open_store(url, limits=LIMITS)
            try:
                fill(store, "me", 1, size, Text(seed=9), "me")
                for n in range(others):
                    store.write_file(f"other-{n:04d}", "notes.md", text.file(size))
                    if n % 100 == 99:
                        print(f"  {n + 1} other agents", file=sys.stderr, flush=True)
                times.append(median_ms(store, "me", asked))
            finally:
                store.close()
    return [["postgres", f"{times[0]:.1f}", f"{times[1]:.1f}", f"{times[1] / times[0]:.2f}"]]


WRITER = """
import json, statistics, sys, time
from bench.common import markdown_file
from scratchpad_adapters import open_store
url, calls = sys.argv[1], int(sys.argv[2])
store = open_store(url)
body = "\\n".join(markdown_file(40, seed=11).split("\\n")[1:])
def kib(n): return (f"# revision {n}\\n" + body)[:1024]
lines = markdown_file(22_000, seed=3).split("\\n")
big = "\\n".join(lines)[:1_000_000]
store.write_file("w", "big.md", big)
def timed(step, n):
    for i in range(max(3, n // 10)): step(-1 - i)
    times = []
    for i in range(n):
        started = time.perf_counter(); step(i); times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000
def write(i): store.write_file("w", "small.md", kib(i + 100_000))
words = " ".join(markdown_file(8, seed=17).split("\\n")[1:])
def append(i): store.append_log("w", "actions.log", f"[{i + 100_000:06d}] {words}"[:200].ljust(200, "."))
state = {"text": lines[500]}
def edit(i):
    new = f"edited line {i} of the big file"
    store.edit_file("w", "big.md", state["text"], new); state["text"] = new
print(json.dumps({"write": timed(write, calls), "append": timed(append, calls), "edit": timed(edit, calls)}))
store.close()
"""


def previous_release(folder: Path) -> Path | None:
    return release_from_history(PREVIOUS, folder)


def run_writer(code: Path, url: str, calls: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(WRITER), url, str(calls)], cwd=code, text=True,
                          env={**os.environ, "PYTHONPATH": str(code)}, capture_output=True, check=True)  # fmt: skip
    result: dict[str, float] = json.loads(done.stdout)
    return result


def writes_rows(postgres: str, calls: int, rounds: int) -> list[list[str]]:
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory() as folder:
        previous = previous_release(Path(folder))
        if previous is None:
            print(f"the previous release ({PREVIOUS}) is not in git history: no side by side", file=sys.stderr)
            return rows
        for kind in ("sqlite", "postgres"):
            figures: dict[str, list[dict[str, float]]] = {"previous": [], "this": []}
            for round_ in range(rounds):
                order: list[tuple[str, Path]] = [("previous", previous), ("this", ROOT)]
                for name, code in order if round_ % 2 == 0 else order[::-1]:
                    with database(kind, postgres) as url:
                        figures[name].append(run_writer(code, url, calls))
            ops = (
                ("write", "write_file 1 KiB"),
                ("append", "append_log 200 B"),
                ("edit", "edit_file, 1 line of ~1 MiB"),
            )
            for op, label in ops:
                before = statistics.median(f[op] for f in figures["previous"])
                after = statistics.median(f[op] for f in figures["this"])
                rows.append([kind, label, f"{before:.2f}", f"{after:.2f}", f"{after / before:.2f}",
                             f"{before / after:.2f}"])  # fmt: skip
    return rows


async def call_rate(session: ClientSession, op: str, calls: int) -> float:
    """Calls per second of write_file 1 KiB (a new first line each time) or append_log 200 B, after a warm-up."""
    body = "\n".join(markdown_file(40, seed=11).split("\n")[1:])
    words = " ".join(markdown_file(8, seed=17).split("\n")[1:])

    async def write(n: int) -> None:
        if op == "write":
            content = (f"# revision {n}\n" + body)[:1024]
            arguments = {"agent_id": "w", "path": "small.md", "content": content}
        else:
            arguments = {"agent_id": "w", "path": "actions.log", "entry": f"[{n:06d}] {words}"[:200].ljust(200, ".")}
        result = await session.call_tool("write_file" if op == "write" else "append_log", arguments)
        assert not result.is_error, result

    for n in range(max(3, calls // 10)):
        await write(-1 - n)
    started = time.perf_counter()
    for n in range(calls):
        await write(n)
    return calls / (time.perf_counter() - started)


STDIO_OPS = {"write": "write_file 1 KiB", "append": "append_log 200 B"}


async def stdio_throughput(previous: Path, folder: Path, calls: int, rounds: int) -> dict[str, list[float]]:
    """Both releases up at once; each round measures one, then the other (the first alternates), each op."""
    releases = {"previous": previous, "this": ROOT}
    rates: dict[str, list[float]] = {f"{name} {op}": [] for name in releases for op in STDIO_OPS}
    for number in range(rounds):
        async with contextlib.AsyncExitStack() as stack:
            sessions = {name: await stack.enter_async_context(stdio_server(code, folder / f"{name}-{number}.db"))
                        for name, code in releases.items()}  # fmt: skip
            order = list(sessions) if number % 2 == 0 else list(sessions)[::-1]
            for op in STDIO_OPS:
                for name in order:
                    rates[f"{name} {op}"].append(await call_rate(sessions[name], op, calls))
    return rates


def stdio_rows(calls: int, rounds: int) -> list[list[str]]:
    with tempfile.TemporaryDirectory() as folder:
        previous = previous_release(Path(folder) / "previous")
        if previous is None:
            print(f"the previous release ({PREVIOUS}) is not in git history: no side by side", file=sys.stderr)
            return []
        rates = anyio.run(stdio_throughput, previous, Path(folder), calls, rounds)
    rows = []
    for op, label in STDIO_OPS.items():
        before, after = statistics.median(rates[f"previous {op}"]), statistics.median(rates[f"this {op}"])
        rows.append(["sqlite, stdio", label, f"{before:.0f}", f"{after:.0f}", f"{after / before:.2f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=["size", "agents", "writes", "stdio"])
    parser.add_argument("--postgres", default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", DEFAULT_POSTGRES))
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--backends", default="sqlite,postgres", help="for size")
    parser.add_argument("--agent-kib", type=int, default=100, help="agents: what each agent holds")
    parser.add_argument("--keep", type=Path, default=None, help="size: a SQLite file to fill once and reuse")
    parser.add_argument("--bursts", type=int, default=3, help="size: bursts of 1,000 writes, a first search each")
    args = parser.parse_args()
    steps: dict[str, Callable[[], None]] = {
        "size": lambda: print(markdown_table(
            ["backend", "regime", "1 MiB: ms/search", "100 MiB in 1,000 files: ms/search", "ratio"],
            size_rows(args.postgres, args.queries, args.backends.split(","), args.keep, args.bursts),
            right=[2, 3, 4])),
        "agents": lambda: print(markdown_table(
            ["backend", "alone: ms/search", "among 1,000 agents: ms/search", "ratio"],
            agents_rows(args.postgres, args.queries, args.agent_kib * 1024), right=[1, 2, 3])),
        "writes": lambda: print(markdown_table(
            ["backend", "call", "previous ms", "this ms", "cost ratio", "throughput ratio"],
            writes_rows(args.postgres, args.calls, args.rounds), right=[2, 3, 4, 5])),
        "stdio": lambda: print(markdown_table(
            ["backend", "call", "previous calls/s", "this calls/s", "throughput ratio"],
            stdio_rows(args.calls * 3, args.rounds * 2), right=[2, 3, 4])),
    }  # fmt: skip
    for name in args.only:
        steps[name]()
        print()


if __name__ == "__main__":
    main()
