"""Worker functions for the multi-process tests; top-level so that spawned processes can import them."""

from __future__ import annotations

from multiprocessing.synchronize import Barrier
from typing import Any

from scratchpad_adapters import open_store
from scratchpad_core.errors import QuotaExceeded, ScratchpadError
from scratchpad_core.limits import Limits


def write_many(url: str, barrier: Barrier, worker: int, count: int) -> list[int]:
    """Write `count` versions of one shared path; return the version each write was acknowledged with."""
    with open_store(url, upgrade=False) as store:
        barrier.wait()
        return [store.write_file("shared", "race.md", f"worker {worker} write {i}\n").version for i in range(count)]


def append_many(url: str, barrier: Barrier, worker: int, count: int) -> list[tuple[int, str]]:
    with open_store(url, upgrade=False) as store:
        barrier.wait()
        return [(store.append_log("shared", "events", f"{worker}:{i}").entry_id, f"{worker}:{i}") for i in range(count)]


def follow_log(url: str, barrier: Barrier, expected: int) -> list[int]:
    """Page through the log with since_entry while appenders write; return every id seen, in order."""
    seen: list[int] = []
    cursor = 0
    with open_store(url, upgrade=False) as store:
        barrier.wait()
        while len(seen) < expected:
            try:
                page = store.read_log("shared", "events", cursor)
            except ScratchpadError:
                continue  # the log does not exist yet
            seen.extend(entry.id for entry in page.entries)
            cursor = page.last_entry_id
    return seen


def race_quota(url: str, barrier: Barrier, worker: int, kind: str, limits: dict[str, Any]) -> tuple[int, int]:
    """Try to create files / append entries / store bytes; return (accepted, refused)."""
    accepted = refused = 0
    with open_store(url, upgrade=False, limits=Limits(**limits)) as store:
        barrier.wait()
        for i in range(10):
            try:
                if kind == "files":
                    store.write_file("quota", f"w{worker}/f{i}.md", "x")
                elif kind == "entries":
                    store.append_log("quota", f"log{worker % 2}", "e")
                else:
                    store.write_file("quota", f"w{worker}-{i}.md", "y" * 100)
                accepted += 1
            except QuotaExceeded:
                refused += 1
    return accepted, refused


def start_replica(url: str, barrier: Barrier) -> tuple[str | None, str | None]:
    """Start as a replica does: open the database, which migrates it; return (before, after) revisions."""
    from scratchpad_adapters.sql.connection.engine import make_engine
    from scratchpad_adapters.sql.schema import migrate

    engine = make_engine(url)
    try:
        barrier.wait()
        return migrate.upgrade(engine)
    finally:
        engine.dispose()


def make_room(url: str, barrier: Barrier, worker: int, quota_files: int) -> tuple[int, int, list[str]]:
    """Agent "room" is at its file quota, every file under tmp/ expired: worker 0 prunes, the others write new
    files (each making room, or refused) and rewrite expired paths; return (accepted, refused, other errors)."""
    accepted = refused = 0
    errors: list[str] = []
    with open_store(url, upgrade=False, limits=Limits(quota_files=quota_files)) as store:
        barrier.wait()
        for i in range(10):
            try:
                if worker == 0:
                    store.prune()
                    continue
                path = f"w{worker}/{i}.md" if i % 2 == 0 else f"tmp/{(worker * 10 + i) % quota_files:02}.md"
                store.write_file("room", path, f"{worker} {i}\n")
                accepted += 1
            except QuotaExceeded:
                refused += 1
            except ScratchpadError as error:  # StorageBusy from a deadlock would land here
                errors.append(f"{type(error).__name__}: {error}")
    return accepted, refused, errors
