"""`db scrub` and the scrub that ends `redact` (issue 28), on a SQLite file: after each way content leaves the store
(delete_file, delete_log, a retention drop of log entries, an expired file pruned, a version falling out of the
kept window, redact), no file of the database (main, -wal, -shm, -journal) holds the secret or its folded index
terms ("<key>_<term>" as FTS5 stores them) once the scrub has run; before it, they do. A reader holding the
database open makes the command say so and exit 1."""

from __future__ import annotations

import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import Text, text

from scratchpad_adapters import open_store
from scratchpad_adapters.factory import open_backend
from scratchpad_adapters.sql.connection import sqlite_files
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema.tables import metadata
from scratchpad_adapters.sql.transfer.scrub import vacuum_command
from scratchpad_adapters.stemming import default_analyzer
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.cli.conftest import Done, isolated_main

SECRET = "Quixotrelbam Zephvorlinx 7731qk"  # words found nowhere else, no "_" (another change splits on it)
A = "alice"
HOUR = 3_600_000


def needles(secret: str, key: int) -> list[bytes]:
    """What would show the secret in a file: the text, each folded term as FTS5 keeps it ("<key>_<term>"), and each
    term's last 6 characters (a term in an FTS5 leaf may be stored after the prefix it shares with the one before)."""
    terms = default_analyzer().terms(secret)
    assert len(terms) == 3 and all(len(term) >= 6 for term in terms)
    return [secret.encode(), *(f"{key}_{t}".encode() for t in terms), *(t[-6:].encode() for t in terms)]


def traces(database: Path, secret: str, key: int) -> list[str]:
    """Each file of the database that holds one of the needles, with the needle."""
    found = []
    for suffix in ("", "-wal", "-shm", "-journal"):
        file = database.with_name(database.name + suffix)
        if file.exists():
            data = file.read_bytes()
            found += [f"{file.name}: {n.decode()}" for n in needles(secret, key) if n in data]
    return found


def run(database: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> Done:
    capsys.readouterr()
    code = isolated_main("--database", f"sqlite:///{database}", *args)
    out, err = capsys.readouterr()
    return Done(code, out, err)


def agent_key(database: Path) -> int:
    with sqlite3.connect(database) as connection:
        (key,) = connection.execute("SELECT id FROM search_agents WHERE agent_id = ?", (A,)).fetchone()
    return int(key)


def indexed(store: Scratchpad) -> None:
    """A search while the secret is stored: its terms enter the index (writers leave it a backlog, issue 29)."""
    assert store.search_files(A, "Zephvorlinx").count >= 1


def by_delete_file(store: Scratchpad, clock: list[int]) -> None:
    store.write_file(A, "s.md", f"note\n{SECRET}\n")
    indexed(store)
    store.delete_file(A, "s.md")


def by_delete_log(store: Scratchpad, clock: list[int]) -> None:
    store.append_log(A, "s.log", f"saw {SECRET}")
    indexed(store)
    store.delete_log(A, "s.log")


def by_retention(store: Scratchpad, clock: list[int]) -> None:
    store.set_retention(A, logs="runs/", keep_entries=1)
    store.append_log(A, "runs/today", f"saw {SECRET}")
    indexed(store)
    store.append_log(A, "runs/today", "nothing to see")  # the first entry is dropped


def by_expiry(store: Scratchpad, clock: list[int]) -> None:
    store.set_retention(A, files="tmp/", max_age="1h")
    store.write_file(A, "tmp/scratch.md", f"{SECRET}\n")
    indexed(store)
    clock[0] += HOUR + 1
    assert store.prune().files_expired == 1


def by_version_window(store: Scratchpad, clock: list[int]) -> None:
    store.write_file(A, "plan.md", f"step 0 {SECRET}\n")
    indexed(store)
    for number in range(1, store.limits.max_versions + 1):  # version 1 falls out of the kept window
        store.write_file(A, "plan.md", f"step {number}\n")


def by_redaction(store: Scratchpad, clock: list[int]) -> None:
    store.write_file(A, "n.md", f"key {SECRET}\n")
    store.append_log(A, "n.log", f"key {SECRET}")
    indexed(store)
    store.redact_everywhere(A, SECRET, by="ops")


WAYS: dict[str, Callable[[Scratchpad, list[int]], None]] = {
    "delete_file": by_delete_file,
    "delete_log": by_delete_log,
    "retention": by_retention,
    "expiry": by_expiry,
    "version_window": by_version_window,
    "redact": by_redaction,
}


@pytest.mark.parametrize("way", WAYS)
def test_no_file_keeps_what_left_the_store(way: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "s.db"
    clock = [1_700_000_000_000]
    backend = open_backend(f"sqlite:///{database}")
    try:
        store = Scratchpad(backend.unit_of_work, Limits(max_versions=2), clock=lambda: clock[0])
        store.write_file(A, "kept.md", "kept words stay findable\n")
        WAYS[way](store, clock)
        assert store.search_files(A, "Zephvorlinx").count == 0  # gone from the store
        assert store.search_files(A, "findable").count == 1
    finally:
        backend.close()
    key = agent_key(database)
    assert traces(database, SECRET, key)  # the test sees what the scrub is for: terms in FTS5's segments
    done = run(database, "db", "scrub", capsys=capsys)
    assert done.code == 0, done.err
    assert traces(database, SECRET, key) == []
    assert b"findable" in database.read_bytes()  # what is kept stays
    with open_store(f"sqlite:///{database}") as store:
        assert [m.path for m in store.search_files(A, "findable").matches] == ["kept.md"]
    assert run(database, "db", "check", capsys=capsys).code == 0


def test_redact_ends_with_the_scrub_even_when_the_text_had_left(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "r.db"
    with open_store(f"sqlite:///{database}") as store:
        by_delete_file(store, [0])
    key = agent_key(database)
    assert traces(database, SECRET, key)
    done = run(database, "redact", "--agent", A, "--text", SECRET, capsys=capsys)
    assert done.code == 1 and done.err.splitlines()[-1].startswith("scratchpad-mcp: nothing to redact: no retained")
    assert "scrubbed " in done.err
    assert traces(database, SECRET, key) == []


HOLD = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN")
connection.execute("SELECT count(*) FROM files").fetchone()  # a read transaction: its snapshot must stay
print("holding", flush=True)
sys.stdin.readline()
"""


def test_a_reader_holding_the_database_is_named_and_the_exit_is_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "h.db"
    with open_store(f"sqlite:///{database}") as store:
        store.write_file(A, "kept.md", "kept\n")
        store.write_file(A, "n.md", f"key {SECRET}\n")
    reader = subprocess.Popen([sys.executable, "-c", HOLD, str(database)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert reader.stdout is not None and reader.stdout.readline() == "holding\n"
        done = run(database, "redact", "--agent", A, "--text", SECRET, capsys=capsys)
        assert done.code == 1
        assert done.out.splitlines()[-2] == "redacted 1 version of 1 file (1 occurrence); 0 request_ids forgotten"
        assert re.fullmatch(
            f"scratchpad-mcp: the files of {re.escape(str(database))} may still hold removed content: another process "
            r"has the database open \(a reader's open transaction kept \d+ pages of its write-ahead log from being "
            r"checkpointed\); close it \(stop the servers that use it\) and run `scratchpad-mcp db scrub` again\.",
            done.err.splitlines()[-1],
        )
        assert "scrubbed" not in done.err
        again = run(database, "db", "scrub", capsys=capsys)
        assert again.code == 1 and "another process has the database open" in again.err
    finally:
        reader.communicate("\n", timeout=30)
    done = run(database, "db", "scrub", capsys=capsys)
    assert done.code == 0, done.err
    assert traces(database, SECRET, agent_key(database)) == []


def test_every_text_column_is_marked_content_or_known_not_to_hold_any() -> None:
    """A new column of text must say whether a removed text may stay in it (tables.CONTENT): `db scrub` names
    the tables that have one for PostgreSQL's VACUUM FULL."""
    unmarked = {
        (table.name, column.name)
        for table in metadata.tables.values()
        for column in table.columns
        if isinstance(column.type, Text) and not column.info.get("content")
    }
    assert unmarked == {("search_agents", "common")}  # counts of the common English words (words.COMMON_WORDS)
    assert vacuum_command() == "VACUUM (FULL, ANALYZE) file_versions, log_entries, request_ids, search_rows, summaries;"


def rows_holding(url: str, word: str) -> int:
    """Search-index rows whose text holds the word (SQLite or PostgreSQL: the table itself, not its index)."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            query = text("SELECT count(*) FROM search_rows WHERE text LIKE :w")
            return int(connection.execute(query, {"w": f"%{word}%"}).scalar_one())
    finally:
        engine.dispose()


def versions_pushed_out_unsearched(url: str) -> None:
    """The secret indexed, then its version pushed out of the kept window with no search since: the index's
    backlog still holds its text (writers do not index)."""
    backend = open_backend(url)
    try:
        store = Scratchpad(backend.unit_of_work, Limits(max_versions=2))
        store.write_file(A, "kept.md", "kept words stay findable\n")
        store.write_file(A, "plan.md", f"step 0 {SECRET}\n")
        indexed(store)
        for number in range(1, 3):
            store.write_file(A, "plan.md", f"step {number}\n")
    finally:
        backend.close()


def test_db_scrub_catches_up_every_backlog_first(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    versions_pushed_out_unsearched(url)
    assert rows_holding(url, "Zephvorlinx") > 0  # the backlog the scrub is for
    capsys.readouterr()
    assert isolated_main("--database", url, "db", "scrub") == 0, capsys.readouterr().err
    assert rows_holding(url, "Zephvorlinx") == 0
    assert rows_holding(url, "findable") == 1
    database = sqlite_files.file_of(url)
    if database is not None:
        assert traces(database, SECRET, agent_key(database)) == []


def test_db_prune_catches_up_every_backlog(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    clock = [int(time.time() * 1000) - 2 * HOUR]
    backend = open_backend(url)
    try:
        store = Scratchpad(backend.unit_of_work, clock=lambda: clock[0])
        store.set_retention(A, logs="runs/", max_age="1h")
        store.append_log(A, "runs/x", f"saw {SECRET}")
        store.append_log(A, "kept.log", "kept words stay findable")
        indexed(store)
    finally:
        backend.close()
    capsys.readouterr()
    assert isolated_main("--database", url, "db", "prune") == 0, capsys.readouterr().err
    assert rows_holding(url, "Zephvorlinx") == 0  # the dropped entry's text left the index's rows
    assert rows_holding(url, "findable") == 1
