"""Redaction across an agent (issue 28) on every backend: a text goes from every retained version of every file and
every kept log entry, or from one file or one log; a dry run says where, per version and entry, and changes
nothing; a text under 4 characters is refused; no redaction makes a version or entry pass its size limit."""

from __future__ import annotations

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_core.errors import InvalidInput, LimitExceeded, NotFound
from scratchpad_core.limits import Limits
from scratchpad_core.redaction.rules import marker
from scratchpad_core.results import Redacted, RedactResult
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer
from tests.contract.test_retries import Clock
from tests.recount import Recounter

A, B = "agent-a", "agent-b"
SECRET = "tok-Vq7Xb2Lm"  # no "_": another change makes it separate words


def open_with(backend: Backend, clock: Clock, limits: Limits | None = None) -> Scratchpad:
    return Scratchpad(backend.unit_of_work, limits or backend.store.limits, clock=clock, summarizer=FakeSummarizer())


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    """a.md: the secret in version 1 only; b.md: in versions 2 and 3 (twice in 3); clean.md never; run.log: entries
    2 and 3; quiet.log: none; agent B holds the same secret, which no redaction of A touches."""
    store = open_with(backend, clock)
    store.write_file(A, "a.md", f"old {SECRET}\n")
    store.write_file(A, "a.md", "now clean\n")
    store.write_file(A, "b.md", "start\n")
    store.write_file(A, "b.md", f"start {SECRET}\n")
    store.write_file(A, "b.md", f"start {SECRET}\nagain {SECRET}\n")
    store.write_file(A, "clean.md", "nothing here\n")
    for text in ("boot", f"token={SECRET}", f"{SECRET} {SECRET} {SECRET}", "done"):
        store.append_log(A, "run.log", text)
    store.append_log(A, "quiet.log", "calm")
    store.write_file(B, "b.md", f"{SECRET}\n")
    clock.now += 5000
    return store


EVERY_ROW = [
    Redacted(path="a.md", version=1, occurrences=1),
    Redacted(path="b.md", version=2, occurrences=1),
    Redacted(path="b.md", version=3, occurrences=2, new_version=4),
    Redacted(path="run.log", entry=2, occurrences=1),
    Redacted(path="run.log", entry=3, occurrences=3),
]


def test_a_text_goes_from_every_file_and_log_of_the_agent(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    result = store.redact_everywhere(A, SECRET, by="ops")
    assert result == RedactResult(EVERY_ROW)
    mark = marker(clock.now, "ops")
    assert store.read_file(A, "a.md", version=1).content == f"old {mark}\n"
    assert store.read_file(A, "b.md").content == f"start {mark}\nagain {mark}\n"
    assert store.read_file(A, "b.md").current_version == 4
    assert [e.entry for e in store.read_log(A, "run.log").entries] == ["boot", f"token={mark}", f"{mark} {mark} {mark}",
                                                                        "done"]  # fmt: skip
    assert store.search_files(A, "Vq7Xb2Lm").count == 0 and store.search_files(A, SECRET, exact=True).count == 0
    assert store.search_files(A, "boot").count == 1
    assert store.read_file(B, "b.md").content == f"{SECRET}\n"  # another agent's is not this redaction's
    recount.check(store, A)
    recount.check(store, B)
    with pytest.raises(NotFound, match=rf"^nothing to redact: no retained version of {A}'s files and no kept entry"):
        store.redact_everywhere(A, SECRET)  # gone: a second run finds nothing


def test_a_dry_run_says_the_same_and_changes_nothing(store: Scratchpad, recount: Recounter) -> None:
    before = recount.snapshot(A)
    planned = store.redact_everywhere(A, SECRET, by="ops", dry_run=True)
    assert planned == RedactResult(EVERY_ROW, dry_run=True)
    assert recount.snapshot(A) == before  # no row moved, not even a counter
    assert store.redact_log_text(A, "run.log", SECRET, dry_run=True).redacted == EVERY_ROW[3:]
    assert store.redact_text(A, "b.md", SECRET, dry_run=True).redacted == EVERY_ROW[1:3]
    assert store.redact_version(A, "a.md", 2, dry_run=True).redacted == [
        Redacted(path="a.md", version=2, whole=True, new_version=3)
    ]
    assert store.redact_entry(A, "quiet.log", 1, dry_run=True).redacted == [
        Redacted(path="quiet.log", entry=1, whole=True)
    ]
    assert recount.snapshot(A) == before
    assert store.redact_everywhere(A, SECRET, by="ops").redacted == planned.redacted  # then it does what it said


def test_a_log_alone_or_a_file_alone(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    assert store.redact_log_text(A, "run.log", SECRET, by="ops").redacted == EVERY_ROW[3:]
    assert SECRET in (store.read_file(A, "b.md").content or "")  # files untouched
    with pytest.raises(NotFound, match=r"^nothing to redact: the text is not in any kept entry of quiet\.log"):
        store.redact_log_text(A, "quiet.log", SECRET)
    with pytest.raises(NotFound, match=r"^Log not found: none\.log"):
        store.redact_log_text(A, "none.log", SECRET)
    assert store.redact_text(A, "a.md", SECRET).redacted == EVERY_ROW[:1]
    assert store.redact_everywhere(A, SECRET).redacted == EVERY_ROW[1:3]  # what is left
    recount.check(store, A)


@pytest.mark.parametrize(
    ("short", "size"),
    [("", "0 characters"), ("a", "1 character"), ("abc", "3 characters"), ("   ", "3 characters"),
     (" a b c ", "7 characters, 3 not whitespace"), ("\t\n  \n", "5 characters, 0 not whitespace")],
)  # fmt: skip
def test_a_text_under_four_characters_is_refused(store: Scratchpad, recount: Recounter, short: str, size: str) -> None:
    before = recount.snapshot(A)
    for redact in (store.redact_everywhere, lambda a, t: store.redact_text(a, "b.md", t),
                   lambda a, t: store.redact_log_text(a, "run.log", t)):  # fmt: skip
        with pytest.raises(InvalidInput) as refused:
            redact(A, short)
        assert str(refused.value) == (
            f"Invalid text to redact ({size}): give the exact text to remove, 4 to 10,000 characters, at least 4 of "
            "them not whitespace (a shorter one is in most of a store and would rewrite it). Nothing was changed."
        )
    assert recount.snapshot(A) == before
    assert store.redact_everywhere(A, "clea", dry_run=True).redacted == [
        Redacted(path="a.md", version=2, occurrences=1, new_version=3)  # four characters will do
    ]


def test_no_redaction_passes_the_size_limit(backend: Backend, clock: Clock, recount: Recounter) -> None:
    limits = Limits(max_file_bytes=400, max_log_entry_bytes=200)
    store = open_with(backend, clock, limits)
    crowded = "pw42 " * 60  # 300 bytes; 60 markers of 38 bytes would be 2,280
    store.write_file(A, "crowded.md", crowded + "\n")
    store.write_file(A, "sparse.md", "one pw42 here\n")
    store.append_log(A, "run.log", "pw42 " * 30)
    mark = marker(clock.now, "ops")
    done = store.redact_everywhere(A, "pw42", by="ops")
    assert done.redacted == [
        Redacted(path="crowded.md", version=1, occurrences=60, whole=True, new_version=2),  # one marker for it
        Redacted(path="sparse.md", version=1, occurrences=1, new_version=2),
        Redacted(path="run.log", entry=1, occurrences=30, whole=True),
    ]
    assert store.read_file(A, "crowded.md", version=1).content == mark + "\n"
    assert store.read_file(A, "sparse.md").content == f"one {mark} here\n"
    assert [e.entry for e in store.read_log(A, "run.log").entries] == [mark]
    assert all(v.bytes <= 400 for v in store.list_versions(A, "crowded.md").versions)
    recount.check(store, A)
    tiny = open_with(backend, clock, Limits(max_file_bytes=20))  # a limit below a marker's own length
    store.write_file(A, "t.md", "pw42\n")
    refusal = r"^Cannot redact version 1 of t\.md: even one marker \(39 bytes\) passes the 20-byte file size limit;"
    with pytest.raises(LimitExceeded, match=refusal):
        tiny.redact_text(A, "t.md", "pw42", by="ops")


def test_an_expired_file_holding_the_text_is_pruned(store: Scratchpad, clock: Clock, recount: Recounter) -> None:
    store.set_retention(A, files="a.md", max_age="1h")
    clock.now += 3_600_001
    planned = store.redact_everywhere(A, SECRET, dry_run=True).redacted
    assert planned[0] == Redacted(path="a.md", version=1, occurrences=1, pruned=True)
    assert store.redact_everywhere(A, SECRET).redacted == planned
    assert store.delete_file(A, "a.md").deleted is False  # gone for good, as a prune would have it
    assert store.list_files(A).count == 2
    assert store.clear_retention(A, files="a.md")
    assert store.list_files(A).count == 2  # clearing the rule brings nothing back
    recount.check(store, A)


def test_an_agent_at_its_byte_quota_can_still_have_a_text_removed(
    backend: Backend, clock: Clock, recount: Recounter
) -> None:
    """A marker is longer than the text it replaces: the redaction is counted, never refused by the quota, so an
    agent whose storage is full can always be cleaned of a secret."""
    content = f"key {SECRET}\n" + "x" * 200 + "\n"
    quota = len(content.encode()) + 40  # one version fits; the redacted version beside it does not
    store = open_with(backend, clock, Limits(quota_bytes=quota))
    store.write_file(A, "k.md", content)
    done = store.redact_everywhere(A, SECRET, by="ops")
    assert [row.version for row in done.redacted] == [1]
    after = store.read_file(A, "k.md").content
    assert after is not None and SECRET not in after
    assert recount.check(store, A).total_bytes > quota  # counted as stored: a write that grows it is refused
