"""Expired files count nowhere (issue 28) on every backend: get_usage_stats, the agents a person lists and every
quota count what list_files shows, on a clock the test moves. A write that a quota would refuse while expired
files (not yet pruned) still count deletes them first, in its own transaction; a refusal counts only what the
agent sees and changes nothing."""

from __future__ import annotations

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_core.errors import QuotaExceeded
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.contract.test_retries import Clock
from tests.recount import Recounter

A, B = "agent-a", "agent-b"
HOUR = 3_600_000


def a_store(backend: Backend, clock: Clock, **quotas: int) -> Scratchpad:
    return Scratchpad(backend.unit_of_work, Limits(**quotas), clock=clock)


def listed(store: Scratchpad, agent: str = A) -> list[str]:
    return [f.path for f in store.list_files(agent).files]


def live_rows(recount: Recounter, agent: str = A) -> list[str]:
    """The paths of the agent's file rows that hold a version, expired or not (what a prune has not deleted)."""
    return [row[0] for row in recount.snapshot(agent)["files"] if row[1] > 0]


def test_usage_counts_what_list_files_shows(backend: Backend, clock: Clock, recount: Recounter) -> None:
    store = a_store(backend, clock)
    store.set_retention(A, files="tmp/", max_age="1h")
    store.set_retention(A, files="tmp/keep/", max_age="30d")  # the longest prefix decides
    store.write_file(A, "tmp/a.md", "a" * 100)
    store.write_file(A, "tmp/a.md", "a" * 50)  # two retained versions: 150 bytes counted
    store.write_file(A, "tmp/keep/b.md", "b" * 20)
    store.write_file(A, "notes.md", "n" * 7)
    store.append_log(A, "run.log", "entry")
    clock.now += HOUR + 1
    assert listed(store) == ["notes.md", "tmp/keep/b.md"]
    stats = recount.check(store, A)  # the recount leaves out what has expired at the clock's time
    assert (stats.file_count, stats.total_bytes, stats.log_count) == (2, 20 + 7 + 5, 1)
    assert live_rows(recount) == ["notes.md", "tmp/a.md", "tmp/keep/b.md"]  # not pruned: still stored
    people = {u.agent_id: u for u in store.list_agents()}
    assert (people[A].files, people[A].bytes) == (2, 32)
    assert store.find_agent(A) == people[A]
    assert store.prune().files_expired == 1
    assert store.get_usage_stats(A).file_count == 2  # the prune changed what is stored, not what is counted
    assert store.find_agent(A) == store.list_agents()[0]


def test_agents_without_files_rules_are_listed_with_their_counters(backend: Backend, clock: Clock) -> None:
    store = a_store(backend, clock)
    store.write_file(B, "x.md", "x")
    store.set_retention(A, files="", max_age="1h")  # every file of A
    store.write_file(A, "y.md", "yy")
    clock.now += HOUR + 1
    page = store.list_agents()
    assert [(u.agent_id, u.files, u.bytes) for u in page] == [(A, 0, 0), (B, 1, 1)]
    assert [u.agent_id for u in store.list_agents(after=A, limit=5)] == [B]
    assert store.find_agent("nobody") is None


def test_a_store_at_its_file_quota_accepts_a_write_its_expired_files_make_room_for(
    backend: Backend, clock: Clock, recount: Recounter
) -> None:
    store = a_store(backend, clock, quota_files=3)
    store.set_retention(A, files="tmp/", max_age="1h")
    for path in ("tmp/one.md", "tmp/two.md", "notes.md"):
        store.write_file(A, path, "x\n")
    with pytest.raises(QuotaExceeded, match="already has 3 of 3 files"):
        store.write_file(A, "more.md", "y\n")
    clock.now += HOUR + 1
    assert store.write_file(A, "more.md", "y\n").version == 1
    assert listed(store) == ["more.md", "notes.md"]
    assert live_rows(recount) == ["more.md", "notes.md"]  # the write deleted both, in its own transaction
    assert recount.check(store, A).file_count == 2
    assert store.write_file(A, "tmp/one.md", "again\n").version == 2  # the path remembers its number
    with pytest.raises(QuotaExceeded, match="already has 3 of 3 files"):
        store.write_file(A, "four.md", "z\n")


def test_a_refusal_counts_only_what_the_agent_sees_and_changes_nothing(
    backend: Backend, clock: Clock, recount: Recounter
) -> None:
    store = a_store(backend, clock, quota_bytes=100)
    store.set_retention(A, files="tmp/", max_age="1h")
    store.write_file(A, "tmp/big.md", "b" * 60)
    store.write_file(A, "notes.md", "n" * 30)
    clock.now += HOUR + 1
    before = recount.snapshot(A)
    with pytest.raises(QuotaExceeded) as caught:
        store.write_file(A, "new.md", "x" * 80)  # 30 + 80 > 100 even without the expired file
    message = str(caught.value)
    assert "this call needs 80 more bytes, but agent-a stores 30 of 100 bytes" in message
    assert "tmp/big.md" not in message and "delete_file" in message  # the advice names nothing it cannot see
    assert recount.snapshot(A) == before  # nothing changed: the expired file was not deleted either
    with pytest.raises(QuotaExceeded, match="agent-a stores 30 of 100 bytes"):
        store.append_log(A, "run.log", "e" * 71)
    assert recount.snapshot(A) == before
    assert store.append_log(A, "run.log", "e" * 70).entry_id == 1  # exactly 100, once the expired file is gone
    assert live_rows(recount) == ["notes.md"]
    assert recount.check(store, A).total_bytes == 100


def test_making_room_keeps_a_repeated_request_once(backend: Backend, clock: Clock, recount: Recounter) -> None:
    store = a_store(backend, clock, quota_files=1)
    store.set_retention(A, files="tmp/", max_age="1h")
    store.write_file(A, "tmp/old.md", "old\n")
    clock.now += HOUR + 1
    first = store.write_file(A, "kept.md", "v1\n", request_id="r-1")
    assert store.write_file(A, "kept.md", "v1\n", request_id="r-1") == first  # the stored result, not a new call
    assert [v.version for v in store.list_versions(A, "kept.md").versions] == [1]
    assert recount.check(store, A).file_count == 1
