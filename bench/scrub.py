"""How long an agent-wide redaction and `db scrub` take on a store of some size (issue 28; figures, no target).

    uv run python -m bench.scrub [--backends sqlite,postgres] [--mib N] [--postgres URL]

One agent holds about --mib MiB: files of 1,000 markdown lines (about 50 KiB) in two versions each and a log of
short entries; a quarter of the files are then deleted. A secret sits in 1 file in 20 and 1 entry in 200. Timed,
wall clock, once each: redact_everywhere as a dry run and for real, then on SQLite the scrub (the full-text index
rebuilt, VACUUM, the WAL truncated; and, for comparison, with 'optimize' in place of the rebuild, on a copy), on
PostgreSQL the VACUUM (FULL, ANALYZE) of the tables it names.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import shutil
import sqlite3
import tempfile
import time
from pathlib import Path

from bench.common import create_database, drop_database, markdown_file, markdown_table, note_line
from scratchpad_adapters.factory import SqlBackend, open_backend
from scratchpad_adapters.sql.transfer.scrub import scrub_sqlite, vacuum
from scratchpad_core.limits import MIB, Limits
from scratchpad_core.service import Scratchpad

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
SECRET = "sk-live-Bench9Zq4"
A = "bot"


def fill(store: Scratchpad, mib: int) -> int:
    """Write about `mib` MiB for agent A; returns the bytes it stores."""
    rng = random.Random(28)
    body = markdown_file(1000)
    files = max(4, mib * MIB // (2 * len(body)))
    for number in range(files):
        store.write_file(A, f"notes/{number}.md", body.replace("# Working notes", f"# Notes {number}"))
        extra = f"\nkey: {SECRET}\n" if number % 20 == 0 else "\nmore\n"
        store.write_file(A, f"notes/{number}.md", body + extra)
    for number in range(files * 20):
        store.append_log(A, "run.log", note_line(rng, number) + (f" {SECRET}" if number % 200 == 0 else ""))
    for number in range(0, files, 4):
        store.delete_file(A, f"notes/{number + 1}.md")
    return store.get_usage_stats(A).total_bytes


def timed(seconds: dict[str, float], what: str, work: object) -> None:
    start = time.perf_counter()
    assert callable(work)
    work()
    seconds[what] = time.perf_counter() - start


def measure(url: str, mib: int, folder: Path) -> tuple[int, dict[str, float]]:
    backend = open_backend(url, limits=Limits(quota_bytes=4 * mib * MIB + 16 * MIB))
    seconds: dict[str, float] = {}
    try:
        assert isinstance(backend, SqlBackend)
        store = backend.store
        stored = fill(store, mib)
        timed(seconds, "redact --dry-run", lambda: store.redact_everywhere(A, SECRET, dry_run=True))
        timed(seconds, "redact", lambda: store.redact_everywhere(A, SECRET, by="bench"))
    finally:
        backend.close()
    file = Path(url.removeprefix("sqlite:///"))
    if url.startswith("sqlite"):
        copy = folder / "copy.db"
        shutil.copy(file, copy)
        timed(seconds, "scrub (rebuild)", lambda: scrub_sqlite(file))

        def optimized() -> None:
            with contextlib.closing(sqlite3.connect(copy, isolation_level=None)) as connection:
                connection.execute("INSERT INTO search_fts(search_fts) VALUES ('optimize')")
                connection.execute("VACUUM")
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        timed(seconds, "scrub (optimize)", optimized)
    else:
        engine = open_backend(url, upgrade=False)
        try:
            assert isinstance(engine, SqlBackend)
            timed(seconds, "VACUUM (FULL, ANALYZE)", lambda: vacuum(engine.engine))
        finally:
            engine.close()
    return stored, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="sqlite,postgres")
    parser.add_argument("--mib", type=int, default=16)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    args = parser.parse_args()
    rows = []
    for backend in args.backends.split(","):
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite:///{Path(folder) / 'bench.db'}" if backend == "sqlite" else None
            url = url or create_database(args.postgres, "bench_scrub")
            try:
                stored, seconds = measure(url, args.mib, Path(folder))
            finally:
                if backend == "postgres":
                    drop_database(args.postgres, url)
        rows += [[backend, f"{stored / MIB:.1f}", what, f"{value:.2f}"] for what, value in seconds.items()]
    print(markdown_table(["backend", "agent MiB", "step", "seconds"], rows, right=[1, 3]))


if __name__ == "__main__":
    main()
