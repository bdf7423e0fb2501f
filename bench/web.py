"""The web view's heavy pages: a 1 MiB file with 10 versions, and a 100,000-entry log, against the rest of the store.

Run:  uv run python -m bench.web [--backend sqlite|postgres|both] [--runs 25] [--postgres-url URL]

For each backend it builds two stores through the importer (one transaction each): the subject agent (the file
and the log) beside a small rest (10 other agents) and a large one (200 other agents, 20,000 files, 200,000 log
entries). Each page is fetched through the view's ASGI app in this process (routing, reads through the use
cases, Pygments, Jinja2 and the security headers; no network), `--runs` times after two warm-ups, the two
stores taking turns request by request, and the median is reported. Targets: each file and log page under
200 ms p50, and about the same with the large rest as with the small one (nothing reads more than the agent
and the file or log it shows).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file (python bench/web.py): make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from starlette.testclient import TestClient

from bench.common import code_version, create_database, drop_database, markdown_lines, markdown_table
from scratchpad_adapters.agent_directory import agent_directory
from scratchpad_adapters.factory import open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_adapters.sql.transfer.importer import import_
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.limits import MIB, Limits
from scratchpad_mcp.web.app import build_web_app

TARGET_MS = 200.0
SUBJECT = "subject"
FILE = "notes/plan.md"
LOG = "runs/events.log"
VERSIONS = 10
ENTRIES = 100_000
RESTS = {"small": (10, 10, 100), "large": (200, 100, 1000)}  # other agents, files each, log entries each
LIMITS = Limits(quota_files=10_000, quota_log_entries=ENTRIES, quota_bytes=1024 * MIB)
NOW = 1_764_000_000_000
PAGES = {
    "file page (1 MiB, 10 versions)": f"/a/{SUBJECT}/file/{FILE}",
    "file page, diff v1 → v10": f"/a/{SUBJECT}/file/{FILE}?from=1&to={VERSIONS}",
    "log page (100,000 entries)": f"/a/{SUBJECT}/log/{LOG}",
    "log page, 1,000th older page": f"/a/{SUBJECT}/log/{LOG}?before={ENTRIES - 1000 * 50}",
    "agent page": f"/a/{SUBJECT}",
}


def big_versions() -> list[str]:
    """10 versions of a file just under 1 MiB, each changing a few lines of the one before."""
    lines = markdown_lines(30_000)
    while len(("\n".join(lines) + "\n").encode()) > MIB - 1024:  # room for the changed lines
        lines.pop()
    out = []
    for v in range(VERSIONS):
        lines[100 + 997 * v] = f"- changed in version {v + 1}: {lines[100 + 997 * v]}"[:60]
        out.append("\n".join(lines) + "\n")
    return out


def records(rest: str) -> Iterator[str]:
    """An export holding the subject and the rest."""
    yield _line(type="header", format="scratchpad-export", version=1)
    yield _line(type="agent", agent_id=SUBJECT, operations=0, bytes_saved=0)
    yield _line(type="file", path=FILE, current_version=VERSIONS, created_at=NOW, updated_at=NOW)
    for v, content in enumerate(big_versions(), 1):
        yield _line(type="version", path=FILE, version=v, content=content, created_at=NOW + v)
    yield _line(type="log", path=LOG, last_entry_id=ENTRIES, created_at=NOW, updated_at=NOW)
    for n in range(1, ENTRIES + 1):
        yield _line(type="entry", path=LOG, id=n, entry=f"step {n}: tool call finished in {n % 977} ms", created_at=NOW)
    agents, files_each, entries_each = RESTS[rest]
    note = "\n".join(markdown_lines(40)) + "\n"
    for a in range(agents):
        yield _line(type="agent", agent_id=f"other-{a:04d}", operations=0, bytes_saved=0)
        for f in range(files_each):
            yield _line(type="file", path=f"f/{f:04d}.md", current_version=1, created_at=NOW, updated_at=NOW)
            yield _line(type="version", path=f"f/{f:04d}.md", version=1, content=note, created_at=NOW)
        yield _line(type="log", path="log", last_entry_id=entries_each, created_at=NOW, updated_at=NOW)
        for n in range(1, entries_each + 1):
            yield _line(type="entry", path="log", id=n, entry=f"entry {n}", created_at=NOW)
    yield _line(type="end")


def _line(**record: Any) -> str:
    return json.dumps(record) + "\n"


def load(url: str, rest: str) -> None:
    engine = make_engine(url)
    try:
        migrate.upgrade(engine)
        started = time.perf_counter()
        import_(engine, records(rest), limits=LIMITS)
        print(f"  loaded the {rest} store in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    finally:
        engine.dispose()


def measure(urls: dict[str, str], runs: int) -> dict[str, dict[str, float]]:
    """p50 of each page on each store; the stores take turns request by request, so a change in the machine's
    load falls on both alike."""
    backends = {rest: open_backend(url, limits=LIMITS) for rest, url in urls.items()}
    try:
        clients = {
            rest: TestClient(build_web_app(viewing_store(b), agent_directory(b))) for rest, b in backends.items()
        }
        results: dict[str, dict[str, float]] = {rest: {} for rest in urls}
        for name, page in PAGES.items():
            times: dict[str, list[float]] = {rest: [] for rest in urls}
            for run in range(runs + 2):  # two warm-ups
                for rest, client in clients.items():
                    start = time.perf_counter()
                    response = client.get(page)
                    assert response.status_code == 200, page
                    if run >= 2:
                        times[rest].append((time.perf_counter() - start) * 1000)
            for rest in urls:
                results[rest][name] = statistics.median(times[rest])
        return results
    finally:
        for backend in backends.values():
            backend.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--runs", type=int, default=25)
    parser.add_argument(
        "--postgres-url",
        default=os.environ.get("SCRATCHPAD_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
        help="a server whose user may create databases (one is made per store and dropped after)",
    )
    args = parser.parse_args(argv)
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    results: dict[tuple[str, str], dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        for backend in backends:
            print(f"{backend}:", file=sys.stderr)
            if backend == "sqlite":
                urls = {rest: f"sqlite:///{Path(folder) / f'{rest}.db'}" for rest in RESTS}
            else:
                urls = {rest: create_database(args.postgres_url, "scratchpad_bench_web") for rest in RESTS}
            try:
                for rest, url in urls.items():
                    load(url, rest)
                for rest, pages in measure(urls, args.runs).items():
                    results[backend, rest] = pages
            finally:
                if backend == "postgres":
                    for url in urls.values():
                        drop_database(args.postgres_url, url)
    rows = []
    worst = 0.0
    for backend in backends:
        for page in PAGES:
            small, large = results[backend, "small"][page], results[backend, "large"][page]
            worst = max(worst, small, large) if "diff" not in page and "agent" not in page else worst
            rows.append([backend, page, f"{small:.1f}", f"{large:.1f}", f"{large / small:.2f}"])
    headers = ["backend", "page", "p50 ms, small rest", "p50 ms, large rest", "large / small"]
    print(f"web view pages, {args.runs} runs each, code {code_version()}")
    print(markdown_table(headers, rows, right=[2, 3, 4]))
    verdict = "meets" if worst < TARGET_MS else "MISSES"
    print(f"\nslowest file or log page p50: {worst:.1f} ms ({verdict} the {TARGET_MS:.0f} ms target)")
    return 0 if worst < TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
