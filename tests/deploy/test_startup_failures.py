"""A server that cannot start says why in one log line (JSON when asked for) and exits non-zero, no traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env

pytestmark = pytest.mark.slow

UNREACHABLE = "postgresql+psycopg://scratch:hunter2@127.0.0.1:1/nowhere"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = server_env()
    full_env.update(env)
    return subprocess.run(
        [console_script(), *args],
        env=full_env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )


def last_json_line(stderr: str) -> dict[str, object]:
    lines: list[dict[str, object]] = [json.loads(line) for line in stderr.splitlines() if line.strip()]  # all JSON
    assert lines, stderr
    return lines[-1]


def test_an_unreachable_database_is_one_json_line(tmp_path: Path) -> None:
    done = run(MCP_TRANSPORT="http", PORT="1", SCRATCHPAD_DATABASE_URL=UNREACHABLE, SCRATCHPAD_LOG_FORMAT="json")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "hunter2" not in done.stderr
    line = last_json_line(done.stderr)
    assert line["event"] == "startup_failed" and line["level"] == "error"
    message = str(line["message"])
    assert message.startswith("scratchpad-mcp cannot start: cannot use the database postgresql+psycopg://scratch:***@")
    assert "SCRATCHPAD_DATABASE_URL" in message


def test_a_schema_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    database = tmp_path / "newer.db"
    open_store(f"sqlite:///{database}").close()
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    done = run(SCRATCHPAD_DB_PATH=str(database), SCRATCHPAD_LOG_FORMAT="json")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and done.stdout == ""
    message = str(last_json_line(done.stderr)["message"])
    assert "Cannot migrate the database from revision '9999_from_the_future'" in message
    assert "upgrade scratchpad-mcp" in message


def test_commands_report_an_unreachable_database_in_one_line() -> None:
    for command in (("keys", "list"), ("db", "current"), ("export",)):
        done = run("--database", UNREACHABLE, *command)
        assert done.returncode == 1, (command, done.stderr)
        assert "Traceback" not in done.stderr, command
        assert done.stderr.startswith("scratchpad-mcp: cannot use the database"), (command, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
