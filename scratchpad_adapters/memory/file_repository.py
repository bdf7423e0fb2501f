"""The file repository on the in-memory tables, row for row what the SQL one does."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from scratchpad_core.model import Advance, Advanced, FileInfo, FileRecord, NotAdvanced, Version, VersionInfo
from scratchpad_core.numbering import move_shift, next_number

from .database import Tables, Transaction


def _record(row: FileRecord) -> FileRecord:
    """The domain's view of a file row: a tombstone reads as a file at version 0, one that does not exist."""
    return row if row.current_version >= 0 else dataclasses.replace(row, current_version=0)


def _forget_files(t: Tables, agent_id: str, keep: int) -> None:
    for file_id in t.files.forget(agent_id, lambda r: r.current_version < 0, keep):
        t.versions.pop(file_id, None)
        t.summaries.pop(file_id, None)


class MemoryFileRepository:
    def __init__(self, transaction: Transaction) -> None:
        self._tx = transaction

    def get(self, agent_id: str, path: str) -> FileRecord | None:
        row = self._tx.tables.files.find(agent_id, path)
        return None if row is None else _record(row)

    def lock(self, agent_id: str, path: str, *, writes: bool = True) -> FileRecord | None:
        if writes:
            self._tx.number(agent_id)  # as in SQL, the agent's change number is taken first
        return self.get(agent_id, path)  # a writing unit of work holds the whole store already

    def lock_or_create(self, agent_id: str, path: str, now: int) -> FileRecord:
        files = self._tx.change().files  # as FOR UPDATE does, refused in a read-only unit of work
        return _record(
            files.find_or_insert(agent_id, path, lambda new: FileRecord(new, agent_id, path, 0, 0, "", now, now))
        )

    def advance(self, agent_id: str, path: str, head: Version, expected: int | None) -> Advance:
        row = self._tx.tables.files.find(agent_id, path)
        refusal = NotAdvanced.of(None if row is None else _record(row), head, expected)
        if refusal is not None:
            return refusal
        assert row is not None, "NotAdvanced.of refuses a file that has no row"
        moved = dataclasses.replace(
            row,
            current_version=next_number(abs(row.current_version)),  # a tombstone keeps its last number negated
            bytes=head.bytes,
            sha256=head.sha256,
            updated_at=head.created_at,
            created_at=head.created_at if expected == 0 else row.created_at,  # a new file, or a deleted one's number
        )
        t = self._tx.change()
        t.files[row.id] = moved
        change = self._tx.number(agent_id)
        if expected == 0:
            t.stamps.file(row.id, changed=change, born=change, moved_from=None)
        else:
            t.stamps.file(row.id, changed=change)
        return Advanced(moved.id, moved.current_version, created=expected == 0)

    def add_version(self, file_id: int, version: Version) -> None:
        t = self._tx.change()
        kept = t.versions.get(file_id, {})
        assert version.version not in kept, "a version number names one content (the SQL primary key)"
        t.versions[file_id] = {**kept, version.version: version}
        t.stamps.versions[file_id, version.version] = self._tx.number(t.files[file_id].agent_id)

    def prune(self, file_id: int, keep_from: int) -> tuple[int, int]:
        if keep_from <= 1:
            return 0, 0
        t = self._tx.change()
        kept = t.versions.get(file_id, {})
        gone = [v.bytes for n, v in kept.items() if n < keep_from]
        t.versions[file_id] = {n: v for n, v in kept.items() if n >= keep_from}
        summary = t.summaries.get(file_id)
        if summary is not None and summary.version < keep_from:  # a summary is of a retained version
            del t.summaries[file_id]
        return len(gone), sum(gone)

    def get_version(self, file_id: int, version: int) -> Version | None:
        return self._tx.tables.versions.get(file_id, {}).get(version)

    def replace_content(self, file_id: int, version: Version) -> None:
        t = self._tx.change()
        t.versions[file_id] = {**t.versions[file_id], version.version: version}
        change = self._tx.number(t.files[file_id].agent_id)
        t.stamps.file(file_id, changed=change, redacted=change)

    def list_versions(self, file_id: int) -> list[VersionInfo]:
        kept = self._tx.tables.versions.get(file_id, {})
        return [VersionInfo(v.version, v.bytes, v.lines, v.sha256, v.created_at, v.by) for _, v in sorted(kept.items())]

    def list_all(self, after: tuple[str, str] | None, limit: int) -> list[FileRecord]:
        rows = sorted(
            (
                r
                for r in self._tx.tables.files.by_id.values()
                if r.current_version > 0 and (after is None or (r.agent_id, r.path) > after)
            ),
            key=lambda r: (r.agent_id, r.path),
        )
        return rows[:limit]

    def written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str], limit: int | None
    ) -> list[FileRecord]:
        rows = [
            r
            for r in self._tx.tables.files.under(agent_id, prefix)
            if r.current_version > 0 and r.updated_at < before and not r.path.startswith(tuple(excluding))
        ]
        return rows if limit is None else rows[:limit]

    def stored_written_before(
        self, agent_id: str, prefix: str, before: int, excluding: Sequence[str]
    ) -> tuple[int, int]:
        found = self.written_before(agent_id, prefix, before, excluding, None)
        versions = self._tx.tables.versions
        return len(found), sum(v.bytes for r in found for v in versions.get(r.id, {}).values())

    def listing(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileInfo]:
        return [r.info() for r in self.list(agent_id, prefix, after, limit)]

    def list(self, agent_id: str, prefix: str, after: str | None, limit: int | None) -> list[FileRecord]:
        rows = [r for r in self._tx.tables.files.under(agent_id, prefix) if r.current_version > 0]
        if after is not None:
            rows = [r for r in rows if r.path > after]
        return rows if limit is None else rows[:limit]

    def iter_current(self, agent_id: str, prefix: str) -> Iterator[tuple[str, str]]:
        t = self._tx.tables
        for row in t.files.under(agent_id, prefix):
            current = t.versions.get(row.id, {}).get(row.current_version)
            if current is not None:
                yield row.path, current.content

    def delete(self, file_id: int, now: int, remember: int) -> tuple[int, int]:
        t = self._tx.change()
        gone = [v.bytes for v in t.versions.pop(file_id, {}).values()]
        t.summaries.pop(file_id, None)
        row = t.files[file_id]
        t.files[file_id] = dataclasses.replace(
            row, current_version=-row.current_version, bytes=0, sha256="", updated_at=now
        )
        t.stamps.file(file_id, changed=self._tx.number(row.agent_id))
        _forget_files(t, row.agent_id, remember)
        return len(gone), sum(gone)

    def move(self, moves: Sequence[tuple[int, int]], now: int, remember: int) -> Sequence[int]:
        t = self._tx.change()
        numbers = []
        for from_id, to_id in moves:
            source, target = t.files[from_id], t.files[to_id]
            kept_versions = t.versions.pop(from_id, {})
            oldest = min(kept_versions, default=source.current_version)
            shift = move_shift(-target.current_version, oldest)  # a deleted path remembers minus its number
            t.versions[to_id] = {
                n + shift: dataclasses.replace(kept, version=n + shift) for n, kept in kept_versions.items()
            }
            change = self._tx.number(source.agent_id)
            for n in kept_versions:  # the versions keep the changes that made them
                t.stamps.versions[to_id, n + shift] = t.stamps.versions.pop((from_id, n), 0)
            t.stamps.file(to_id, changed=change, born=change, moved_from=source.path)
            t.stamps.file(from_id, changed=change)
            summary = t.summaries.pop(from_id, None)
            if summary is not None:
                t.summaries[to_id] = dataclasses.replace(summary, version=summary.version + shift)
            number = source.current_version + shift
            t.files[to_id] = dataclasses.replace(
                source, id=to_id, path=target.path, current_version=number, updated_at=now
            )
            t.files[from_id] = dataclasses.replace(
                source, current_version=-source.current_version, bytes=0, sha256="", updated_at=now
            )
            numbers.append(number)
        if moves:
            _forget_files(t, t.files[moves[0][0]].agent_id, remember)
        return numbers
