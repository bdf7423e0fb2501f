"""A kept request_id cannot confirm a guess of a redacted text (issue 28), on every backend.

Only a hash of a call's arguments is kept with its request_id: the same id with the first call's arguments is
replayed, with others refused, so before a redaction anyone who may send that caller's calls can test a guess
of what the call wrote. A redaction forgets every kept id whose call could have carried the text (each call that
writes a file's text, for a redaction in files; each append to a redacted log) and every one whose reply holds it;
afterwards the right guess and a wrong one are answered alike: as new calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_core.errors import InvalidInput, NotFound, NothingToRedact, RequestIdReused
from scratchpad_core.redaction.rules import FILE_TEXT_CALLS, LOG_TEXT_CALLS
from scratchpad_core.service import Scratchpad
from tests.contract.test_retries import WRITES

A = "agent-a"
SECRET = "pw-Hq83Zr5n"
GUESS = "pw-Hq83Zr5x"
KEY = "key:k1 (ci)"  # a key's calls keep their ids apart from the library's (caller k1)


def answer(call: Callable[[], Any], first: Any) -> str:
    """How a call sent with a kept request_id is answered: replayed (the first call's result, nothing done),
    refused (other arguments), or ran (a new call)."""
    try:
        result = call()
    except RequestIdReused:
        return "refused"
    return "replayed" if result == first else "ran"


def kept(backend: Backend) -> set[str]:
    with backend.unit_of_work() as uow:
        return {request.request_id for request in uow.requests.kept(A)}


@pytest.fixture
def store(backend: Backend) -> Scratchpad:
    """Calls with request_ids: a write, an edit (its reply's snippet holds the text), an insert and two appends
    that carried the secret; a restore and a delete that carry no text."""
    store = backend.store
    store.write_file(A, "x.md", "scratch\n")
    store.write_file(A, "k.md", f"key {SECRET}\n", request_id="w1")
    store.write_file(A, "e.md", "a\nb\n")
    store.edit_file(A, "e.md", "b", f"b {SECRET}", snippet=True, request_id="e1", actor=KEY)
    store.insert_lines(A, "k.md", 0, f"top {SECRET}", request_id="i1")
    store.append_log(A, "run.log", f"token {SECRET}", request_id="a1")
    store.append_log(A, "other.log", f"also {SECRET}", request_id="a2")
    store.restore_version(A, "e.md", 1, request_id="r1")
    store.delete_file(A, "x.md", request_id="d1")
    return store


def test_a_guess_is_confirmed_before_and_not_after(store: Scratchpad, backend: Backend) -> None:
    first = store.write_file(A, "k.md", f"key {SECRET}\n", request_id="w1")  # a repeat: the first call's result
    right = lambda: store.write_file(A, "k.md", f"key {SECRET}\n", request_id="w1")  # noqa: E731
    wrong = lambda: store.write_file(A, "k.md", f"key {GUESS}\n", request_id="w1")  # noqa: E731
    assert (answer(right, first), answer(wrong, first)) == ("replayed", "refused")  # the oracle
    entry = store.append_log(A, "run.log", f"token {SECRET}", request_id="a1")
    log_right = lambda: store.append_log(A, "run.log", f"token {SECRET}", request_id="a1")  # noqa: E731
    assert answer(log_right, entry) == "replayed"

    done = store.redact_everywhere(A, SECRET, by="ops")
    assert done.requests_forgotten == 5
    assert kept(backend) == {"r1", "d1"}  # calls that carry no text
    assert answer(right, first) == "ran"  # the right guess runs as a new call, as a wrong one does
    assert answer(lambda: store.write_file(A, "k.md", f"key {GUESS}\n", request_id="i1"), first) == "ran"
    assert answer(log_right, entry) == "ran"
    assert answer(lambda: store.append_log(A, "other.log", f"also {GUESS}", request_id="a2"), entry) == "ran"


def test_a_file_redaction_forgets_file_writes_only(store: Scratchpad, backend: Backend) -> None:
    assert store.redact_text(A, "k.md", SECRET).requests_forgotten == 3  # w1, e1 (a key's) and i1
    assert kept(backend) == {"a1", "a2", "r1", "d1"}


def test_a_log_redaction_forgets_that_logs_appends_only(store: Scratchpad, backend: Backend) -> None:
    assert store.redact_log_text(A, "run.log", SECRET).requests_forgotten == 2  # a1, and e1: its reply holds it
    assert kept(backend) == {"w1", "i1", "a2", "r1", "d1"}
    assert store.redact_entry(A, "other.log", 1).requests_forgotten == 1
    assert kept(backend) == {"w1", "i1", "r1", "d1"}


def test_a_dry_run_or_a_refusal_forgets_nothing(store: Scratchpad, backend: Backend) -> None:
    before = kept(backend)
    assert store.redact_everywhere(A, SECRET, dry_run=True).requests_forgotten == 0
    with pytest.raises(NotFound, match=r"^nothing to redact"):
        store.redact_text(A, "e.md", "not there", dry_run=True)
    refusals = [
        (NotFound, lambda: store.redact_text(A, "gone.md", SECRET)),
        (NotFound, lambda: store.redact_log_text(A, "gone.log", SECRET)),
        (NotFound, lambda: store.redact_everywhere("nobody", SECRET)),
        (InvalidInput, lambda: store.redact_everywhere(A, " p  w ")),
    ]
    for error, call in refusals:
        with pytest.raises(error) as refused:
            call()
        assert not isinstance(refused.value, NothingToRedact)
    assert kept(backend) == before


def test_a_text_found_nowhere_still_forgets_the_ids_that_could_confirm_it(store: Scratchpad, backend: Backend) -> None:
    """The text left the store by other ways (the file was deleted): its write's kept id would still confirm a
    guess, so a redaction that finds the text nowhere forgets it all the same."""
    first = store.write_file(A, "old.md", f"was {GUESS}\n", request_id="w9")
    store.delete_file(A, "old.md")
    right = lambda: store.write_file(A, "old.md", f"was {GUESS}\n", request_id="w9")  # noqa: E731
    assert answer(right, first) == "replayed"  # the oracle, while the text is in no version
    with pytest.raises(NothingToRedact, match=r"^nothing to redact: .*; 6 request_ids that could confirm it") as done:
        store.redact_everywhere(A, GUESS, by="ops")
    assert done.value.requests_forgotten == 6  # w1, e1, i1, w9 (file writes) and a1, a2 (appends)
    assert kept(backend) == {"r1", "d1"}
    assert answer(right, first) == "ran"


def test_every_call_kept_under_a_request_id_is_known_to_carry_text_or_not(backend: Backend) -> None:
    """A new writing call must be placed in FILE_TEXT_CALLS or LOG_TEXT_CALLS if its arguments carry text."""
    store = backend.store
    store.write_file(A, "notes.md", "one\n")
    for number, call in enumerate(WRITES.values()):
        store.write_file(A, "notes.md", "one\ntwo\n")  # each call meets the state WRITES expects
        store.append_log(A, "run.log", "first")
        call(store, f"r{number}")
    with backend.unit_of_work() as uow:
        operations = {request.operation for request in uow.requests.kept(A)}
    assert operations == FILE_TEXT_CALLS | LOG_TEXT_CALLS | {"restore_version", "delete_file", "delete_log"}
