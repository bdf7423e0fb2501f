"""Without Postgres, a test run says so in one line with a count, not in a line for every test it skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import POSTGRES_ENV
from tests.mcp.helpers import server_env

ROOT = Path(__file__).resolve().parents[2]
REASON = f"{POSTGRES_ENV} is not set; Postgres tests need a server that lets them create databases"


def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
    env = server_env()  # no SCRATCHPAD_* variable: no Postgres
    assert POSTGRES_ENV not in env
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_skips_for_want_of_postgres_fold_into_one_line() -> None:
    done = pytest_run("-q", "tests/contract/test_usage.py", "tests/contract/test_logs.py")
    assert done.returncode == 0, done.stdout[-2000:]
    lines = done.stdout.splitlines()
    folded = [line for line in lines if REASON in line]
    assert len(folded) == 1, done.stdout[-2000:]
    count = int(folded[0].split(" skipped: ")[0])
    assert folded[0] == f"{count} skipped: {REASON}" and count >= 2
    assert not any(line.startswith("SKIPPED") for line in lines)
    assert lines[-1].startswith(f"{lines[-1].split()[0]} passed, {count} skipped in ")


def test_asking_for_skips_still_lists_each() -> None:
    done = pytest_run("-q", "-rs", "tests/contract/test_usage.py")
    assert done.returncode == 0, done.stdout[-2000:]
    listed = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED [")]
    assert len(listed) >= 2 and all(line.endswith(REASON) for line in listed)
    assert not any(line.endswith(f"skipped: {REASON}") for line in done.stdout.splitlines())
