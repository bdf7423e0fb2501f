"""Idempotent retries: a request_id names one writing call; a repeat returns the first result and changes nothing.
And expected_version: a mismatch is a conflict whatever the file holds (issue 20); request_id is what makes a
compare-and-set safe to resend."""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import select

from scratchpad_adapters import memory
from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema.tables import request_ids
from scratchpad_core.errors import InvalidInput, RequestIdReused, ScratchpadError, VersionConflict
from scratchpad_core.limits import Limits
from scratchpad_core.results import DeleteResult, EditResult, WriteResult
from scratchpad_core.retries import MAX_REQUEST_ID_CHARS
from scratchpad_core.service import Scratchpad
from tests.conftest import FakeSummarizer
from tests.recount import Recounter

A = "agent-a"
Call = Callable[[Scratchpad, str], Any]

# Every writing call, on a store where notes.md is at version 2 ("one\ntwo\n") and run.log has one entry.
WRITES: dict[str, Call] = {
    "write_file": lambda s, rid: s.write_file(A, "notes.md", "new\n", request_id=rid),
    "edit_file": lambda s, rid: s.edit_file(A, "notes.md", "two", "2", request_id=rid),
    "insert_lines": lambda s, rid: s.insert_lines(A, "notes.md", 0, "top", request_id=rid),
    "restore_version": lambda s, rid: s.restore_version(A, "notes.md", 1, request_id=rid),
    "delete_file": lambda s, rid: s.delete_file(A, "notes.md", request_id=rid),
    "append_log": lambda s, rid: s.append_log(A, "run.log", "again", request_id=rid),
    "delete_log": lambda s, rid: s.delete_log(A, "run.log", request_id=rid),
}
# The same calls with one argument changed.
OTHERS: dict[str, Call] = {
    "write_file": lambda s, rid: s.write_file(A, "notes.md", "other\n", request_id=rid),
    "edit_file": lambda s, rid: s.edit_file(A, "notes.md", "two", "3", request_id=rid),
    "insert_lines": lambda s, rid: s.insert_lines(A, "notes.md", -1, "top", request_id=rid),
    "restore_version": lambda s, rid: s.restore_version(A, "notes.md", 2, request_id=rid),
    "delete_file": lambda s, rid: s.delete_file(A, "notes.md", 2, request_id=rid),
    "append_log": lambda s, rid: s.append_log(A, "run.log", "other", request_id=rid),
    "delete_log": lambda s, rid: s.delete_log(A, "other.log", request_id=rid),
}


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000_000

    def __call__(self) -> int:
        return self.now


@pytest.fixture
def backend(database_url: str) -> Iterator[Backend]:
    opened = open_backend(database_url, summarizer=FakeSummarizer())
    yield opened
    opened.close()


def scratchpad(backend: Backend, limits: Limits | None = None, clock: Clock | None = None) -> Scratchpad:
    """A Scratchpad on the test's store with its own limits and clock (the store's connections stay the backend's)."""
    return Scratchpad(backend.unit_of_work, limits, clock=clock or Clock())


def populate(store: Scratchpad) -> None:
    store.write_file(A, "notes.md", "one\n")
    store.write_file(A, "notes.md", "one\ntwo\n")
    store.append_log(A, "run.log", "first")


def stored_ids(database_url: str, agent_id: str) -> list[str]:
    """The request_ids stored for the agent, oldest first, read from the rows (never through the store)."""
    if memory.is_memory_url(database_url):
        connection = memory.connect(database_url)
        try:
            return [request_id for _, request_id in connection.database.tables.requests.get(agent_id, {})]
        finally:
            connection.close()
    engine = make_engine(database_url)
    try:
        with engine.connect() as c:
            query = select(request_ids.c.request_id).where(request_ids.c.agent_id == agent_id)
            return list(c.execute(query.order_by(request_ids.c.seq, request_ids.c.request_id)).scalars())
    finally:
        engine.dispose()


@pytest.mark.parametrize("operation", WRITES)
def test_a_repeat_returns_the_first_result_and_changes_nothing(
    store: Scratchpad, recount: Recounter, operation: str
) -> None:
    populate(store)
    first = WRITES[operation](store, "req-1")
    after_first = recount.snapshot(A)

    again = WRITES[operation](store, "req-1")
    assert again == first
    assert recount.snapshot(A) == after_first  # no version, entry or counter (not even an operation) changed
    recount.check(store, A)


@pytest.mark.parametrize("operation", WRITES)
def test_other_arguments_under_a_used_request_id_are_refused(
    store: Scratchpad, recount: Recounter, operation: str
) -> None:
    populate(store)
    WRITES[operation](store, "req-1")
    before = recount.snapshot(A)

    with pytest.raises(RequestIdReused) as refused:
        OTHERS[operation](store, "req-1")
    assert str(refused.value) == (
        f"Invalid request_id 'req-1': it already names an earlier {operation} call with other arguments (a "
        "request_id names one call for 24 h). Nothing was changed; send a new request_id for a new call, or the same "
        "arguments to retry."
    )
    assert isinstance(refused.value, InvalidInput)
    assert recount.snapshot(A) == before


def test_another_tool_under_a_used_request_id_is_refused(store: Scratchpad) -> None:
    populate(store)
    store.append_log(A, "run.log", "x", request_id="r")
    with pytest.raises(RequestIdReused, match="already names an earlier append_log call"):
        store.write_file(A, "notes.md", "x", request_id="r")


def test_without_a_request_id_a_repeat_runs_again(store: Scratchpad) -> None:
    populate(store)
    assert store.append_log(A, "run.log", "x").entry_id == 2
    assert store.append_log(A, "run.log", "x").entry_id == 3


def test_request_ids_are_per_agent(store: Scratchpad) -> None:
    assert store.append_log(A, "run.log", "x", request_id="r").entry_id == 1
    assert store.append_log("agent-b", "run.log", "x", request_id="r").entry_id == 1
    assert store.append_log("agent-b", "run.log", "y", request_id="s").entry_id == 2
    assert store.read_log(A, "run.log").total == 1


def test_a_repeat_after_later_changes_still_returns_the_first_result(store: Scratchpad) -> None:
    first = store.write_file(A, "f.md", "v1", request_id="w1")
    store.write_file(A, "f.md", "v2")
    assert store.write_file(A, "f.md", "v1", request_id="w1") == first == WriteResult("f.md", 1, 2)
    assert store.read_file(A, "f.md").content == "v2"


def test_a_refused_call_stores_no_request_id(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "v1")
    with pytest.raises(VersionConflict):
        store.write_file(A, "f.md", "v2", expected_version=5, request_id="w")
    store.write_file(A, "f.md", "v3")
    assert store.write_file(A, "f.md", "v2", expected_version=2, request_id="w").version == 3


def test_the_request_id_is_bounded(store: Scratchpad, recount: Recounter) -> None:
    populate(store)
    before = recount.snapshot(A)
    longest = "r" * MAX_REQUEST_ID_CHARS
    with pytest.raises(InvalidInput) as long:
        store.append_log(A, "run.log", "x", request_id=longest + "r")
    assert str(long.value) == (
        "Invalid request_id: 129 characters; use 1 to 128 characters (a UUID is 36), or omit it. Nothing was changed."
    )
    with pytest.raises(InvalidInput, match="Invalid request_id: empty; use 1 to 128 characters"):
        store.append_log(A, "run.log", "x", request_id="")
    with pytest.raises(InvalidInput, match="Invalid request_id: NUL characters"):
        store.append_log(A, "run.log", "x", request_id="a\x00b")
    assert recount.snapshot(A) == before
    assert store.append_log(A, "run.log", "x", request_id=longest) == store.append_log(
        A, "run.log", "x", request_id=longest
    )


def test_an_id_past_its_retention_names_a_new_call(backend: Backend, database_url: str) -> None:
    clock = Clock()
    store = scratchpad(backend, Limits(request_id_retention=60), clock)
    assert store.append_log(A, "run.log", "x", request_id="r").entry_id == 1
    clock.now += 60_000
    assert store.append_log(A, "run.log", "x", request_id="r").entry_id == 1  # still within 60 s
    clock.now += 1
    assert store.append_log(A, "run.log", "y", request_id="r").entry_id == 2  # forgotten: a new call
    assert store.append_log(A, "run.log", "y", request_id="r").entry_id == 2  # and remembered again
    assert stored_ids(database_url, A) == ["r"]


def test_the_newest_ids_are_kept_per_agent(backend: Backend, database_url: str) -> None:
    store = scratchpad(backend, Limits(request_ids_kept=3))
    for n in range(1, 6):
        store.append_log(A, "run.log", f"e{n}", request_id=f"r{n}")
    store.append_log("agent-b", "run.log", "b", request_id="r1")
    assert stored_ids(database_url, A) == ["r3", "r4", "r5"]
    assert stored_ids(database_url, "agent-b") == ["r1"]
    assert store.append_log(A, "run.log", "e5", request_id="r5").entry_id == 5  # kept: the first result
    assert store.append_log(A, "run.log", "e1", request_id="r1").entry_id == 6  # forgotten: runs again


def test_expired_ids_are_forgotten_a_bounded_batch_per_call(backend: Backend, database_url: str) -> None:
    clock = Clock()
    store = scratchpad(backend, Limits(request_id_retention=1), clock)
    for n in range(40):
        store.append_log(A, "run.log", "x", request_id=f"old{n:02}")
    clock.now += 2_000
    store.append_log(A, "run.log", "x", request_id="new1")
    assert len(stored_ids(database_url, A)) == 40 + 1 - 16  # one call looks at the 16 oldest only
    store.append_log(A, "run.log", "x", request_id="new2")
    store.append_log(A, "run.log", "x", request_id="new3")
    assert stored_ids(database_url, A) == ["new1", "new2", "new3"]


def together(stores: list[Scratchpad], call: Callable[..., Any], *args: Any) -> list[Any]:
    """call(store, *args) on every store at once (a thread each, released together): each result or refusal."""
    barrier = threading.Barrier(len(stores))
    results: list[Any] = []

    def one(store: Scratchpad) -> None:
        barrier.wait()
        try:
            results.append(call(store, *args))
        except ScratchpadError as refusal:
            results.append(refusal)

    threads = [threading.Thread(target=one, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_concurrent_repeats_run_once(make_store: Callable[..., Scratchpad], recount: Recounter) -> None:
    stores = [make_store() for _ in range(6)]
    stores[0].write_file(A, "f.md", "start\n")
    results = together(stores, lambda store: store.insert_lines(A, "f.md", -1, "once", request_id="same"))
    assert results == [EditResult("f.md", 2, 11, 2, 2)] * len(stores)
    assert stores[0].read_file(A, "f.md").content == "start\nonce\n"
    assert recount.versions(A, "f.md") == [1, 2]
    recount.check(stores[0], A)


# Calls that the first one's change would refuse (a version moved on, old_str replaced, the file gone), on "old\n"
# at version 1, with the result the first one gets.
REFUSED_AFTER_THE_FIRST: dict[str, tuple[Callable[[Scratchpad, str], Any], Any]] = {
    "write_file": (
        lambda s, agent: s.write_file(agent, "f.md", "new\n", expected_version=1, request_id="twin"),
        WriteResult("f.md", 2, 4),
    ),
    "edit_file": (
        lambda s, agent: s.edit_file(agent, "f.md", "old", "new", expected_version=1, request_id="twin"),
        EditResult("f.md", 2, 4, 1, 1),
    ),
    "edit_file without expected_version": (
        lambda s, agent: s.edit_file(agent, "f.md", "old", "new", request_id="twin"),
        EditResult("f.md", 2, 4, 1, 1),
    ),
    "delete_file": (
        lambda s, agent: s.delete_file(agent, "f.md", expected_version=1, request_id="twin"),
        DeleteResult("f.md", True, 1),
    ),
}


@pytest.mark.parametrize("tool", REFUSED_AFTER_THE_FIRST)
def test_repeats_that_meet_the_first_call_in_its_transaction_get_its_result(
    tool: str, make_store: Callable[..., Scratchpad], recount: Recounter
) -> None:
    """A repeat sent before the first call answered (its connection cut, say) may run while the first one is still
    in its transaction, and then meet the first one's change: it still gets the first one's result, not a refusal
    (the caller would take its change for not made, and make it again)."""
    call, first = REFUSED_AFTER_THE_FIRST[tool]
    stores = [make_store() for _ in range(6)]
    for race in range(3):  # on Postgres, most repeats meet the first call mid-transaction; on SQLite, none can
        agent = f"agent-{race}"
        stores[0].write_file(agent, "f.md", "old\n")
        assert together(stores, call, agent) == [first] * len(stores)
        assert recount.versions(agent, "f.md") == ([] if tool == "delete_file" else [1, 2])
        recount.check(stores[0], agent)


# expected_version: a mismatch is a conflict, whatever the file holds; a request_id makes the resend safe.


def test_a_write_whose_content_is_there_already_still_conflicts(store: Scratchpad, recount: Recounter) -> None:
    assert store.write_file(A, "f.md", "v1", expected_version=0) == WriteResult("f.md", 1, 2)
    store.write_file(A, "f.md", "v2", expected_version=1)
    before = recount.snapshot(A)
    for expected, content in ((0, "v1"), (1, "v2"), (1, "v1"), (3, "v2"), (99, "v2")):
        with pytest.raises(VersionConflict) as caught:
            store.write_file(A, "f.md", content, expected_version=expected)
        assert caught.value.current_version == 2
        assert "current version is 2" in caught.value.message
    with pytest.raises(VersionConflict):
        store.restore_version(A, "f.md", 2, expected_version=1)
    assert recount.snapshot(A) == before
    assert recount.versions(A, "f.md") == [1, 2]
    assert store.write_file(A, "f.md", "v2", expected_version=2) == WriteResult("f.md", 2, 0, unchanged=True)


def test_an_edit_whose_outcome_is_there_already_still_conflicts(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.md", "a\nb\n")
    first = store.edit_file(A, "f.md", "b", "B", expected_version=1, snippet=True)
    assert first == EditResult("f.md", 2, 4, 2, 2, snippet="1\ta\n2\tB")
    inserted = store.insert_lines(A, "f.md", 0, "top", expected_version=2)
    assert inserted.version == 3
    before = recount.snapshot(A)
    with pytest.raises(VersionConflict) as caught:
        store.edit_file(A, "f.md", "b", "B", expected_version=1, snippet=True)
    assert caught.value.current_version == 3
    with pytest.raises(VersionConflict):
        store.insert_lines(A, "f.md", 0, "top", expected_version=2)
    with pytest.raises(VersionConflict):
        store.insert_lines(A, "new.md", 0, "first", expected_version=1)  # a file that does not exist is at 0
    assert recount.snapshot(A) == before


def test_an_insert_that_created_the_file_conflicts_when_sent_again(store: Scratchpad) -> None:
    assert store.insert_lines(A, "new.md", 0, "first", expected_version=0).version == 1
    with pytest.raises(VersionConflict) as caught:
        store.insert_lines(A, "new.md", 0, "first", expected_version=0)
    assert caught.value.current_version == 1


def test_a_restore_sent_again_conflicts(store: Scratchpad) -> None:
    store.write_file(A, "f.md", "v1")
    store.write_file(A, "f.md", "v2")
    assert store.restore_version(A, "f.md", 1, expected_version=2) == WriteResult("f.md", 3, 2)
    with pytest.raises(VersionConflict):
        store.restore_version(A, "f.md", 1, expected_version=2)
    assert store.read_file(A, "f.md").current_version == 3


def test_a_delete_of_a_file_already_gone_with_expected_version_conflicts(store: Scratchpad, recount: Recounter) -> None:
    store.write_file(A, "f.md", "v1")
    assert store.delete_file(A, "f.md", expected_version=1) == DeleteResult("f.md", True, 1)
    for path, expected in (("f.md", 1), ("never.md", 3)):
        with pytest.raises(VersionConflict) as caught:
            store.delete_file(A, path, expected_version=expected)
        assert caught.value.current_version == 0
        assert "it does not exist" in caught.value.message
    assert store.delete_file(A, "f.md", expected_version=0) == DeleteResult("f.md", False, 0)
    assert store.delete_file(A, "f.md") == DeleteResult("f.md", False, 0)
    store.write_file(A, "g.md", "x")
    with pytest.raises(VersionConflict):
        store.delete_file(A, "g.md", expected_version=4)
    recount.check(store, A)


def test_a_compare_and_set_resent_with_its_request_id_gets_its_first_result(store: Scratchpad) -> None:
    """The safe resend of a compare-and-set: the request_id knows the call it repeats."""
    first = store.write_file(A, "c.txt", "1", expected_version=0, request_id="inc-1")
    assert store.write_file(A, "c.txt", "1", expected_version=0, request_id="inc-1") == first
    edited = store.edit_file(A, "c.txt", "1", "2", expected_version=1, request_id="inc-2")
    assert store.edit_file(A, "c.txt", "1", "2", expected_version=1, request_id="inc-2") == edited
    gone = store.delete_file(A, "c.txt", expected_version=2, request_id="del-1")
    assert (
        store.delete_file(A, "c.txt", expected_version=2, request_id="del-1") == gone == DeleteResult("c.txt", True, 2)
    )


def test_a_result_stored_with_a_retired_field_is_replayed_without_it(backend: Backend) -> None:
    """A request_id stored by the release before issue 20 may hold already_applied: its repeat still answers."""
    store = scratchpad(backend)
    first = store.write_file(A, "f.md", "v1", request_id="old")
    stored = backend.unit_of_work
    with stored() as uow:
        row = uow.requests.get(A, "", "old")
        assert row is not None
        uow.requests.forget(A, "", "old")
        legacy = json.loads(row.result) | {"already_applied": True}
        uow.requests.add(dataclasses.replace(row, result=json.dumps(legacy)), keep=1000, expire_before=0)
        uow.commit()
    assert store.write_file(A, "f.md", "v1", request_id="old") == first


def test_an_edit_against_a_version_no_longer_retained_conflicts(backend: Backend) -> None:
    store = scratchpad(backend, Limits(max_versions=2))
    store.write_file(A, "f.md", "a")
    store.write_file(A, "f.md", "b")
    store.write_file(A, "f.md", "c")  # version 1 is gone
    with pytest.raises(VersionConflict):
        store.edit_file(A, "f.md", "a", "c", expected_version=1)
