"""bench.soak for a few seconds: 2 clients on 2 replicas, a row per 2-second interval, and the verdict."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import create_postgres_database, drop_postgres_database

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def database() -> Iterator[str]:
    url = create_postgres_database("scratchpad_soak")
    yield url
    drop_postgres_database(url)


def test_soak_prints_a_row_per_interval_and_the_verdict(database: str, tmp_path: Path) -> None:
    summary = tmp_path / "soak.json"
    args = ["--minutes", "0.1", "--interval", "2", "--clients", "2", "--database", database, "--json", str(summary)]
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert table[0].split("|")[1:-1] == [
        f" {h.rjust(max(len(h), 7))} "
        for h in [
            "minute",
            "calls/s",
            "p50 ms",
            "p99 ms",
            "errors",
            "r1 RSS MiB",
            "r1 fds",
            "r2 RSS MiB",
            "r2 fds",
            "load",
        ]
    ]
    assert [line.split("|")[1].strip() for line in table[2:]] == ["1", "2", "3"]
    result = json.loads(summary.read_text())
    rows, checks = result["rows"], result["verdict"]
    assert len(rows) == 3 and all(r["calls"] > 0 and r["errors"] == 0 for r in rows)
    assert all(len(r["replicas"]) == 2 and all(s["rss_mib"] > 0 and s["fds"] > 0 for s in r["replicas"]) for r in rows)
    names = [c["check"] for c in checks]
    assert names == ["calls/s flat", "p99 flat", "r1 RSS flat", "r1 fds flat", "r2 RSS flat", "r2 fds flat", "no error"]
    assert checks[-1] == {"check": "no error", "met": True, "figures": "0 errors"}
    for check in checks:
        assert f"  {check['check']}: {'MET' if check['met'] else 'MISSED'} ({check['figures']})" in out
