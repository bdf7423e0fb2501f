"""summarize_file: only for long files, cached per version, invalidated by writes and deletes."""

from __future__ import annotations

import math

import pytest

from scratchpad_core.errors import SummaryUnavailable
from scratchpad_core.results import SummaryResult
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer, StoreFactory
from tests.recount import Recounter

A = "agent-a"


@pytest.fixture
def fake() -> FakeSummarizer:
    return FakeSummarizer()


@pytest.fixture
def store(make_store: StoreFactory, fake: FakeSummarizer) -> Scratchpad:
    return make_store(summarizer=fake)


@pytest.mark.parametrize("content", ["x" * 8000, "é" * 8000, "😀" * 8000, "short\n", ""])
def test_files_of_at_most_8000_characters_are_not_summarized(
    store: Scratchpad, fake: FakeSummarizer, content: str
) -> None:
    store.write_file(A, "f.txt", content)
    with pytest.raises(SummaryUnavailable) as caught:
        store.summarize_file(A, "f.txt")
    assert "read_file" in str(caught.value)
    assert fake.calls == []


def test_a_long_file_is_summarized_once_per_version(
    store: Scratchpad, fake: FakeSummarizer, recount: Recounter
) -> None:
    store.write_file(A, "long.txt", "x" * 8001)

    first = store.summarize_file(A, "long.txt")
    assert first == SummaryResult("long.txt", 1, "summary of long.txt (8001 chars)", False, 2001)
    assert fake.calls == ["long.txt"]

    second = store.summarize_file(A, "long.txt")
    assert second == SummaryResult("long.txt", 1, "summary of long.txt (8001 chars)", True, 2001)
    assert fake.calls == ["long.txt"]
    assert recount.summaries(A) == [("long.txt", 1, "summary of long.txt (8001 chars)")]


@pytest.mark.parametrize(("content", "tokens"), [("é" * 8002, 2001), ("a" * 8004, 2001), ("😀" * 9001, 2251)])
def test_estimated_tokens_are_characters_over_four_rounded_up(store: Scratchpad, content: str, tokens: int) -> None:
    store.write_file(A, "f.txt", content)
    result = store.summarize_file(A, "f.txt")
    assert result.estimated_tokens == tokens == math.ceil(len(content) / 4)
    assert result.summary == f"summary of f.txt ({len(content)} chars)"


def test_a_new_write_invalidates_the_summary(store: Scratchpad, fake: FakeSummarizer) -> None:
    store.write_file(A, "long.txt", "x" * 9000)
    store.summarize_file(A, "long.txt")
    store.write_file(A, "long.txt", "y" * 9004)

    fresh = store.summarize_file(A, "long.txt")

    assert fresh == SummaryResult("long.txt", 2, "summary of long.txt (9004 chars)", False, 2251)
    assert fake.calls == ["long.txt", "long.txt"]
    assert store.summarize_file(A, "long.txt").cached is True
    assert len(fake.calls) == 2


def test_an_edit_or_restore_invalidates_the_summary(store: Scratchpad, fake: FakeSummarizer) -> None:
    store.write_file(A, "long.txt", "x" * 9000)
    store.summarize_file(A, "long.txt")
    store.edit_file(A, "long.txt", "x" * 9000, "z" * 9001)
    assert store.summarize_file(A, "long.txt").summary == "summary of long.txt (9001 chars)"
    store.restore_version(A, "long.txt", 1)
    restored = store.summarize_file(A, "long.txt")
    assert (restored.current_version, restored.cached, restored.summary) == (
        3,
        False,
        "summary of long.txt (9000 chars)",
    )
    assert len(fake.calls) == 3


def test_an_identical_write_keeps_the_summary(store: Scratchpad, fake: FakeSummarizer) -> None:
    store.write_file(A, "long.txt", "x" * 9000)
    store.summarize_file(A, "long.txt")
    store.write_file(A, "long.txt", "x" * 9000)
    assert store.summarize_file(A, "long.txt").cached is True
    assert len(fake.calls) == 1


def test_delete_file_removes_the_cached_summary(store: Scratchpad, fake: FakeSummarizer, recount: Recounter) -> None:
    store.write_file(A, "long.txt", "x" * 9000)
    store.summarize_file(A, "long.txt")
    assert len(recount.summaries(A)) == 1

    store.delete_file(A, "long.txt")
    assert recount.summaries(A) == []

    store.write_file(A, "long.txt", "x" * 9000)
    again = store.summarize_file(A, "long.txt")
    assert (again.cached, again.current_version) == (False, 2)  # numbering continues after a delete
    assert len(fake.calls) == 2


class FailingSummarizer:
    model = "failing-model"

    def __init__(self) -> None:
        self.calls = 0

    def summarize(self, path: str, content: str) -> str:
        self.calls += 1
        raise SummaryUnavailable("The summarizer is down; use read_file instead.")


def test_a_failing_summarizer_propagates_and_other_tools_work(make_store: StoreFactory, recount: Recounter) -> None:
    failing = FailingSummarizer()
    store = make_store(summarizer=failing)
    store.write_file(A, "long.txt", "x" * 9000)
    before = recount.snapshot(A)

    with pytest.raises(SummaryUnavailable, match="The summarizer is down"):
        store.summarize_file(A, "long.txt")

    assert failing.calls == 1
    assert recount.snapshot(A) == before
    assert store.read_file(A, "long.txt", start_line=1).total_lines == 1
    assert store.write_file(A, "other.txt", "fine").version == 1
    assert store.append_log(A, "l.log", "fine").entry_id == 1
    assert [f.path for f in store.list_files(A).files] == ["long.txt", "other.txt"]
    with pytest.raises(SummaryUnavailable):
        store.summarize_file(A, "long.txt")
    assert failing.calls == 2
    assert recount.check(store, A).total_operations == 6  # write, read, write, append, list, stats


class RecreatingSummarizer(FakeSummarizer):
    """While the first summary is being made, another client deletes the file and writes a new one."""

    def __init__(self) -> None:
        super().__init__()
        self.store: Scratchpad | None = None

    def summarize(self, path: str, content: str) -> str:
        if not self.calls and self.store is not None:
            self.store.delete_file(A, path)
            self.store.write_file(A, path, "n" * 12_000)
        return super().summarize(path, content)


def test_a_summary_is_not_cached_for_a_file_replaced_while_it_was_made(
    make_store: StoreFactory, recount: Recounter
) -> None:
    summarizer = RecreatingSummarizer()
    store = make_store(summarizer=summarizer)
    summarizer.store = store
    store.write_file(A, "long.txt", "o" * 9000)

    assert store.summarize_file(A, "long.txt").summary == "summary of long.txt (9000 chars)"

    # The file now holds different content (a new file at version 1): the old summary must not be served.
    assert recount.summaries(A) == []
    current = store.summarize_file(A, "long.txt")
    assert (current.cached, current.summary) == (False, "summary of long.txt (12000 chars)")
