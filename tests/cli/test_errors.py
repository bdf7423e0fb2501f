"""What is not there says so in one line and exits non-zero; a schema behind this version is not touched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate
from scratchpad_core.service import Scratchpad
from tests.cli.conftest import isolated_main as main


def test_missing_agent_path_version_and_log(filled: Scratchpad, inspect) -> None:
    cases = {
        ("files", "-a", "nobody"): "No agent 'nobody' in this database",
        ("stats", "-a", "nobody"): "No agent 'nobody' in this database",
        ("cat", "-a", "alice", "missing.md"): "File not found: missing.md",
        ("versions", "-a", "alice", "missing.md"): "File not found: missing.md",
        ("cat", "-a", "alice", "plans/plan.md", "--version", "7"): "Invalid version 7",
        ("diff", "-a", "alice", "plans/plan.md", "1", "9"): "Invalid version 9",
        ("diff", "-a", "alice", "notes.txt"): "notes.txt has only version 1",
        ("log", "-a", "alice", "missing.log"): "Log not found: missing.log",
        ("cat", "-a", "alice", "plans/plan.md", "--lines", "9:"): "Invalid --lines 9: plans/plan.md has 4 lines.",
    }
    for args, message in cases.items():
        done = inspect(*args)
        assert done.code == 1 and done.out == "", (args, done.err)
        assert done.error.startswith("scratchpad-mcp: ") and message in done.error, (args, done.err)


def test_bad_arguments_are_usage_errors(filled: Scratchpad, inspect) -> None:
    for args, message in {
        (
            "log",
            "-a",
            "alice",
            "runs/today.log",
            "--since",
            "1",
            "--tail",
            "2",
        ): "--since and --tail cannot be combined",
        ("cat", "-a", "alice", "plans/plan.md", "--lines", "4:2"): "use FIRST:LAST",
        ("files",): "Missing option '--agent'",
    }.items():
        done = inspect(*args)
        assert done.code == 2 and message in done.err and done.out == "", (args, done.err)


def test_a_schema_behind_is_named_and_left_as_it_is(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    engine = make_engine(f"sqlite:///{database}")
    migrate.upgrade(engine, "0001")
    engine.dispose()
    before = database.read_bytes()
    code = main("--database", f"sqlite:///{database}", "agents")
    assert code == 1
    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [("0001",)]
    assert database.read_bytes() == before


def test_behind_schema_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "old.db"
    engine = make_engine(f"sqlite:///{database}")
    migrate.upgrade(engine, "0001")
    engine.dispose()
    main("--database", f"sqlite:///{database}", "files", "-a", "alice")
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "is at 0001, behind this scratchpad-mcp's" in error and "scratchpad-mcp db upgrade" in error


def test_no_database_no_schema_and_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.db"
    assert main("--database", f"sqlite:///{missing}", "agents") == 1
    assert "There is no database file at" in capsys.readouterr().err and not missing.exists()
    sqlite3.connect(tmp_path / "plain.db").close()
    assert main("--database", f"sqlite:///{tmp_path / 'plain.db'}", "agents") == 1
    assert "holds no scratchpad data (no schema)" in capsys.readouterr().err
    assert main("--database", "memory://x", "agents") == 1
    assert "inspection commands work on a SQLite or PostgreSQL database" in capsys.readouterr().err
