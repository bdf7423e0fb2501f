"""Several OS processes on one database, on both backends: versions, entry ids and quotas stay exact."""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Iterator
from multiprocessing.managers import SyncManager
from multiprocessing.pool import Pool
from typing import Any

import pytest

from scratchpad_adapters import open_store
from scratchpad_adapters.factory import open_backend
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.concurrency import workers
from tests.conftest import SQL_ONLY
from tests.recount import Counts, SqlRecounter

WORKERS = 8
pytestmark = [pytest.mark.slow, SQL_ONLY]  # SQL_ONLY: a memory:// store lives in one process; these run several


@pytest.fixture(scope="module")
def pool() -> Iterator[tuple[Pool, SyncManager]]:
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(WORKERS + 1) as processes:
        yield processes, manager


def recount(url: str, agent_id: str) -> Counts:
    """The agent's usage recounted from the stored rows; asserts that its counters agree."""
    with open_store(url, upgrade=False) as store:
        counter = SqlRecounter(url)
        try:
            counter.check(store, agent_id)
            return counter.counts(agent_id)
        finally:
            counter.close()


def test_concurrent_writers_get_every_version_once(database_url: str, pool: tuple[Pool, SyncManager]) -> None:
    processes, manager = pool
    open_store(database_url).close()
    barrier = manager.Barrier(WORKERS)
    acks = processes.starmap(workers.write_many, [(database_url, barrier, w, 100) for w in range(WORKERS)])

    every = sorted(version for worker in acks for version in worker)
    assert every == list(range(1, 801))
    for worker in acks:
        assert worker == sorted(worker)  # each writer saw its own versions increase
    with open_store(database_url, upgrade=False) as store:
        retained = [v.version for v in store.list_versions("shared", "race.md").versions]
        assert retained == list(range(791, 801))
        head = store.read_file("shared", "race.md")
        assert head.current_version == 800
    recount(database_url, "shared")


def test_concurrent_appenders_commit_ids_in_order(database_url: str, pool: tuple[Pool, SyncManager]) -> None:
    processes, manager = pool
    open_store(database_url).close()
    per_worker = 50
    total = (WORKERS - 1) * per_worker
    barrier = manager.Barrier(WORKERS)
    follower = processes.apply_async(workers.follow_log, (database_url, barrier, total))
    acks = processes.starmap(workers.append_many, [(database_url, barrier, w, per_worker) for w in range(WORKERS - 1)])

    ids = [entry_id for worker in acks for entry_id, _ in worker]
    assert sorted(ids) == list(range(1, total + 1))
    for worker in acks:
        assert [i for i, _ in worker] == sorted(i for i, _ in worker)
    assert follower.get(timeout=120) == list(range(1, total + 1))  # a cursor reader missed nothing
    with open_store(database_url, upgrade=False) as store:
        stored = {e.id: e.entry for page in _pages(store) for e in page}
    assert stored == {entry_id: text for worker in acks for entry_id, text in worker}
    recount(database_url, "shared")


def _pages(store: Any) -> Iterator[list[Any]]:
    cursor, more = 0, True
    while more:
        page = store.read_log("shared", "events", cursor)
        yield page.entries
        cursor, more = page.last_entry_id, page.has_more


@pytest.mark.parametrize(
    ("kind", "limits", "allowed", "counter"),
    [
        ("files", {"quota_files": 13}, 13, "files"),
        ("entries", {"quota_log_entries": 17}, 17, "log_entries"),
        ("bytes", {"quota_bytes": 1900}, 19, "bytes"),
    ],
)
def test_racing_for_the_last_quota_units_never_exceeds_it(
    database_url: str, pool: tuple[Pool, SyncManager], kind: str, limits: dict[str, int], allowed: int, counter: str
) -> None:
    processes, manager = pool
    open_store(database_url).close()
    barrier = manager.Barrier(WORKERS)
    results = processes.starmap(workers.race_quota, [(database_url, barrier, w, kind, limits) for w in range(WORKERS)])

    accepted = sum(a for a, _ in results)
    assert accepted == allowed
    assert sum(r for _, r in results) == WORKERS * 10 - allowed
    counted = recount(database_url, "quota")
    expected = allowed * 100 if counter == "bytes" else allowed
    assert getattr(counted, counter) == expected


def test_writers_making_room_race_a_prune_without_deadlock(database_url: str, pool: tuple[Pool, SyncManager]) -> None:
    """Writes that delete an agent's expired files to make room (their rows locked before the counters) race each
    other, writes to expired paths and a prune: none fails busy, and the counters equal a recount."""
    processes, manager = pool
    quota = 20
    backend = open_backend(database_url)
    try:
        earlier = time.time_ns() // 1_000_000 - 7_200_000
        past = Scratchpad(backend.unit_of_work, Limits(quota_files=quota), clock=lambda: earlier)
        for number in range(quota):
            past.write_file("room", f"tmp/{number:02}.md", "expired\n")
        backend.store.set_retention("room", files="tmp/", max_age="1h")
    finally:
        backend.close()
    barrier = manager.Barrier(WORKERS)
    results = processes.starmap(workers.make_room, [(database_url, barrier, w, quota) for w in range(WORKERS)])
    assert [error for _, _, errors in results for error in errors] == []
    with open_store(database_url, upgrade=False) as store:
        counter = SqlRecounter(database_url, clock=lambda: time.time_ns() // 1_000_000)
        try:
            stats = counter.check(store, "room")  # counters less what has expired equal a recount of what is seen
        finally:
            counter.close()
        assert stats.file_count == store.list_files("room").count <= quota
    assert sum(accepted for accepted, _, _ in results) >= stats.file_count
