"""On a SQLite file, the first thread to run a unit of work keeps one connection out of the pool for its later
ones (sql.held); every other thread, a snapshot read, and every other backend go through the pool as before."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Connection, event
from sqlalchemy.pool import QueuePool

from scratchpad_adapters.factory import SqlBackend, open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.connection.turns import WriterTurns
from scratchpad_core.changes import FileChange
from scratchpad_core.errors import StorageBusy, VersionConflict


def on_thread(work: object) -> None:
    assert callable(work)
    failures: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as error:  # handed back to the test
            failures.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not failures, failures


def test_one_thread_keeps_one_connection_and_others_use_the_pool(tmp_path: Path) -> None:
    backend = open_backend(f"sqlite:///{tmp_path / 'held.db'}")
    assert isinstance(backend, SqlBackend)
    pool = backend.engine.pool
    assert isinstance(pool, QueuePool)
    store = backend.store
    store.write_file("a", "one.md", "1\n")
    assert pool.checkedout() == 1  # held between calls
    for n in range(5):
        store.read_file("a", "one.md")
        store.append_log("a", "events", f"entry {n}")
    assert pool.checkedout() == 1
    on_thread(lambda: store.write_file("a", "two.md", "2\n"))
    assert pool.checkedout() == 1  # the other thread's connection went back
    assert store.read_file("a", "two.md").content == "2\n"
    backend.close()
    assert pool.checkedout() == 0


def test_the_connection_is_held_for_whichever_thread_finds_it_free(tmp_path: Path) -> None:
    """A thread that ran the first unit of work and ended does not keep the connection to itself."""
    backend = open_backend(f"sqlite:///{tmp_path / 'held.db'}")
    assert isinstance(backend, SqlBackend)
    pool = backend.engine.pool
    assert isinstance(pool, QueuePool)
    on_thread(lambda: backend.store.write_file("a", "first.md", "1\n"))
    assert pool.checkedout() == 1
    with backend.unit_of_work():
        assert pool.checkedout() == 1  # the held connection, not one more from the pool
    backend.store.write_file("a", "next.md", "2\n")
    backend.close()
    assert pool.checkedout() == 0


def test_closing_the_store_waits_for_a_call_on_another_thread(tmp_path: Path) -> None:
    """close() while another thread's unit of work runs on the held connection: that one ends as it would have,
    and the connection goes back when it does (it is never closed under a running statement)."""
    backend = open_backend(f"sqlite:///{tmp_path / 'held.db'}")
    assert isinstance(backend, SqlBackend)
    inside, closed = threading.Event(), threading.Event()
    seen: list[object] = []

    def slow_call() -> None:
        backend.store.write_file("a", "plan.md", "one\n")
        with backend.unit_of_work() as uow:  # on the held connection
            inside.set()
            assert closed.wait(10)
            seen.append(uow.files.get("a", "plan.md"))
            uow.commit()

    worker = threading.Thread(target=slow_call)
    worker.start()
    assert inside.wait(10)
    backend.close()
    closed.set()
    worker.join(10)
    assert len(seen) == 1 and getattr(seen[0], "path", None) == "plan.md"


def test_a_failed_call_on_the_held_connection_leaves_it_usable(tmp_path: Path) -> None:
    backend = open_backend(f"sqlite:///{tmp_path / 'held.db'}")
    store = backend.store
    store.write_file("a", "plan.md", "one\n")
    with pytest.raises(VersionConflict):
        store.write_file("a", "plan.md", "two\n", expected_version=7)  # rolled back
    with pytest.raises(VersionConflict):
        store.write_file("a", "new.md", "x\n", expected_version=3)
    assert store.read_file("a", "plan.md").content == "one\n"
    assert [f.path for f in store.list_files("a").files] == ["plan.md"]
    backend.close()


def test_a_feed_hears_the_held_connection_and_the_pool(tmp_path: Path) -> None:
    """Opened after the connection was taken (its triggers are installed at its next unit of work), the change
    feed hears what the held connection commits, what other threads commit, and nothing rolled back."""
    backend = open_backend(f"sqlite:///{tmp_path / 'held.db'}")
    store = backend.store
    store.write_file("a", "before.md", "x\n")
    heard: queue.Queue[FileChange] = queue.Queue()
    backend.change_feed().subscribe(heard.put)
    store.write_file("a", "held.md", "y\n")
    assert heard.get(timeout=5) == FileChange("a", "held.md", "created")
    with pytest.raises(VersionConflict):
        store.write_file("a", "refused.md", "z\n", expected_version=2)
    on_thread(lambda: store.write_file("a", "pooled.md", "t\n"))
    assert heard.get(timeout=5) == FileChange("a", "pooled.md", "created")
    store.delete_file("a", "before.md")
    assert heard.get(timeout=5) == FileChange("a", "before.md", "deleted")
    with pytest.raises(queue.Empty):
        pytest.fail(f"heard {heard.get(timeout=0.5)} too")
    backend.close()


@pytest.mark.parametrize("url", ["memory", "postgres"])
def test_nothing_is_held_elsewhere(url: str, request: pytest.FixtureRequest) -> None:
    if url == "postgres":
        backend = open_backend(request.getfixturevalue("postgres_session_url"))
        assert isinstance(backend, SqlBackend)
        backend.store.write_file("held-test", "a.md", "x\n")
        pool = backend.engine.pool
        assert isinstance(pool, QueuePool) and pool.checkedout() == 0
        backend.store.delete_file("held-test", "a.md")
    else:
        backend = open_backend("memory://")
        backend.store.write_file("a", "a.md", "x\n")
        on_thread(lambda: backend.store.write_file("a", "b.md", "y\n"))  # one connection, shared in turn
    backend.close()


def test_writers_of_one_process_take_turns(tmp_path: Path) -> None:
    """Units of work on a SQLite file wait for each other on a lock of the process (sql.turns): every write of
    threads writing at once lands, a failed one hands the turn on, and one held past the lock timeout makes the
    others busy (StorageBusy, retried, then told), as SQLite's own busy timeout did."""
    backend = open_backend(f"sqlite:///{tmp_path / 'turns.db'}", lock_timeout_ms=300, writer_turns=True)
    store = backend.store
    store.write_file("a", "plan.md", "one\n")

    def appends(worker: int) -> None:
        for n in range(40):
            store.append_log("a", "events", f"{worker}:{n}")
            if n % 10 == 0:
                with pytest.raises(VersionConflict):  # refused inside its turn, which goes on to the next writer
                    store.write_file("a", "plan.md", "two\n", expected_version=9)

    threads = [threading.Thread(target=appends, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    entries = [e for after in range(0, 240, 100) for e in store.read_log("a", "events", after).entries]
    assert sorted(e.entry for e in entries) == sorted(f"{w}:{n}" for w in range(6) for n in range(40))
    assert [e.id for e in entries] == list(range(1, 241))

    holding, release = threading.Event(), threading.Event()

    def hold_a_turn() -> None:
        with backend.unit_of_work():
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold_a_turn)
    holder.start()
    assert holding.wait(10)
    try:
        with pytest.raises(StorageBusy, match="busy with other writers; nothing was changed"):
            store.write_file("a", "waits.md", "x\n")
    finally:
        release.set()
        holder.join()
    assert store.write_file("a", "waits.md", "x\n").version == 1  # the turn came back
    backend.close()


def test_a_turn_waited_for_comes_off_sqlites_own_wait(tmp_path: Path) -> None:
    """One lock timeout bounds both waits: a unit of work that waited 0.3 s for its turn lets SQLite wait for
    another process only for the rest of it, and the connection's busy timeout is whole again afterwards."""
    engine = make_engine(f"sqlite:///{tmp_path / 'turns.db'}", lock_timeout_ms=1000)
    turns = WriterTurns(1000)
    during: list[int] = []

    def busy_timeout(connection: Connection) -> int:
        raw = connection.connection.dbapi_connection
        assert raw is not None
        value: int = raw.execute("PRAGMA busy_timeout").fetchone()[0]
        return value

    event.listen(engine, "begin", lambda connection: during.append(busy_timeout(connection)))
    held = threading.Event()

    def hold() -> None:
        with engine.connect() as other:
            transaction = turns.begin(other)
            held.set()
            time.sleep(0.3)
            transaction.rollback()
            turns.end()

    holder = threading.Thread(target=hold)
    holder.start()
    assert held.wait(10)
    with engine.connect() as connection:
        transaction = turns.begin(connection)
        transaction.rollback()
        turns.end()
        assert busy_timeout(connection) == 1000
    holder.join()
    assert during[0] == 1000 and 0 < during[1] <= 750, during
    engine.dispose()
