"""Redaction (issue 24) on every backend: a version's content, a text in every retained version, a log entry's
text; the history keeps numbers, times and actors; sizes, hashes, counters, the index and summaries follow."""

from __future__ import annotations

import dataclasses

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_core.errors import NotFound, NothingToRedact
from scratchpad_core.redaction.rules import marker
from scratchpad_core.results import Redacted
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer
from tests.contract.test_retries import Clock
from tests.recount import Recounter

A = "agent-a"
SECRET = "sk-live-0123456789abcdef"


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    store = Scratchpad(backend.unit_of_work, backend.store.limits, clock=clock, summarizer=FakeSummarizer())
    store.write_file(A, "notes.md", "plan\n")
    clock.now += 1000
    store.write_file(A, "notes.md", f"plan\nkey: {SECRET}\n", actor="key k1")
    clock.now += 1000
    store.write_file(A, "notes.md", f"plan\nkey: {SECRET}\nand again {SECRET}\nmore\n")
    clock.now += 1000
    return store


def contents(store: Scratchpad, path: str = "notes.md") -> dict[int, str]:
    versions = store.list_versions(A, path).versions
    return {v.version: store.read_file(A, path, version=v.version).content or "" for v in versions}


def test_an_old_version_is_redacted_in_place(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    before = store.list_versions(A, "notes.md").versions
    result = store.redact_version(A, "notes.md", 2, by="admin")
    assert result.redacted == [Redacted(path="notes.md", version=2, whole=True)]  # not the current one: no new version
    assert (result.dry_run, result.requests_forgotten) == (False, 0)
    mark = marker(clock.now, "admin")
    assert contents(store)[2] == mark + "\n"
    after = store.list_versions(A, "notes.md").versions
    assert [(v.version, v.created_at, v.by) for v in after] == [(v.version, v.created_at, v.by) for v in before]
    assert after[1].bytes == len(mark) + 1 and after[1].sha256 != before[1].sha256 and after[1].lines == 1
    assert after[2] == before[2]
    recount.check(store, A)


def test_the_current_versions_redaction_makes_a_new_version(store: Scratchpad, clock: Clock) -> None:
    result = store.redact_version(A, "notes.md", 3, by="admin")
    assert result.redacted == [Redacted(path="notes.md", version=3, whole=True, new_version=4)]
    mark = marker(clock.now, "admin") + "\n"
    assert contents(store)[3] == contents(store)[4] == mark
    caught_up = store.read_file(A, "notes.md", since_version=3)  # an agent at version 3 sees a change
    assert caught_up.current_version == 4 and caught_up.unchanged is not True
    assert store.list_versions(A, "notes.md").versions[-1].by == "admin"


def test_a_text_goes_from_every_retained_version(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    assert store.search_files(A, "0123456789abcdef").count == 1
    result = store.redact_text(A, "notes.md", SECRET, by="admin")
    assert result.redacted == [
        Redacted(path="notes.md", version=2, occurrences=1),
        Redacted(path="notes.md", version=3, occurrences=2, new_version=4),
    ]
    mark = marker(clock.now, "admin")
    texts = contents(store)
    assert texts == {
        1: "plan\n",
        2: f"plan\nkey: {mark}\n",
        3: f"plan\nkey: {mark}\nand again {mark}\nmore\n",
        4: f"plan\nkey: {mark}\nand again {mark}\nmore\n",
    }
    assert all(SECRET not in text for text in texts.values())
    assert store.search_files(A, "0123456789abcdef").count == 0
    assert store.search_files(A, SECRET, exact=True).count == 0
    diff = store.read_file(A, "notes.md", since_version=2, format="unified")  # across a redacted version
    assert diff.current_version == 4 and SECRET not in (diff.diff or "")
    assert diff.redacted is True  # the diff says it starts from a redacted version
    assert store.read_file(A, "notes.md", since_version=3, format="compact").redacted is True
    assert store.read_file(A, "notes.md", since_version=1).redacted is None  # version 1 never held it
    stats = recount.check(store, A)
    assert stats.total_bytes == sum(len(t.encode()) for t in texts.values())


def test_a_redactions_new_version_prunes_no_version(backend: Backend, clock: Clock, recount: Recounter) -> None:
    """A file at its kept window: the redaction's new version keeps every version it redacted (history intact);
    the next write prunes back to the window, as any write does."""
    limits = dataclasses.replace(backend.store.limits, max_versions=3)
    store = Scratchpad(backend.unit_of_work, limits, clock=clock)
    for number in (1, 2, 3):
        store.write_file(A, "w.md", f"v{number} {SECRET}\n")
    result = store.redact_text(A, "w.md", SECRET, by="admin")
    assert [(row.version, row.new_version) for row in result.redacted] == [(1, None), (2, None), (3, 4)]
    mark = marker(clock.now, "admin")
    assert contents(store, "w.md") == {1: f"v1 {mark}\n", 2: f"v2 {mark}\n", 3: f"v3 {mark}\n", 4: f"v3 {mark}\n"}
    recount.check(store, A)
    store.write_file(A, "w.md", "v5\n")
    assert sorted(contents(store, "w.md")) == [3, 4, 5]
    recount.check(store, A)


def test_a_text_not_present_changes_nothing_and_says_so(store: Scratchpad, recount: Recounter) -> None:
    before = recount.snapshot(A)
    with pytest.raises(NotFound, match=r"^nothing to redact: the text is not in any retained version of notes\.md"):
        store.redact_text(A, "notes.md", "not-there")
    with pytest.raises(NotFound, match=r"^nothing to redact: version 9 of notes\.md is not retained"):
        store.redact_version(A, "notes.md", 9)
    assert recount.snapshot(A) == before


def test_a_redacted_version_restored_brings_back_the_marker(store: Scratchpad, clock: Clock) -> None:
    store.redact_version(A, "notes.md", 2, by="admin")
    restored = store.restore_version(A, "notes.md", 2)
    assert store.read_file(A, "notes.md").content == marker(clock.now, "admin") + "\n"
    assert restored.version == 4


def test_a_summary_of_a_redacted_version_is_dropped(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "big.md", f"{SECRET}\n" + "words of a long file\n" * 500)
    store.summarize_file(A, "big.md")
    assert [row[:2] for row in recount.summaries(A)] == [("big.md", 1)]
    store.redact_text(A, "big.md", SECRET)
    assert recount.summaries(A) == []
    again = store.summarize_file(A, "big.md")
    assert (again.cached, again.current_version) == (False, 2)


def test_a_log_entry_is_redacted(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    for text in ("start", "token=pw-feedface42", "end"):
        store.append_log(A, "run.log", text)
    assert store.search_files(A, "feedface42").count == 1
    assert store.redact_entry(A, "run.log", 2, by="admin").redacted == [Redacted(path="run.log", entry=2, whole=True)]
    page = store.read_log(A, "run.log", show_by=True)
    assert [e.entry for e in page.entries] == ["start", marker(clock.now, "admin"), "end"]
    assert [e.id for e in page.entries] == [1, 2, 3]
    assert store.search_files(A, "feedface42").count == 0
    assert store.search_files(A, "start").count == 1  # the rest of the log is still found
    with pytest.raises(NotFound, match=r"^nothing to redact: entry 7 of run\.log is not kept"):
        store.redact_entry(A, "run.log", 7)
    recount.check(store, A)


def test_a_reply_kept_for_a_repeat_does_not_give_the_text_back(store: Scratchpad) -> None:
    store.write_file(A, "keys.md", "first\nb\n")
    first = store.edit_file(A, "keys.md", "b", f"b {SECRET}", snippet=True, request_id="r-1")
    assert SECRET in (first.snippet or "") and first.version == 2
    assert store.edit_file(A, "keys.md", "b", f"b {SECRET}", snippet=True, request_id="r-1") == first  # a replay
    assert store.redact_text(A, "keys.md", SECRET).redacted[-1].new_version == 3
    again = store.edit_file(A, "keys.md", "first", "1st", snippet=True, request_id="r-1")  # forgotten: a new call
    assert again.version == 4 and SECRET not in (again.snippet or "")


def test_a_text_inside_a_markers_words_nests_no_marker(store: Scratchpad, clock: Clock) -> None:
    """`redact --text redacted` (or a text of a marker's time) leaves the markers already there whole; an
    occurrence elsewhere goes. A look-alike marker hides no text in its `by` part from a redaction."""
    store.redact_text(A, "notes.md", SECRET, by="admin")
    before = contents(store)
    with pytest.raises(NothingToRedact, match=r"^nothing to redact"):
        store.redact_text(A, "notes.md", "redacted", by="admin")
    assert contents(store) == before
    when = marker(clock.now, "admin")[len("[redacted ") : len("[redacted ") + 10]  # its date, e.g. 2023-11-14
    store.write_file(A, "notes.md", f"{before[4]}dated {when}\n")
    done = store.redact_text(A, "notes.md", when, by="ops")
    assert [(row.version, row.occurrences) for row in done.redacted] == [(5, 1)]  # the line's, not the markers'
    fake = f"[redacted 2020-01-01T00:00:00Z by {SECRET}]"  # written by anyone: the secret in it still goes
    store.write_file(A, "fake.md", f"{fake}\n")
    store.redact_text(A, "fake.md", SECRET, by="ops")
    assert all(SECRET not in text for text in contents(store, "fake.md").values())
