"""A server that cannot start says why in one log line (JSON when asked for) and exits non-zero, no traceback."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from tests.deploy.conftest import command as run

pytestmark = pytest.mark.slow

UNREACHABLE = "postgresql+psycopg://scratch:hunter2@127.0.0.1:1/nowhere"


def failure(done: subprocess.CompletedProcess[str]) -> str:
    """A command's last line on stderr: after the line naming its database, why it failed (one line)."""
    lines = done.stderr.strip().splitlines()
    assert lines, done
    return lines[-1]


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
        assert done.stderr.startswith("scratchpad-mcp: database postgresql+psycopg://scratch:***@"), done.stderr
        assert failure(done).startswith("scratchpad-mcp: cannot use the database"), (command, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 2, done.stderr  # the database, then why it failed


def test_bad_database_urls_are_explained(tmp_path: Path) -> None:
    cases = {
        "notaurl": "Cannot use the database URL",
        "mysql://user@localhost/db": "Unsupported database mysql://user@localhost/db",
        "postgresql+psycopg2://user:hunter2@localhost/db": "No module named 'psycopg2'",
        "postgresql://user:hunter2@localhost:notaport/db": "Cannot use the database URL",
    }
    for url, message in cases.items():
        done = run("--database", url, "db", "current")
        assert done.returncode == 1, (url, done.stderr)
        assert "Traceback" not in done.stderr and "hunter2" not in done.stderr, done.stderr
        assert done.stderr.startswith("scratchpad-mcp: ") and message in done.stderr, (url, done.stderr)
        assert "Use sqlite:///path/to/file.db or postgresql+psycopg://" in done.stderr
    served = run(SCRATCHPAD_DATABASE_URL="garbage", SCRATCHPAD_LOG_FORMAT="json")
    assert served.returncode == 1 and "Traceback" not in served.stderr
    assert "Cannot use the database URL" in str(last_json_line(served.stderr)["message"])


def test_maintenance_commands_refuse_a_store_in_memory() -> None:
    for command in (("db", "current"), ("db", "upgrade"), ("export",), ("keys", "create", "--agent", "a")):
        done = run("--database", "memory://", *command)
        assert done.returncode == 1, (command, done.stderr)
        assert done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        assert failure(done).startswith("scratchpad-mcp: memory:// is a store in one process's memory"), done.stderr
        assert "work on a SQLite or PostgreSQL database" in done.stderr


def test_export_and_import_mistakes_are_explained_and_create_nothing(tmp_path: Path) -> None:
    database = tmp_path / "real.db"
    with open_store(f"sqlite:///{database}") as store:
        store.write_file("alice", "a.md", "x")
    url = f"sqlite:///{database}"
    typo = tmp_path / "typo.db"
    not_utf8 = tmp_path / "latin1.jsonl"
    not_utf8.write_bytes('{"type":"header","format":"scratchpad-export","version":1,"x":"caf\xe9"}\n'.encode("latin-1"))
    cases = [
        (("--database", f"sqlite:///{typo}", "export"), f"There is no database file at {typo}. Check the path."),
        (("--database", url, "export", "--agent", "nobody"), "Agent 'nobody' has no data in this database"),
        (("--database", url, "export", "-o", str(tmp_path / "no" / "x.jsonl")), "No such file or directory: "),
        (("--database", f"sqlite:///{typo}", "import", str(tmp_path / "missing.jsonl")), "No such file or directory"),
        (("--database", url, "import", str(not_utf8)), "the input is not UTF-8 text"),
    ]
    for args, message in cases:
        done = run(*args)
        assert done.returncode == 1, (args, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.startswith("scratchpad-mcp: ") and message in done.stderr, (args, done.stderr)
        assert done.stdout == "", args
    assert not typo.exists()
    assert not (tmp_path / "no").exists()


def test_a_failed_export_leaves_an_earlier_export_file_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'real.db'}"
    with open_store(url) as store:
        store.write_file("alice", "a.md", "x")
    earlier = tmp_path / "backup.jsonl"
    assert run("--database", url, "export", "-o", str(earlier)).returncode == 0
    good = earlier.read_text(encoding="utf-8")
    assert '"agent_id":"alice"' in good
    done = run("--database", url, "export", "--agent", "alcie", "-o", str(earlier))
    assert done.returncode == 1 and "Agent 'alcie' has no data" in done.stderr
    assert earlier.read_text(encoding="utf-8") == good
    assert not (tmp_path / "backup.jsonl.partial").exists()


def test_commands_that_only_read_do_not_create_a_database(tmp_path: Path) -> None:
    missing = tmp_path / "nothing-here.db"
    for command in (("db", "current"), ("keys", "list"), ("keys", "revoke", "abc")):
        done = run("--database", f"sqlite:///{missing}", *command)
        assert done.returncode == 1 and f"There is no database file at {missing}" in done.stderr, done.stderr
    not_json = tmp_path / "notes.txt"
    not_json.write_text("just some notes\n", encoding="utf-8")
    done = run("--database", f"sqlite:///{missing}", "import", str(not_json))
    assert done.returncode == 1 and "Import line 1 is not JSON" in done.stderr
    assert not missing.exists()
    empty = run("--database", "", "db", "current")
    assert empty.returncode == 2 and "--database is empty" in empty.stderr


def test_revisions_this_version_does_not_know_are_named_as_such(tmp_path: Path) -> None:
    database = tmp_path / "newer.db"
    open_store(f"sqlite:///{database}").close()
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0099'")
    done = run("--database", f"sqlite:///{database}", "db", "current")
    assert done.returncode == 0 and "0099 (unknown to this scratchpad-mcp" in done.stdout
    assert "run `scratchpad-mcp db upgrade`" not in done.stdout
    blank = run("--database", f"sqlite:///{database}", "db", "downgrade", "")
    assert blank.returncode == 1 and "Invalid revision" in blank.stderr and "Traceback" not in blank.stderr
