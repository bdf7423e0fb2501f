"""The inspection commands run as a person runs them: `scratchpad-mcp --database URL COMMAND ...` through
launch.main in this process (stdout and stderr captured, so not a terminal), on a SQLite file and on Postgres."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.launch import main
from tests.conftest import SQL_BACKENDS, empty_postgres

PLAN_V1 = "goal: ship\nstep one\nstep two\n"
PLAN_V2 = "goal: ship\nstep one, done\nstep two\nstep three\n"
NOTE = "hello <script>alert(1)</script>\n"


@dataclass(frozen=True)
class Done:
    code: int
    out: str
    err: str

    @property
    def error(self) -> str:
        """The line after the one naming the database: why the command failed."""
        lines = self.err.strip().splitlines()
        assert len(lines) == 2 and lines[0].startswith("scratchpad-mcp: database "), self.err
        return lines[1]


@pytest.fixture(params=SQL_BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A SQLite file (not created yet), or the session's Postgres database, emptied."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'inspected.db'}"
    postgres: str = request.getfixturevalue("postgres_session_url")
    empty_postgres(postgres)
    return postgres


def isolated_main(*args: str) -> int:
    """The command line (launch.main) on args, with the logging set-up it makes (a handler on this moment's
    stderr) undone after."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        return main(list(args))
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)


@pytest.fixture
def inspect(url: str, capsys: pytest.CaptureFixture[str]) -> Iterator[Callable[..., Done]]:
    def run(*args: str) -> Done:
        capsys.readouterr()
        code = isolated_main("--database", url, *args)
        out, err = capsys.readouterr()
        return Done(code, out, err)

    yield run


@pytest.fixture
def filled(url: str) -> Iterator[Scratchpad]:
    """alice: a plan in two versions (the second by a key), a note, a log of 5 entries (the last over stdio);
    bob: one file."""
    with open_store(url) as store:
        store.write_file("alice", "plans/plan.md", PLAN_V1)
        store.write_file("alice", "plans/plan.md", PLAN_V2, actor="key k1 (planner)")
        store.write_file("alice", "notes.txt", NOTE)
        for number in range(1, 6):
            store.append_log("alice", "runs/today.log", f"entry {number}", actor="stdio" if number == 5 else "library")
        store.write_file("bob", "x.md", "x\n")
        yield store
