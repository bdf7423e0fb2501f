"""Log retention (issue 24) on every backend: rules kept per agent and prefix, applied in the transaction of an
append that goes past them (a bounded batch), and by prune() for rules by age; readers crossing a drop; quotas
and counters that fall with what is dropped (equal to a recount)."""

from __future__ import annotations

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.integrity.checking import check
from scratchpad_core.errors import InvalidInput, QuotaExceeded
from scratchpad_core.limits import Limits
from scratchpad_core.results import LogPage, PruneResult
from scratchpad_core.retention.rules import DROP_BATCH, LOGS, RetentionRule
from scratchpad_core.service import Scratchpad
from tests.conftest import SQL_ONLY
from tests.contract.test_retries import Clock
from tests.recount import Recounter

A, B = "agent-a", "agent-b"
MINUTE = 60_000


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    """The test's store, on a clock the test moves."""
    return Scratchpad(backend.unit_of_work, backend.store.limits, clock=clock)


def fill(store: Scratchpad, path: str, first: int, last: int, agent: str = A) -> None:
    for i in range(first, last + 1):
        assert store.append_log(agent, path, f"e{i}").entry_id == i


def ids(page: LogPage) -> list[int]:
    return [e.id for e in page.entries]


def test_rules_are_set_listed_replaced_and_cleared(store: Scratchpad) -> None:
    assert store.list_retention() == []
    rule = store.set_retention(B, logs="runs/", keep_entries=10, max_age="30d")  # B holds nothing yet
    assert rule == RetentionRule(B, LOGS, "runs/", 10, 30 * 86_400)
    store.set_retention(A, logs="", max_age="12h")
    store.set_retention(B, logs="runs/", keep_entries=5)  # replaces B's rule on runs/
    expected = [RetentionRule(A, LOGS, "", None, 43_200), RetentionRule(B, LOGS, "runs/", 5, None)]
    assert store.list_retention() == expected
    assert store.list_retention(B) == expected[1:]
    assert store.clear_retention(B, logs="runs/") is True
    assert store.clear_retention(B, logs="runs/") is False
    assert store.clear_retention(A, files="tmp/") is False
    assert store.list_retention() == expected[:1]


def test_change_retention_changes_only_the_limits_given(store: Scratchpad) -> None:
    assert store.change_retention(A, logs="runs/", max_age="7d") == RetentionRule(A, LOGS, "runs/", None, 604_800)
    store.set_retention(A, logs="runs/", keep_entries=1000, max_age="30d")
    assert store.change_retention(A, logs="runs/", max_age="7d") == RetentionRule(A, LOGS, "runs/", 1000, 604_800)
    assert store.change_retention(A, logs="runs/", keep_entries=5, remove=["max_age"]) == RetentionRule(
        A, LOGS, "runs/", 5, None
    )
    with pytest.raises(InvalidInput, match=r"without keep-entries the rule on logs 'runs/' .* would keep everything"):
        store.change_retention(A, logs="runs/", remove=["keep_entries"])
    with pytest.raises(InvalidInput, match="has no rule on logs 'other/' to remove max-age from"):
        store.change_retention(A, logs="other/", remove=["max_age"])
    with pytest.raises(InvalidInput, match="keep-entries is both given and removed"):
        store.change_retention(A, logs="runs/", keep_entries=3, remove=["keep_entries"])
    with pytest.raises(InvalidInput, match="Invalid limit to remove 'prefix'"):
        store.change_retention(A, logs="runs/", remove=["prefix"])
    with pytest.raises(InvalidInput, match="a files rule takes max-age only"):
        store.change_retention(A, files="tmp/", keep_entries=3)
    assert store.list_retention() == [RetentionRule(A, LOGS, "runs/", 5, None)]  # the refusals changed nothing


def test_a_rule_with_neither_count_nor_age_is_refused_and_changes_nothing(store: Scratchpad) -> None:
    with pytest.raises(InvalidInput, match=r"^Invalid retention rule: give keep-entries N, max-age DURATION"):
        store.set_retention(A, logs="runs/")
    with pytest.raises(InvalidInput, match="must be positive"):
        store.set_retention(A, logs="runs/", max_age="0s")
    with pytest.raises(InvalidInput, match="must be positive"):
        store.set_retention(A, logs="runs/", keep_entries=0)
    assert store.list_retention() == []


def test_keep_entries_keeps_exactly_n(store: Scratchpad, recount: Recounter) -> None:
    store.set_retention(A, logs="runs/", keep_entries=3)
    fill(store, "runs/a.log", 1, 3)
    page = store.read_log(A, "runs/a.log")
    assert (ids(page), page.total, page.first_entry_id) == ([1, 2, 3], 3, None)  # at the limit: nothing dropped
    fill(store, "runs/a.log", 4, 4)
    page = store.read_log(A, "runs/a.log")
    assert (ids(page), page.total, page.first_entry_id) == ([2, 3, 4], 3, 2)
    assert [e.entry for e in page.entries] == ["e2", "e3", "e4"]
    fill(store, "runs/a.log", 5, 9)
    assert ids(store.read_log(A, "runs/a.log")) == [7, 8, 9]
    stats = recount.check(store, A)  # counters equal a recount, as soon as the append returns
    assert (stats.log_count, stats.logs) == (3, 1)
    fill(store, "other.log", 1, 5)  # outside the prefix: no rule
    assert store.read_log(A, "other.log").total == 5
    fill(store, "runs/a.log", 1, 2, agent=B)  # another agent's log under the same path: B has no rule
    assert store.read_log(B, "runs/a.log").total == 2
    recount.check(store, A)


def test_the_longest_prefix_governs_and_a_log_path_is_a_prefix(store: Scratchpad) -> None:
    store.set_retention(A, logs="", keep_entries=5)
    store.set_retention(A, logs="runs/", keep_entries=2)
    store.set_retention(A, logs="runs/keep.log", keep_entries=4)
    for path in ("x.log", "runs/a.log", "runs/keep.log"):
        fill(store, path, 1, 8)
    assert [store.read_log(A, p).total for p in ("x.log", "runs/a.log", "runs/keep.log")] == [5, 2, 4]


def test_a_reader_before_the_oldest_kept_gets_the_oldest_kept_never_an_error_never_twice(store: Scratchpad) -> None:
    store.set_retention(A, logs="run.log", keep_entries=4)
    fill(store, "run.log", 1, 3)
    first = store.read_log(A, "run.log", limit=2)
    assert (ids(first), first.last_entry_id, first.first_entry_id) == ([1, 2], 2, None)
    fill(store, "run.log", 4, 10)  # 1..6 dropped: the reader's cursor (2) points before the oldest kept (7)
    caught = store.read_log(A, "run.log", since_entry=first.last_entry_id)
    assert (ids(caught), caught.total, caught.first_entry_id, caught.has_more) == ([7, 8, 9, 10], 4, 7, False)
    again = store.read_log(A, "run.log", since_entry=caught.last_entry_id)
    assert (ids(again), again.first_entry_id) == ([], None)  # nothing twice
    assert store.read_log(A, "run.log", since_entry=6).first_entry_id is None  # just before the oldest: no gap
    assert store.read_log(A, "run.log", since_entry=0, limit=1) == LogPage(
        store.read_log(A, "run.log", since_entry=6, limit=1).entries, 4, 7, True, first_entry_id=7
    )
    assert ids(store.read_log(A, "run.log", tail=2)) == [9, 10]
    assert store.append_log(A, "run.log", "e11").entry_id == 11  # ids keep counting


def test_max_age_drops_entries_older_than_it_on_append(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    store.set_retention(A, logs="runs/", max_age="15m")
    fill(store, "runs/a.log", 1, 3)
    clock.now += 15 * MINUTE  # exactly 15 minutes old: kept
    fill(store, "runs/a.log", 4, 4)
    assert ids(store.read_log(A, "runs/a.log")) == [1, 2, 3, 4]
    clock.now += 1  # now older than 15 minutes
    fill(store, "runs/a.log", 5, 5)
    page = store.read_log(A, "runs/a.log")
    assert (ids(page), page.first_entry_id) == ([4, 5], 4)
    recount.check(store, A)


def test_a_log_far_past_a_new_rule_catches_up_in_bounded_batches(store: Scratchpad, recount: Recounter) -> None:
    fill(store, "big.log", 1, 2 * DROP_BATCH + 10)
    store.set_retention(A, logs="big.log", keep_entries=5)
    assert store.read_log(A, "big.log").total == 2 * DROP_BATCH + 10  # setting a rule drops nothing by itself
    fill(store, "big.log", 2 * DROP_BATCH + 11, 2 * DROP_BATCH + 11)
    assert store.read_log(A, "big.log").total == DROP_BATCH + 11  # one append, one batch
    recount.check(store, A)
    result = store.prune()
    assert result == PruneResult(logs_trimmed=1, entries_dropped=DROP_BATCH + 6, bytes_freed=result.bytes_freed)
    page = store.read_log(A, "big.log")
    kept = list(range(2 * DROP_BATCH + 7, 2 * DROP_BATCH + 12))
    assert (ids(page), page.first_entry_id) == (kept, kept[0])
    assert store.prune() == PruneResult(0, 0, 0)
    recount.check(store, A)


def test_prune_drops_by_age_without_an_append(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    store.set_retention(A, logs="runs/", max_age="1h")
    fill(store, "runs/old.log", 1, DROP_BATCH + 3)
    clock.now += 30 * MINUTE
    fill(store, "runs/mixed.log", 1, 2)
    clock.now += 31 * MINUTE
    fill(store, "runs/mixed.log", 3, 4)  # 1 and 2 are 31 minutes old: kept
    fill(store, "kept.log", 1, 2)
    clock.now += 30 * MINUTE  # old.log's entries 91 minutes old, mixed.log's 1 and 2 61, its 3 and 4 30
    result = store.prune()
    assert result.entries_dropped == DROP_BATCH + 3 + 2 and result.logs_emptied == 1
    assert (result.logs_trimmed, result.bytes_freed) == (2, sum(len(f"e{i}") for i in range(1, DROP_BATCH + 4)) + 4)
    assert [g.path for g in store.list_logs(A).logs] == ["kept.log", "runs/mixed.log"]  # an emptied log is gone
    assert ids(store.read_log(A, "runs/mixed.log")) == [3, 4]
    assert store.append_log(A, "runs/old.log", "back").entry_id == DROP_BATCH + 4  # its path remembers its ids
    stats = recount.check(store, A)
    assert (stats.logs, stats.log_count) == (3, 5)


def test_quotas_fall_with_what_is_dropped(backend: Backend, clock: Clock, recount: Recounter) -> None:
    store = Scratchpad(backend.unit_of_work, Limits(quota_log_entries=5), clock=clock)
    fill(store, "free.log", 1, 3)
    store.set_retention(A, logs="capped.log", keep_entries=2)
    for i in range(1, 50):  # at the quota, an append to a log at its limit still fits: it drops one
        store.append_log(A, "capped.log", f"c{i}")
    assert recount.check(store, A).log_count == 5
    with pytest.raises(QuotaExceeded):
        store.append_log(A, "free.log", "e4")
    assert recount.check(store, A).log_count == 5


def test_dropped_entries_leave_the_search_index(store: Scratchpad) -> None:
    store.set_retention(A, logs="run.log", keep_entries=1)
    store.append_log(A, "run.log", "zebra crossing")
    store.append_log(A, "run.log", "giraffe neck")
    assert store.search_files(A, "zebra").count == 0
    assert store.search_files(A, "giraffe").count == 1
    store.clear_retention(A, logs="run.log")
    store.append_log(A, "run.log", "zebra again")
    assert store.read_log(A, "run.log").total == 2  # a cleared rule applies from the next call
    assert store.search_files(A, "zebra").count == 1


@SQL_ONLY  # db check reads the SQL rows
def test_db_check_knows_retention(store: Scratchpad, clock: Clock, database_url: str) -> None:
    store.set_retention(A, logs="runs/", keep_entries=3)
    store.set_retention(A, logs="aged.log", max_age="1m")
    fill(store, "runs/a.log", 1, 10)
    fill(store, "big.log", 1, DROP_BATCH + 5)
    store.set_retention(A, logs="big.log", keep_entries=1)
    fill(store, "big.log", DROP_BATCH + 6, DROP_BATCH + 6)  # part way: a log still past its rule
    fill(store, "aged.log", 1, 3)
    clock.now += 2 * MINUTE
    engine = make_engine(database_url)
    try:
        before = check(engine, Limits())
        store.prune()
        after = check(engine, Limits())
    finally:
        engine.dispose()
    assert before.ok and after.ok, [*before.lines(), *after.lines()]
    note = "note: 3 retention rules; {} past its keep-entries and 0 expired files not yet pruned (`db prune` removes"
    kept = [n.split(" them)")[0] for n in before.notes + after.notes if "backlog" not in n]  # (appends wait in it)
    assert kept == [note.format("1 log"), note.format("0 logs")]
