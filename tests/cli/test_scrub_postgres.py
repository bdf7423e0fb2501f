"""PostgreSQL (issue 28): the VACUUM (FULL, ANALYZE) that `redact` and `db scrub` name covers every table whose
files hold a removed text, found by grepping each table's files (its heap, TOAST and indexes, after a CHECKPOINT)
once the text has left the store every way it can (delete_file, delete_log, retention, a version out of the kept
window, a summary and a kept reply dropped, redact); and `db scrub --vacuum` leaves none of them holding it, nor
the statistics ANALYZE sampled from them (pg_statistic, read through pg_stats)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from scratchpad_adapters.factory import open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.cli.conftest import Done, isolated_main
from tests.cli.test_scrub import needles
from tests.conftest import create_postgres_database, drop_postgres_database

SECRET = "Quixotrelbam Zephvorlinx 7731qk"
A = "alice"
FILES = """
SELECT c.relname, pg_relation_filepath(r.oid)
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
JOIN pg_class AS r ON r.oid IN (c.oid, c.reltoastrelid)
    OR r.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid IN (c.oid, c.reltoastrelid))
WHERE n.nspname = 'public' AND c.relkind = 'r'
"""


class Quoting:
    """A summarizer whose summary quotes the file's first line, as a model's may."""

    model = "quoting"

    def summarize(self, path: str, content: str) -> str:
        return "it begins: " + content.splitlines()[0]


@pytest.fixture
def url() -> Iterator[str]:
    made = create_postgres_database("scratchpad_scrub")
    yield made
    drop_postgres_database(made)


def holding(engine: Engine, key: int) -> set[str]:
    """The tables whose files (heap, TOAST, indexes; every segment) hold the secret or its terms, after a CHECKPOINT
    has written every page out."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("CHECKPOINT"))
        directory = Path(connection.execute(text("SHOW data_directory")).scalar_one())
        files = connection.execute(text(FILES)).all()
    if not directory.is_dir() or not any(directory.iterdir()):
        pytest.skip(f"the PostgreSQL data directory {directory} is not readable here (a local server, as root)")
    found = set()
    for table, relative in files:
        main = directory / relative
        for segment in [main, *main.parent.glob(f"{main.name}.[0-9]*")]:
            data = segment.read_bytes() if segment.exists() else b""
            if any(needle in data for needle in needles(SECRET, key)):
                found.add(table)
    return found


STATISTICS = """
SELECT DISTINCT tablename FROM pg_stats
WHERE schemaname = 'public' AND (most_common_vals::text LIKE :w OR histogram_bounds::text LIKE :w)
"""


def sampled(engine: Engine) -> set[str]:
    """The tables whose statistics (pg_statistic's samples) hold the secret's second word."""
    with engine.connect() as connection:
        return {row[0] for row in connection.execute(text(STATISTICS), {"w": "%Zephvorlinx%"})}


def command(url: str, *args: str, capsys: pytest.CaptureFixture[str]) -> Done:
    capsys.readouterr()
    code = isolated_main("--database", url, *args)
    out, err = capsys.readouterr()
    return Done(code, out, err)


def test_the_vacuum_named_covers_every_table_holding_the_text(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    backend = open_backend(url)
    try:
        store = Scratchpad(backend.unit_of_work, Limits(max_versions=2), summarizer=Quoting())
        store.write_file(A, "kept.md", "kept words stay findable\n")
        store.write_file(A, "big.md", f"{SECRET}\n" + "words of a long file\n" * 500)
        assert SECRET in store.summarize_file(A, "big.md").summary
        store.write_file(A, "e.md", "a\nb\n")
        store.edit_file(A, "e.md", "b", f"b {SECRET}", snippet=True, request_id="e1")  # its reply holds it
        store.write_file(A, "gone.md", f"{SECRET}\n")
        store.append_log(A, "gone.log", SECRET)
        store.set_retention(A, logs="runs/", keep_entries=1)
        store.append_log(A, "runs/x", SECRET)
        store.write_file(A, "plan.md", f"v1 {SECRET}\n")
        assert store.search_files(A, "Zephvorlinx").count  # indexed (writers leave the index a backlog, issue 29)
        store.delete_file(A, "gone.md")
        store.delete_log(A, "gone.log")
        store.append_log(A, "runs/x", "later")
        store.write_file(A, "plan.md", "v2\n")
        store.write_file(A, "plan.md", "v3\n")
        store.append_log(A, "run.log", f"token {SECRET}")
    finally:
        backend.close()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            key = connection.execute(text("SELECT id FROM search_agents WHERE agent_id = :a"), {"a": A}).scalar_one()
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE"))  # as autovacuum would, some time: samples of the rows
        assert sampled(engine)  # the test sees what ANALYZE is in the command for
        done = command(url, "redact", "--agent", A, "--text", SECRET, capsys=capsys)
        assert done.code == 0, done.err
        said = re.search(r"run `VACUUM \(FULL, ANALYZE\) ([a-z_, ]+);`", done.err)
        assert said is not None, done.err
        named = set(said[1].split(", "))
        found = holding(engine, key)
        assert {"file_versions", "summaries", "request_ids"} <= found  # the grep sees what is there
        assert found <= named, f"tables holding the text that `redact` does not name: {found - named}"
        printed = command(url, "db", "scrub", capsys=capsys)
        assert (printed.code, printed.out) == (0, f"VACUUM (FULL, ANALYZE) {', '.join(sorted(named))};\n")
        vacuumed = command(url, "db", "scrub", "--vacuum", capsys=capsys)
        assert vacuumed.code == 0, vacuumed.err
        assert holding(engine, key) == set()
        assert sampled(engine) == set()
        with engine.connect() as connection:
            kept = text("SELECT count(*) FROM file_versions WHERE content = 'kept words stay findable\n'")
            assert connection.execute(kept).scalar_one() == 1  # what was kept stays
    finally:
        engine.dispose()
