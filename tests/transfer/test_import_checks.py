"""Import refuses records that are malformed or out of order, naming the line and the rule, and loads nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scratchpad_adapters import open_store
from scratchpad_core.errors import InvalidInput
from tests.conftest import FakeSummarizer
from tests.transfer.test_export_import import exported, imported

Record = dict[str, Any]


def edit_first(kind: str, change: Callable[[Record], None]) -> Callable[[list[Record]], None]:
    def apply(records: list[Record]) -> None:
        change(next(r for r in records if r["type"] == kind))

    return apply


def duplicate_first(kind: str) -> Callable[[list[Record]], None]:
    def apply(records: list[Record]) -> None:
        index = next(i for i, r in enumerate(records) if r["type"] == kind)
        records.insert(index + 1, dict(records[index]))

    return apply


CASES = [
    (edit_first("file", lambda r: r.pop("current_version")), "line 3: the file record needs 'current_version' as a"),
    (edit_first("version", lambda r: r.update(content=5)), "needs 'content' as text (got 5)"),
    (edit_first("version", lambda r: r.update(created_at="yesterday")), "needs 'created_at' as a whole number"),
    (edit_first("version", lambda r: r.update(content="a\x00b")), "NUL characters"),
    (edit_first("agent", lambda r: r.update(agent_id="../../x")), "Invalid agent_id"),
    (edit_first("file", lambda r: r.update(path="/etc//passwd")), "Invalid path: a leading '/'"),
    (edit_first("log", lambda r: r.update(last_entry_id=1)), "entry 2 of 'journal' is out of order"),
    (edit_first("entry", lambda r: r.update(id=2**40)), "needs 'id' as a whole number from 1 to 2,147,483,647"),
    (edit_first("file", lambda r: r.update(current_version=True)), "needs 'current_version' as a whole number"),
    (duplicate_first("file"), "is defined twice for this agent"),
    (duplicate_first("summary"), "has a second summary; a file keeps one"),
    (edit_first("summary", lambda r: r.update(version=99)), "the summary is of version 99, beyond the file's last"),
    (edit_first("version", lambda r: r.update(path="other.md")), "belongs to the file 'other.md', which no earlier"),
    (edit_first("entry", lambda r: r.update(path="nolog")), "belongs to the log 'nolog', which no earlier"),
    (edit_first("file", lambda r: r.update(current_version=5)), "is at version 5, but no record holds it"),
    (edit_first("log", lambda r: r.update(last_entry_id=9)), "ends at entry 9, but no record holds it"),
    (lambda records: [records.remove(r) for r in [r for r in records if r["type"] == "entry"]], "ends at entry 2"),
    (edit_first("version", lambda r: r.update(content="x" * 2_000_000)), "over this server's limit of 1,048,576"),
    (lambda records: records.insert(-1, dict(records[1])), "appears twice"),
    (lambda records: records.append(dict(records[2])), "records after the end record"),
    (edit_first("end", lambda r: r["counts"].update(files=9)), "the end record counts"),
    (edit_first("summary", lambda r: r.update(model="m" * 101)), "needs 'model' as text of at most 100 characters"),
    (duplicate_first("entry"), "is out of order: numbers must increase"),
]


@pytest.mark.parametrize(("mangle", "message"), CASES)
def test_a_malformed_record_is_refused_naming_line_and_rule(
    tmp_path: Path, mangle: Callable[[list[Record]], None], message: str
) -> None:
    source, target = f"sqlite:///{tmp_path / 's.db'}", f"sqlite:///{tmp_path / 't.db'}"
    with open_store(source, summarizer=FakeSummarizer()) as store:
        store.write_file("alice", "notes.md", "v1\n")
        store.write_file("alice", "notes.md", "v2\n")
        store.write_file("alice", "long.md", "x" * 9000)
        store.summarize_file("alice", "long.md")
        store.append_log("alice", "journal", "one")
        store.append_log("alice", "journal", "two")
    records = [json.loads(line) for line in exported(source).splitlines()]
    mangle(records)
    text = "".join(json.dumps(r) + "\n" for r in records)
    with pytest.raises(InvalidInput) as refused:
        imported(target, text)
    assert message in str(refused.value)
    assert str(refused.value).startswith("Import line ") and str(refused.value).endswith("Nothing was imported.")
    with open_store(target) as store:
        assert store.list_files("alice").count == 0 and store.list_logs("alice").count == 0
