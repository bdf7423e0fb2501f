"""A store's change feed tells what committed, on every backend: files made, changed, moved and deleted, and
nothing for a call that was refused or changed nothing. On PostgreSQL it reaches other processes too, and the
trigger notifies only while some process listens."""

from __future__ import annotations

import queue
import subprocess
import sys
import time
from collections.abc import Iterator

import psycopg
import pytest

from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_core.changes import FileChange
from scratchpad_core.errors import VersionConflict

WAIT_S = 5.0


@pytest.fixture
def backend(database_url: str) -> Iterator[Backend]:
    opened = open_backend(database_url)
    yield opened
    opened.close()


class Heard:
    def __init__(self, backend: Backend) -> None:
        self._queue: queue.Queue[FileChange] = queue.Queue()
        backend.change_feed().subscribe(self._queue.put)

    def next(self, timeout: float = WAIT_S) -> FileChange:
        return self._queue.get(timeout=timeout)

    def take(self, count: int) -> list[FileChange]:
        return [self.next() for _ in range(count)]

    def nothing_more(self, wait: float = 0.5) -> None:
        with pytest.raises(queue.Empty):
            change = self._queue.get(timeout=wait)
            pytest.fail(f"heard {change} too")


def change(path: str, kind: str, agent: str = "a") -> FileChange:
    return FileChange(agent, path, kind)  # type: ignore[arg-type]


def test_the_feed_tells_each_committed_change(backend: Backend) -> None:
    heard = Heard(backend)
    store = backend.store
    store.write_file("a", "plan.md", "one\n")
    assert heard.next() == change("plan.md", "created")
    store.edit_file("a", "plan.md", "one", "two")
    assert heard.next() == change("plan.md", "updated")
    store.insert_lines("a", "plan.md", -1, "three")
    store.restore_version("a", "plan.md", 1)
    assert heard.take(2) == [change("plan.md", "updated")] * 2
    store.rename_file("a", "plan.md", "done/plan.md")
    assert set(heard.take(2)) == {change("plan.md", "deleted"), change("done/plan.md", "created")}
    store.delete_file("a", "done/plan.md")
    assert heard.next() == change("done/plan.md", "deleted")
    store.write_file("b", "done/plan.md", "another agent's\n")
    assert heard.next() == change("done/plan.md", "created", agent="b")
    heard.nothing_more()


def test_nothing_is_told_of_what_did_not_change(backend: Backend) -> None:
    store = backend.store
    store.write_file("a", "plan.md", "one\n")
    heard = Heard(backend)
    store.write_file("a", "plan.md", "one\n")  # identical: no new version
    with pytest.raises(VersionConflict):
        store.write_file("a", "plan.md", "two\n", expected_version=7)
    with pytest.raises(VersionConflict):
        store.write_file("a", "new.md", "two\n", expected_version=3)  # a file made, then rolled back
    store.read_file("a", "plan.md")
    heard.nothing_more()
    store.append_log("a", "events", "a log is no file")  # but the agent's changes resource hears of it
    assert heard.next() == change("", "updated")
    store.write_file("a", "plan.md", "two\n")
    assert heard.next() == change("plan.md", "updated")


def test_a_deleted_file_made_again_is_made(backend: Backend) -> None:
    store = backend.store
    store.write_file("a", "plan.md", "one\n")
    store.delete_file("a", "plan.md")
    heard = Heard(backend)
    store.write_file("a", "plan.md", "again\n")  # its row was a tombstone: version 2 now
    assert heard.next() == change("plan.md", "created")


def test_an_unsubscribed_listener_hears_nothing_more(backend: Backend) -> None:
    got: list[FileChange] = []
    stop = backend.change_feed().subscribe(got.append)
    backend.store.write_file("a", "one.md", "1")
    deadline = time.monotonic() + WAIT_S
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    stop()
    stop()  # twice is harmless
    backend.store.write_file("a", "two.md", "2")
    time.sleep(0.5)
    assert got == [change("one.md", "created")]


WRITER = """
import sys
from scratchpad_adapters import open_store
with open_store(sys.argv[1]) as store:
    store.write_file("elsewhere", "from-another-process.md", "hello\\n")
"""


@pytest.mark.postgres
def test_postgres_tells_what_another_process_commits(postgres_session_url: str) -> None:
    from tests.conftest import empty_postgres

    empty_postgres(postgres_session_url)
    backend = open_backend(postgres_session_url)
    try:
        heard = Heard(backend)
        subprocess.run([sys.executable, "-c", WRITER, postgres_session_url], check=True, timeout=120)
        assert heard.next() == change("from-another-process.md", "created", agent="elsewhere")
    finally:
        backend.close()


def notices(url: str, wait: float) -> list[str]:
    """What a bare LISTEN on the channel hears within `wait` seconds (a connection not listed as a listener)."""
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as connection:
        connection.execute("LISTEN scratchpad_files")
        heard = [notice.payload for notice in connection.notifies(timeout=wait, stop_after=1)]
    return heard


@pytest.mark.postgres
def test_postgres_notifies_only_while_a_feed_listens(postgres_session_url: str) -> None:
    """A NOTIFY serializes the commits that send one: with no feed open, writers send none."""
    import threading

    from tests.conftest import empty_postgres

    empty_postgres(postgres_session_url)
    backend = open_backend(postgres_session_url)
    try:

        def write_soon() -> None:
            time.sleep(0.3)
            backend.store.write_file("a", f"{time.monotonic_ns()}.md", "x")

        for feed_open, expected in ((False, 0), (True, 1)):
            if feed_open:
                backend.change_feed()
            writer = threading.Thread(target=write_soon)
            writer.start()
            assert len(notices(postgres_session_url, 1.5)) == expected
            writer.join()
    finally:
        backend.close()
    # The feed took its row with it when it closed.
    plain = postgres_session_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain) as connection:
        assert connection.execute("SELECT count(*) FROM change_listeners").fetchone() == (0,)
