"""read_changes (issue 31) on every backend: one item per path changed after a cursor, in change order; a
reader that applies the replies alone rebuilds the store exactly, whatever the kind of change, the paging or
the writes between pages."""

from __future__ import annotations

from typing import Any

import pytest

from scratchpad_adapters.factory import Backend
from scratchpad_core.errors import InvalidInput
from scratchpad_core.hunks import apply_hunks
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from scratchpad_core.usecases.catchup import ChangesPage
from tests.contract.test_retries import Clock

A = "agent-a"
HOUR = 3_600_000


class Reader:
    """A reader that knows the space only through read_changes' replies."""

    def __init__(self, store: Scratchpad, prefix: str | None = None, max_bytes: int | None = None) -> None:
        self.store, self.prefix, self.max_bytes = store, prefix, max_bytes
        self.files: dict[str, str] = {}
        self.logs: dict[str, dict[int, str]] = {}
        self.cursor: str | None = None
        self.pages: list[ChangesPage] = []

    def page(self) -> ChangesPage:
        reply = self.store.read_changes(A, self.cursor, self.prefix, self.max_bytes)
        for item in reply.items:
            self.apply(item)
        self.cursor = reply.cursor
        self.pages.append(reply)
        return reply

    def sync(self) -> list[dict[str, Any]]:
        items = []
        while True:
            reply = self.page()
            items.extend(reply.items)
            if not reply.has_more:
                return items

    def apply(self, item: dict[str, Any]) -> None:
        if "path" in item:
            path = item["path"]
            if item.get("deleted"):
                self.files.pop(path, None)  # an expired file's prune may say it once more
            elif "diff" in item:
                self.files[path] = apply_hunks(self.files[path], item["diff"])
            else:
                self.files[path] = item["content"]
            return
        path = item["log"]
        if item.get("deleted"):
            del self.logs[path]
            return
        entries = {} if item.get("created") else self.logs.get(path, {})
        if item.get("too_old"):
            entries = {i: e for i, e in entries.items() if i >= item["first_entry_id"]}
        self.logs[path] = entries | {e["id"]: e["entry"] for e in item["entries"]}

    def check(self, store: Scratchpad, prefix: str = "") -> None:
        listed = store.list_files(A, prefix=prefix or None).files
        assert self.files == {f.path: store.read_file(A, f.path).content for f in listed}
        logs = {g.path for g in store.list_logs(A, prefix=prefix or None).logs}
        expected = {p: {e.id: e.entry for e in store.read_log(A, p, limit=100).entries} for p in logs}
        assert self.logs == expected


@pytest.fixture
def store(backend: Backend, clock: Clock) -> Scratchpad:
    return Scratchpad(backend.unit_of_work, Limits(max_versions=3), clock=clock)


def test_a_first_sync_gives_the_whole_space_as_creations(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "one\n")
    store.write_file(A, "b.md", "two\n")
    store.write_file(A, "b.md", "two!\n")
    store.append_log(A, "log", "hello", actor="w1")
    store.delete_file(A, "a.md")
    reader = Reader(store)
    items = reader.sync()
    assert items == [
        {"path": "b.md", "created": True, "version": 2, "content": "two!\n"},
        {"log": "log", "entries": [{"id": 1, "entry": "hello", "by": "w1"}]},
    ]
    reader.check(store)
    assert store.read_changes(A, reader.cursor).items == []  # nothing since


def test_each_kind_of_item_and_a_rebuild_that_equals_the_store(store: Scratchpad) -> None:
    store.write_file(A, "keep.md", "a\nb\nc\n")
    store.write_file(A, "gone.md", "bye\n")
    store.write_file(A, "old.md", "moving\n")
    store.append_log(A, "events", "one")
    store.append_log(A, "dead", "x")
    reader = Reader(store)
    reader.sync()
    store.edit_file(A, "keep.md", "b", "B")
    store.write_file(A, "new.md", "fresh\n")
    store.delete_file(A, "gone.md")
    store.rename_file(A, "old.md", "moved.md")
    store.append_log(A, "events", "two", actor="w2")
    store.delete_log(A, "dead")
    items = reader.sync()
    by_path = {item.get("path", item.get("log")): item for item in items}
    assert by_path["keep.md"] == {"path": "keep.md", "from_version": 1, "to_version": 2,
                                  "diff": [{"at": 2, "remove": 1, "add": ["B"]}]}  # fmt: skip
    assert by_path["new.md"] == {"path": "new.md", "created": True, "version": 1, "content": "fresh\n"}
    assert by_path["gone.md"] == {"path": "gone.md", "deleted": True}
    assert by_path["moved.md"] == {"path": "moved.md", "renamed_from": "old.md", "version": 1, "content": "moving\n"}
    assert by_path["old.md"] == {"path": "old.md", "deleted": True}
    assert by_path["events"] == {"log": "events", "entries": [{"id": 2, "entry": "two", "by": "w2"}]}
    assert by_path["dead"] == {"log": "dead", "deleted": True}
    assert [item.get("path", item.get("log")) for item in items][:2] == ["keep.md", "new.md"]  # in change order
    reader.check(store)


def test_pages_at_max_bytes_continue_exactly_with_writes_between_them(store: Scratchpad) -> None:
    for i in range(12):
        store.write_file(A, f"f{i:02}.md", f"file {i}\n" * 20)
        store.append_log(A, f"log{i % 3}", f"entry {i}")
    reader = Reader(store, max_bytes=400)
    reader.sync()
    reader.check(store)
    for i in range(12):
        store.edit_file(A, f"f{i:02}.md", f"file {i}", f"FILE {i}", replace_all=True)
    first = reader.page()
    assert first.has_more and len(first.items) < 12
    for i in range(0, 12, 2):  # written while the reader is between pages
        store.edit_file(A, f"f{i:02}.md", "FILE", "again", replace_all=True)
        store.append_log(A, "log0", f"late {i}")
    store.delete_file(A, "f11.md")
    store.write_file(A, "late.md", "late\n")
    reader.sync()
    reader.sync()  # the round that the pages described, then what came meanwhile
    reader.check(store)
    assert all(sum(len(str(i)) for i in p.items) < 2000 for p in reader.pages)
    seen = [item.get("path") for page in reader.pages[1:] for item in page.items if "path" in item]
    assert len(seen) == len(set(seen)) or store.read_changes(A, reader.cursor).items == []


def test_an_item_larger_than_max_bytes_goes_alone(store: Scratchpad) -> None:
    store.write_file(A, "big.md", "x" * 5000)
    store.write_file(A, "small.md", "y")
    reader = Reader(store, max_bytes=100)
    assert [len(reader.page().items), len(reader.page().items)] == [1, 1]
    reader.check(store)


def test_a_prefix_reads_only_what_is_under_it(store: Scratchpad) -> None:
    store.write_file(A, "team/plan.md", "plan\n")
    store.write_file(A, "me/notes.md", "notes\n")
    store.append_log(A, "team/log", "hi")
    reader = Reader(store, prefix="team/")
    assert {item.get("path", item.get("log")) for item in reader.sync()} == {"team/plan.md", "team/log"}
    reader.check(store, "team/")


def test_a_cursor_older_than_the_kept_versions_is_too_old(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "v1\n")
    reader = Reader(store)
    reader.sync()
    for n in range(2, 7):  # max_versions=3: version 1 is gone
        store.write_file(A, "a.md", f"v{n}\n")
    assert reader.sync() == [{"path": "a.md", "too_old": True, "version": 6, "content": "v6\n"}]
    reader.check(store)


def test_entries_retention_dropped_are_too_old_with_the_first_kept_id(store: Scratchpad) -> None:
    store.set_retention(A, logs="", keep_entries=2)
    store.append_log(A, "log", "1")
    reader = Reader(store)
    reader.sync()
    for n in range(2, 6):
        store.append_log(A, "log", str(n))
    (item,) = reader.sync()
    assert item["too_old"] is True and item["first_entry_id"] == 4
    assert [e["id"] for e in item["entries"]] == [4, 5]
    reader.check(store)


def test_files_that_expire_by_age_read_as_deleted(store: Scratchpad, clock: Clock) -> None:
    store.set_retention(A, files="tmp/", max_age="1h")
    store.write_file(A, "tmp/a.md", "temp\n")
    store.write_file(A, "keep.md", "kept\n")
    reader = Reader(store)
    reader.sync()
    clock.now += HOUR + 1
    assert reader.sync() == [{"path": "tmp/a.md", "deleted": True, "expired": True}]
    reader.check(store)
    store.prune()
    assert reader.sync() in ([], [{"path": "tmp/a.md", "deleted": True}])  # a prune may say it once more


def test_a_redaction_gives_the_marker_never_the_text(store: Scratchpad) -> None:
    store.write_file(A, "a.md", "key=SECRET1\n")
    store.write_file(A, "a.md", "key=SECRET1\nmore\n")
    store.append_log(A, "log", "token SECRET1")
    reader = Reader(store)
    reader.sync()
    store.redact_everywhere(A, "SECRET1")
    items = reader.sync()
    assert "SECRET1" not in str(items)
    assert {item.get("path", item.get("log")) for item in items} == {"a.md", "log"}
    reader.check(store)


def test_a_cursor_that_is_not_one_is_refused(store: Scratchpad) -> None:
    for bad in ("nonsense", "djE6eDp5", ""):
        with pytest.raises(InvalidInput, match="Invalid since: pass the cursor"):
            store.read_changes(A, bad)
    with pytest.raises(InvalidInput, match="Invalid max_bytes"):
        store.read_changes(A, max_bytes=0)
