"""The background prune in real server processes: two replicas on one PostgreSQL database, each pruning every
second (SCRATCHPAD_PRUNE_EVERY=1), take turns through an advisory lock: while something else holds it neither
prunes; once it is free, entries past their age and expired files go, and the counters equal a recount."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from scratchpad_adapters import open_store
from scratchpad_adapters.pruning import ADVISORY_KEY
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.limits import Limits
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import json_lines
from tests.recount import SqlRecounter
from tests.servers import running

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

A = "pruned-agent"


@pytest.fixture
def database() -> Iterator[str]:
    url = create_postgres_database("scratchpad_prune")
    yield url
    drop_postgres_database(url)


def entries_and_files(url: str) -> tuple[int, int]:
    engine = make_engine(url)
    try:
        with engine.connect() as c:
            entries = c.execute(text("SELECT count(*) FROM log_entries")).scalar_one()
            files = c.execute(text("SELECT count(*) FROM files WHERE current_version > 0")).scalar_one()
        return entries, files
    finally:
        engine.dispose()


def test_two_replicas_prune_one_at_a_time(database: str, tmp_path: Path) -> None:
    with open_store(database) as store:
        for i in range(150):  # more than two batches
            store.append_log(A, "runs/old.log", f"entry {i}")
        store.append_log(A, "kept.log", "no rule")
        for i in range(3):
            store.write_file(A, f"tmp/{i}.md", f"scratch {i}\n")
        store.write_file(A, "notes.md", "kept\n")
        store.set_retention(A, logs="runs/", max_age="1s")  # after the appends, which would apply it themselves
        store.set_retention(A, files="tmp/", max_age="1s")
    holder = make_engine(database)
    env = {"SCRATCHPAD_DATABASE_URL": database, "SCRATCHPAD_AUTH": "none", "SCRATCHPAD_PRUNE_EVERY": "1"}
    try:
        with holder.connect() as held:
            assert held.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": ADVISORY_KEY}).scalar() is True
            held.commit()
            with running(tmp_path, {"one": env, "two": env}) as servers:
                time.sleep(4)  # several periods: every entry and file is past its age, but the turn is held
                assert entries_and_files(database) == (151, 4)
                held.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": ADVISORY_KEY})
                held.commit()
                deadline = time.monotonic() + 60
                while entries_and_files(database) != (1, 1) and time.monotonic() < deadline:
                    time.sleep(0.5)
                assert entries_and_files(database) == (1, 1)
                events = [line for server in servers.values() for line in json_lines(server)]
                assert [e for e in events if e.get("event") == "prune_failed"] == []
                pruned = [e for e in events if e.get("event") == "prune"]
                assert sum(e["entries"] for e in pruned) == 150 and sum(e["files"] for e in pruned) == 3
    finally:
        holder.dispose()
    recount = SqlRecounter(database)
    try:
        with open_store(database) as store:
            stats = recount.check(store, A)
        assert (stats.logs, stats.log_count, stats.file_count) == (1, 1, 1)
    finally:
        recount.close()
    engine = make_engine(database)
    try:
        assert check(engine, Limits()).ok
    finally:
        engine.dispose()
