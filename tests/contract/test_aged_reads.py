"""A log rule's max_age applied when reading, on every backend (issue 28): read_log (pages, tail, total, has_more,
first_entry_id) and search in its three modes never return an entry older than the rule allows, whether or not an
append or a prune has dropped it yet; a reader past the age sees the log as if those entries were dropped."""

from __future__ import annotations

import dataclasses

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_adapters.regex_engine import BoundedRegexEngine
from scratchpad_core.results import LogPage, SearchResult
from scratchpad_core.service import Scratchpad
from tests.contract.test_retries import Clock

A = "agent-a"
MINUTE = 60_000


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    return Scratchpad(backend.unit_of_work, backend.store.limits, clock=clock, regex_engine=BoundedRegexEngine())


def fill(store: Scratchpad, path: str, first: int, last: int, word: str = "entry") -> None:
    for i in range(first, last + 1):
        assert store.append_log(A, path, f"{word} {i}").entry_id == i


def ids(page: LogPage) -> list[int]:
    return [e.id for e in page.entries]


def entries(result: SearchResult) -> list[tuple[str, int | None]]:
    return [(m.path, m.entry) for m in result.matches if m.entry is not None]


@pytest.fixture
def aged(store: Scratchpad, clock: Clock) -> Scratchpad:
    """runs/a.log: entries 1..5 written 16 minutes ago, 6..8 six minutes ago, under a 15-minute rule, with
    no append or prune since the first five passed their age."""
    store.set_retention(A, logs="runs/", max_age="15m")
    fill(store, "runs/a.log", 1, 5, "zebra")
    clock.now += 10 * MINUTE
    fill(store, "runs/a.log", 6, 8, "giraffe")
    clock.now += 6 * MINUTE
    return store


def test_read_log_leaves_out_entries_past_the_age_not_yet_dropped(aged: Scratchpad) -> None:
    page = aged.read_log(A, "runs/a.log")
    assert (ids(page), page.total, page.has_more, page.first_entry_id) == ([6, 7, 8], 3, False, 6)
    assert [e.entry for e in page.entries] == ["giraffe 6", "giraffe 7", "giraffe 8"]
    before = aged.read_log(A, "runs/a.log", since_entry=2, limit=2)  # a cursor among the aged ones
    assert (ids(before), before.total, before.has_more, before.first_entry_id, before.last_entry_id) == (
        [6, 7], 3, True, 6, 7
    )  # fmt: skip
    just = aged.read_log(A, "runs/a.log", since_entry=5)  # just before the oldest seen: no gap
    assert (ids(just), just.total, just.first_entry_id) == ([6, 7, 8], 3, None)
    assert aged.read_log(A, "runs/a.log", since_entry=7) == LogPage(just.entries[2:], 1, 8, False)
    assert ids(aged.read_log(A, "runs/a.log", tail=5)) == [6, 7, 8]
    assert ids(aged.read_log(A, "runs/a.log", tail=2)) == [7, 8]
    assert aged.read_log(A, "runs/a.log", tail=5).total == 3
    assert aged.prune().entries_dropped == 5  # they were still stored: the reads above left them out
    assert aged.read_log(A, "runs/a.log") == page


def test_a_log_whose_every_entry_is_past_the_age_reads_as_empty(aged: Scratchpad, clock: Clock) -> None:
    clock.now += 10 * MINUTE  # 6..8 are 16 minutes old too
    assert aged.read_log(A, "runs/a.log") == LogPage([], 0, 0, False)
    assert aged.read_log(A, "runs/a.log", since_entry=3) == LogPage([], 0, 3, False)  # a poller's cursor echoed
    assert aged.read_log(A, "runs/a.log", tail=3) == LogPage([], 0, 0, False)
    assert aged.append_log(A, "runs/a.log", "okapi 9").entry_id == 9  # ids keep counting
    page = aged.read_log(A, "runs/a.log", since_entry=3)
    assert (ids(page), page.total, page.first_entry_id) == ([9], 1, 9)


def test_exactly_max_age_old_is_still_read(store: Scratchpad, clock: Clock) -> None:
    store.set_retention(A, logs="x.log", max_age="15m")
    fill(store, "x.log", 1, 2)
    clock.now += 15 * MINUTE
    assert ids(store.read_log(A, "x.log")) == [1, 2]
    assert entries(store.search_files(A, "entry")) == [("x.log", 1), ("x.log", 2)]
    clock.now += 1
    assert ids(store.read_log(A, "x.log")) == []
    assert entries(store.search_files(A, "entry")) == []


def test_search_in_every_mode_leaves_out_entries_past_the_age(aged: Scratchpad) -> None:
    aged.write_file(A, "zoo.md", "a zebra and a giraffe\n")
    aged.append_log(A, "other.log", "a zebra outside the rule")  # no rule governs other.log
    for result in (
        aged.search_files(A, "zebra"),
        aged.search_files(A, "zebra", exact=True),
        aged.search_files(A, "^zebra [0-9]$", regex=True),
    ):
        assert entries(result) in ([("other.log", 1)], [])  # runs/a.log's zebras are past the age
        assert all(m.path != "runs/a.log" for m in result.matches)
    assert entries(aged.search_files(A, "zebra")) == [("other.log", 1)]
    assert entries(aged.search_files(A, "zebra", exact=True)) == [("other.log", 1)]
    giraffes = [("runs/a.log", 6), ("runs/a.log", 7), ("runs/a.log", 8)]
    assert sorted(entries(aged.search_files(A, "giraffe"))) == giraffes
    assert entries(aged.search_files(A, "giraffe", exact=True)) == giraffes
    assert entries(aged.search_files(A, r"giraffe \d", regex=True)) == giraffes
    one = aged.search_files(A, "giraffe", exact=True, max_results=2)  # files first (zoo.md), then entries
    assert (one.count, one.has_more, entries(one)) == (2, True, giraffes[:1])


def test_a_longer_prefix_without_max_age_keeps_what_a_shorter_one_would_age(store: Scratchpad, clock: Clock) -> None:
    store.set_retention(A, logs="runs/", max_age="1m")
    store.set_retention(A, logs="runs/keep.log", keep_entries=100)
    fill(store, "runs/keep.log", 1, 3)
    fill(store, "runs/go.log", 1, 3)
    clock.now += 2 * MINUTE
    assert ids(store.read_log(A, "runs/keep.log")) == [1, 2, 3]
    assert ids(store.read_log(A, "runs/go.log")) == []
    assert entries(store.search_files(A, "entry", exact=True)) == [("runs/keep.log", i) for i in (1, 2, 3)]
    assert sorted(entries(store.search_files(A, "entry"))) == [("runs/keep.log", i) for i in (1, 2, 3)]


def test_clearing_the_rule_brings_back_what_was_not_dropped(aged: Scratchpad) -> None:
    assert aged.read_log(A, "runs/a.log").total == 3
    aged.clear_retention(A, logs="runs/")
    page = aged.read_log(A, "runs/a.log")
    assert (ids(page), page.first_entry_id) == ([1, 2, 3, 4, 5, 6, 7, 8], None)
    assert len(entries(aged.search_files(A, "zebra"))) == 5


def test_aged_entries_count_nowhere(aged: Scratchpad, clock: Clock) -> None:
    """list_logs (the recall prompt and the web view read it), get_usage_stats, the agents' list (the web view's
    agent page), and the quotas: an entry past its age counts as dropped, as read_log shows it."""
    fill(aged, "runs/old.log", 1, 2, "okapi")  # written now ...
    clock.now += 16 * MINUTE  # ... and all past the age with 6..8 of a.log, which leaves nothing seen there
    fill(aged, "keep.log", 1, 1, "lion")
    stored = {log.path: log for log in aged.list_logs(A).logs}
    assert sorted(stored) == ["keep.log"]  # both logs under runs/ read as dropped
    usage = aged.get_usage_stats(A)
    assert (usage.logs, usage.log_count, usage.total_bytes) == (1, 1, len("lion 1"))
    agent = aged.find_agent(A)
    assert agent is not None and (agent.logs, agent.log_entries, agent.bytes) == (1, 1, len("lion 1"))
    assert [(u.logs, u.log_entries) for u in aged.list_agents() if u.agent_id == A] == [(1, 1)]


def test_list_logs_counts_the_entries_a_reader_sees(aged: Scratchpad) -> None:
    [log] = aged.list_logs(A, "runs/").logs
    assert (log.entries, log.bytes, log.last_entry_id) == (3, len("giraffe 6") * 3, 8)


def test_a_quota_does_not_count_aged_entries(backend: Backend, clock: Clock) -> None:
    limits = dataclasses.replace(backend.store.limits, quota_log_entries=6)
    store = Scratchpad(backend.unit_of_work, limits, clock=clock)
    store.set_retention(A, logs="runs/", max_age="15m")
    fill(store, "runs/a.log", 1, 5, "zebra")
    clock.now += 16 * MINUTE
    fill(store, "other.log", 1, 3, "lion")  # 5 aged + 3 would pass 6: the aged ones go first, as a prune's
    assert store.get_usage_stats(A).log_count == 3
    assert store.list_logs(A).count == 1
    assert store.read_log(A, "runs/a.log").entries == []
