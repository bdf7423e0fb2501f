"""A store made by the previous release (c93ce99, before word search), upgraded: migration 0008 builds its index,
and what a replica still running the previous release writes afterwards (without the index) is found by the
next search, which catches up first; `db check` names the lag until then and holds after."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.limits import Limits

PREVIOUS = "c93ce99"  # the release before word search (issue 22)
ROOT = Path(__file__).resolve().parents[2]
A = "agent-a"


def release_sources(commit: str, folder: Path) -> Path:
    """The packages of the release at `commit`, from git history, in `folder` (the test is skipped where the
    history is not at hand)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "scratchpad_core", "scratchpad_adapters", "alembic"],
        capture_output=True,
        check=False,
    )
    if archive.returncode != 0:
        pytest.skip(f"the previous release ({commit}) is not in this checkout's git history")
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


@pytest.fixture(scope="module")
def previous_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The previous release's packages, from git history (skipped where the history is not at hand)."""
    return release_sources(PREVIOUS, tmp_path_factory.mktemp("previous"))


def run_previous(release: Path, url: str, body: str, *, upgrade: bool) -> None:
    """Run `body` with the previous release's library (store: a Scratchpad on url; upgrade=False: as a replica
    does on a database a newer release migrated)."""
    script = f"from scratchpad_adapters import open_store\nstore = open_store({url!r}, upgrade={upgrade})\n"
    script += textwrap.dedent(body) + "\nstore.close()\n"
    done = subprocess.run([sys.executable, "-c", script], cwd=release, capture_output=True, text=True, check=False,
                          env={"PYTHONPATH": str(release), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert done.returncode == 0, done.stderr


def paths_found(url: str, query: str) -> list[tuple[str, int | None]]:
    with open_store(url) as store:
        return sorted((m.path, m.line if m.entry is None else m.entry) for m in store.search_files(A, query).matches)


def lag(url: str) -> set[str]:
    """The rules `db check` finds broken, and "backlog" when it notes a backlog of the index (no violation)."""
    engine = make_engine(url)
    try:
        report = check(engine, Limits())
        return set(report.counts) | {"backlog" for note in report.notes if "backlog" in note}
    finally:
        engine.dispose()


@pytest.fixture
def old_store(empty_url: str, previous_release: Path) -> Iterator[str]:
    """A new database (SQLite, Postgres) that the previous release made and wrote to."""
    run_previous(previous_release, empty_url, """
        store.write_file("agent-a", "notes.md", "intro\\nWe deployed the API to Postgres\\noutro\\n")
        store.write_file("agent-a", "gone.md", "a deployment that is deleted\\n")
        store.delete_file("agent-a", "gone.md")
        store.write_file("agent-a", "old.md", "the deployment plan\\n")
        store.rename_file("agent-a", "old.md", "plans/new.md")
        store.edit_file("agent-a", "plans/new.md", "plan", "schedule")
        for entry in ("deploying on monday", "nothing"):
            store.append_log("agent-a", "run.log", entry)
    """, upgrade=True)  # fmt: skip
    yield empty_url


def test_a_store_of_the_previous_release_is_searchable_once_upgraded(
    old_store: str, capfd: pytest.CaptureFixture[str]
) -> None:
    open_store(old_store).close()  # migration 0008 builds the index, and says so on stderr
    assert "search index: built for 3 files and logs" in capfd.readouterr().err
    assert paths_found(old_store, "deploy") == [("notes.md", 1), ("plans/new.md", 1), ("run.log", 1)]
    assert lag(old_store) == set()


def test_what_a_previous_release_replica_writes_is_caught_up_by_the_next_search(
    old_store: str, previous_release: Path
) -> None:
    open_store(old_store).close()  # upgraded, index built
    run_previous(previous_release, old_store, """
        store.edit_file("agent-a", "notes.md", "Postgres", "SQLite")
        store.write_file("agent-a", "late.md", "deploy late\\n")
        store.delete_file("agent-a", "plans/new.md")
        store.append_log("agent-a", "run.log", "deploy again")
        store.delete_log("agent-a", "run.log")
        store.append_log("agent-a", "run.log", "deploy after the log came back")
        store.write_file("agent-a", "move.md", "to be moved, deploy\\n")
        store.rename_file("agent-a", "move.md", "moved.md")
    """, upgrade=False)  # fmt: skip
    assert lag(old_store) == {"backlog"}  # what it wrote is in the backlog (its rows' markers say so)
    assert paths_found(old_store, "deploy") == [("late.md", 1), ("moved.md", 1), ("notes.md", 1), ("run.log", 4)]
    assert paths_found(old_store, "postgres") == []
    assert paths_found(old_store, "sqlite") == [("notes.md", 1)]
    assert lag(old_store) == set()


INLINE = "1f37598"  # the release that indexed in the writer's transaction (issue 22), before the backlog (issue 29)


def test_a_replica_of_the_release_that_indexed_inline_leaves_a_backlog_not_a_fault(
    empty_url: str, tmp_path: Path
) -> None:
    """It indexes its writes itself but knows nothing of the rows' markers: what it wrote is a backlog (a note),
    which the next search catches up, only setting the markers where its index is already right."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", INLINE, "scratchpad_core", "scratchpad_adapters",
                              "alembic"], capture_output=True, check=False)  # fmt: skip
    if archive.returncode != 0:
        pytest.skip(f"the release {INLINE} is not in this checkout's git history")
    subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
    with open_store(empty_url) as store:
        store.write_file(A, "notes.md", "we deploy on monday\n")
        store.append_log(A, "run.log", "deploy started")
        store.search_files(A, "deploy")  # no backlog
    run_previous(tmp_path, empty_url, """
        store.edit_file("agent-a", "notes.md", "monday", "friday")
        store.append_log("agent-a", "run.log", "deploy done on friday")
        store.write_file("agent-a", "new.md", "friday it is\\n")
    """, upgrade=False)  # fmt: skip
    assert lag(empty_url) == {"backlog"}
    assert paths_found(empty_url, "friday") == [("new.md", 1), ("notes.md", 1), ("run.log", 2)]
    assert paths_found(empty_url, "monday") == []
    assert lag(empty_url) == set()
