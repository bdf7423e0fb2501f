"""What only the in-memory store has to show (the contract suite runs on it beside SQLite and Postgres):
its transactions, how memory:// URLs share a store, and that it stays plain Python."""

from __future__ import annotations

import ast
import dataclasses
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from scratchpad_adapters import MemoryDatabase, MemoryUnitOfWork, open_backend, open_store
from scratchpad_adapters import memory as memory_package
from scratchpad_core.errors import NotFound, QuotaExceeded, StorageError
from scratchpad_core.limits import Limits
from scratchpad_core.model import Advanced, UsageDelta, Version
from scratchpad_core.service import Scratchpad
from tests.recount_memory import MemoryRecounter

A = "agent-a"
MEMORY = Path(memory_package.__file__).parent
SHARED = {"timeouts", "stemming"}  # the adapter modules every backend reads (the one stemmer: rankings agree); no SQL


@pytest.fixture
def named() -> Iterator[str]:
    url = "memory://test-memory-adapter"
    holder = memory_package.connect(url)  # kept open for the test, so stores may come and go
    yield url
    holder.close()


def write(database: MemoryDatabase, path: str, content: str, *, commit: bool) -> None:
    with MemoryUnitOfWork(database) as uow:
        record = uow.files.lock_or_create(A, path, 1)
        advanced = uow.files.advance(A, path, Version.of(0, content, 2), record.current_version)
        assert isinstance(advanced, Advanced)
        uow.files.add_version(advanced.file_id, Version.of(advanced.version, content, 2))
        if commit:
            uow.commit()


def paths(database: MemoryDatabase) -> list[str]:
    with MemoryUnitOfWork(database, read_only=True) as uow:
        return [f.path for f in uow.files.list(A, "", None, None)]


def test_leaving_without_commit_leaves_nothing() -> None:
    database = MemoryDatabase()
    write(database, "kept.md", "one", commit=True)
    write(database, "dropped.md", "two", commit=False)
    before = database.tables.copy()
    with pytest.raises(RuntimeError, match="failed"), MemoryUnitOfWork(database) as uow:
        kept = uow.files.get(A, "kept.md")
        assert kept is not None
        assert uow.files.delete(kept.id, 3, remember=10) == (1, 3)
        assert uow.usage.apply(A, UsageDelta(files=-1, bytes=-3), Limits()) is None
        assert uow.files.get(A, "kept.md") == dataclasses.replace(kept, current_version=0, bytes=0, sha256="",
                                                                  updated_at=3)  # fmt: skip
        raise RuntimeError("the use case failed after writing")
    assert database.tables == before
    assert paths(database) == ["kept.md"]


def test_what_follows_a_commit_needs_a_commit_of_its_own() -> None:
    database = MemoryDatabase()
    with MemoryUnitOfWork(database) as uow:
        uow.files.lock_or_create(A, "first.md", 1)
        uow.commit()
        uow.files.lock_or_create(A, "second.md", 1)
    with MemoryUnitOfWork(database, read_only=True) as uow:
        assert uow.files.get(A, "first.md") is not None
        assert uow.files.get(A, "second.md") is None


def test_a_quota_refusal_rolls_the_write_back(named: str) -> None:
    with open_store(named, limits=Limits(quota_bytes=10)) as store:
        store.write_file(A, "f.md", "12345")
        with pytest.raises(QuotaExceeded):
            store.write_file(A, "f.md", "123456")  # the new version was stored before the counters refused it
        recount = MemoryRecounter(named)
        try:
            assert recount.versions(A, "f.md") == [1]
            assert recount.check(store, A).total_bytes == 5
        finally:
            recount.close()


def test_a_read_only_unit_of_work_reads_a_snapshot_and_refuses_writes() -> None:
    database = MemoryDatabase()
    write(database, "before.md", "x", commit=True)
    with MemoryUnitOfWork(database, read_only=True) as snapshot:
        write(database, "during.md", "y", commit=True)  # a writer does not wait for the reader
        assert [f.path for f in snapshot.files.list(A, "", None, None)] == ["before.md"]
        with pytest.raises(StorageError, match="read-only"):
            snapshot.files.lock_or_create(A, "new.md", 1)
    assert paths(database) == ["before.md", "during.md"]


def test_writers_on_threads_take_turns_and_get_every_version_once(named: str) -> None:
    writers, each = 8, 25
    barrier = threading.Barrier(writers)
    with open_store(named) as store:

        def work(worker: int) -> list[int]:
            barrier.wait()
            return [store.write_file(A, "shared.md", f"{worker}-{i}").version for i in range(each)]

        with ThreadPoolExecutor(writers) as pool:
            versions = sorted(v for got in pool.map(work, range(writers)) for v in got)
        assert versions == list(range(1, writers * each + 1))
        recount = MemoryRecounter(named)
        try:
            assert recount.versions(A, "shared.md") == list(range(writers * each - 9, writers * each + 1))
            assert recount.check(store, A).total_operations == writers * each + 1
        finally:
            recount.close()


def test_stores_opened_on_one_name_share_it(named: str) -> None:
    with open_store(named) as first, open_store(named) as second:
        first.write_file(A, "f.md", "from the first")
        assert second.read_file(A, "f.md").content == "from the first"
        assert second.write_file(A, "f.md", "from the second").version == 2
    with open_store(named) as later:  # the name outlives its stores while something holds it open
        assert later.read_file(A, "f.md").current_version == 2


def test_a_name_is_forgotten_when_nothing_holds_it_open() -> None:
    url = "memory://test-forgotten"
    with open_store(url) as store:
        store.write_file(A, "f.md", "x")
    with open_store(url) as store, pytest.raises(NotFound):
        store.read_file(A, "f.md")


def test_memory_without_a_name_is_private() -> None:
    with open_store("memory://") as first, open_store("memory://") as second:
        first.write_file(A, "f.md", "mine")
        with pytest.raises(NotFound):
            second.read_file(A, "f.md")


def test_a_memory_backend_has_keys_and_is_ready(named: str) -> None:
    creator, checker = open_backend(named), open_backend(named)
    try:
        key, secret = creator.keys.create(A, label="tests")
        found, why = checker.keys.authenticate(secret)
        assert (found and found.id, why) == (key.id, "ok")
        checker.keys.revoke(key.id)
        assert creator.keys.authenticate(secret) == (None, "revoked")
        assert creator.readiness() is None
        assert Scratchpad(creator.unit_of_work).get_usage_stats(A).total_operations == 1  # on the same store
    finally:
        creator.close()
        checker.close()


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """What an import statement of the memory package names, as absolute dotted names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = "scratchpad_adapters.memory".rsplit(".", node.level - 1)[0]
        base = f"{package}.{base}".rstrip(".")
    return [f"{base}.{alias.name}" for alias in node.names]


def test_the_memory_package_is_plain_python() -> None:
    allowed = ("scratchpad_adapters.memory.", *(f"scratchpad_adapters.{module}." for module in SHARED))
    offending = [
        f"{source.name}:{node.lineno}: {ast.unparse(node)}"
        for source in sorted(MEMORY.glob("*.py"))
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in imported(node)
        if name.split(".")[0] not in {*sys.stdlib_module_names, "scratchpad_core"}
        and not f"{name}.".startswith(allowed)
    ]
    listed = "\n".join(offending)
    assert not offending, f"memory uses the standard library, the core and SHARED only (no SQL module):\n{listed}"
