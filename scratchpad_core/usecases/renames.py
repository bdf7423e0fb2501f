"""Use cases that move files to new paths (one file, or every file under a prefix) and remove a prefix.

A move keeps the file: its retained versions, its cached summary and its bytes go with it, so quotas are
unchanged. The old path is left as a deleted path that remembers the file's last number, and the new path's
numbers follow `numbering.move_shift` (renumbered after a deleted file's there, so no number names two
contents). delete_prefix is delete_file for every file under a prefix, in one transaction.
"""

from __future__ import annotations

from ..errors import InvalidInput, InvalidPath, NotFound, StorageBusy, VersionConflict
from ..model import FileRecord, UsageDelta
from ..numbering import check_expected
from ..paths import check_agent_id, check_path, check_prefix
from ..ports import UnitOfWork
from ..results import DeletePrefixResult, RenamePrefixResult, RenameResult
from .base import UseCaseBase, checked, not_found
from .expiry import expire, live, visible


class Renames(UseCaseBase):
    def rename_file(self, agent_id: str, path: str, new_path: str, expected_version: int | None = None) -> RenameResult:
        """Move a file with its retained versions to new_path, which must not hold a file."""
        agent_id, path = checked(agent_id, path)
        new_path = check_path(new_path)
        check_expected(expected_version)

        def work(uow: UnitOfWork) -> RenameResult:
            (moved,) = self._move(uow, agent_id, [(path, new_path)], expected_version, listed=False)
            self._count(uow, agent_id)
            return moved

        return self._transact(work)

    def rename_prefix(self, agent_id: str, prefix: str, new_prefix: str) -> RenamePrefixResult:
        """Move every file whose path starts with `prefix` (literally) to `new_prefix` + the rest of its path.

        Nothing moves unless every file can: refused when a destination holds a file, or when one prefix
        starts with the other (a folder cannot move into itself).
        """
        agent_id = check_agent_id(agent_id)
        if not prefix or prefix.startswith(new_prefix) or new_prefix.startswith(prefix):
            raise InvalidInput(
                f"Invalid rename of {prefix!r} to {new_prefix!r}: neither prefix may be empty or start with the "
                "other (a folder cannot move into itself or onto its parent). Nothing was changed."
            )
        literal = check_prefix(prefix)

        def work(uow: UnitOfWork) -> RenamePrefixResult:
            shown = visible(uow, agent_id, self._clock())  # an expired file is not there to move
            sources = [r for r in uow.files.list(agent_id, literal, None, None) if shown(r.path, r.updated_at)]
            if not sources:
                raise NotFound.said("No file under {prefix}. {do.see_files}", prefix=prefix, agent_id=agent_id)
            pairs = [(r.path, _destination(r.path, prefix, new_prefix)) for r in sources]
            moved = self._move(uow, agent_id, pairs, None, listed=True)
            self._count(uow, agent_id)
            return RenamePrefixResult(prefix, new_prefix, moved)

        return self._transact(work)

    def delete_prefix(self, agent_id: str, prefix: str) -> DeletePrefixResult:
        """Delete every file whose path starts with `prefix` (literally; "" is every file), as delete_file does."""
        agent_id = check_agent_id(agent_id)
        literal = check_prefix(prefix)

        def work(uow: UnitOfWork) -> DeletePrefixResult:
            files = versions = freed = 0
            deleted = []
            for listed in uow.files.list(agent_id, literal, None, None):
                record = uow.files.lock(agent_id, listed.path)
                if record is None or record.current_version == 0:
                    continue  # deleted meanwhile
                removed, size = uow.files.delete(record.id, self._clock(), self.limits.remembered_deletions)
                files, versions, freed = files + 1, versions + removed, freed + size
                deleted.append(record.id)
            for file_id in deleted:  # after every file's lock (one lock order: files, then the index's statistics)
                uow.index.drop_file(file_id)
            self._count(uow, agent_id, UsageDelta(files=-files, bytes=-freed))
            return DeletePrefixResult(prefix, files, versions)

        return self._transact(work)

    def _move(
        self, uow: UnitOfWork, agent_id: str, pairs: list[tuple[str, str]], expected: int | None, *, listed: bool
    ) -> list[RenameResult]:
        """Lock every path (by path: one lock order), check every pair, then move them all in one call."""
        now = self._clock()
        sources = {path for path, _ in pairs}
        rows: dict[str, FileRecord | None] = {}
        for path in sorted(sources | {new for _, new in pairs}):
            if path in sources:
                rows[path] = uow.files.lock(agent_id, path)
            else:  # a destination: a new row, or the deleted path's (it remembers its number)
                rows[path] = uow.files.lock_or_create(agent_id, path, now)
        gone = [r for r in rows.values() if r is not None and r.current_version > 0 and live(uow, r, now) is None]
        if gone:  # expired: as if deleted, so deleted now, as a write that meets one does (a source is not found,
            expire(uow, gone, now, self.limits)  # a destination is free)
            rows.update({record.path: uow.files.lock(agent_id, record.path) for record in gone})
        for path, new_path in pairs:
            source, target = rows[path], rows[new_path]
            current = source.current_version if source else 0
            if current == 0 and listed:
                raise StorageBusy(f"{path} was deleted while it was being moved; retry.")  # retried from the listing
            if expected is not None and expected != current:
                raise VersionConflict(path, expected, current)
            if source is None or current == 0:
                raise not_found(agent_id, path)
            assert target is not None, "lock_or_create returns a row"
            if target.current_version:
                taken = target.current_version
                raise InvalidInput(
                    f"Cannot rename {path} to {new_path}: {new_path} already exists (version {taken}). "
                    "Nothing was changed; delete it first, or choose another path."
                )
        ids = [(_id(rows[path]), _id(rows[new_path])) for path, new_path in pairs]
        indexed = [uow.index.file_slots(source) for source, _ in ids]
        numbers = uow.files.move(ids, now, self.limits.remembered_deletions)
        for (path, _), (from_id, to_id), record, number in zip(pairs, ids, indexed, numbers, strict=True):
            uow.index.drop_file(to_id)  # a record an earlier release left at the destination
            moved = rows[path]
            if record is not None and moved is not None:  # the versions moved renumbered by number - current;
                uow.index.move_file(from_id, to_id, record.version + number - moved.current_version)  # so does it
            else:
                uow.index.drop_file(from_id)
        return [RenameResult(p, n, v) for (p, n), v in zip(pairs, numbers, strict=True)]


def _id(record: FileRecord | None) -> int:
    assert record is not None, "checked by _move"
    return record.id


def _destination(path: str, prefix: str, new_prefix: str) -> str:
    new_path = new_prefix + path[len(prefix) :]
    try:
        return check_path(new_path)
    except InvalidPath as error:
        rule = error.message.removeprefix("Invalid path: ")
        raise InvalidPath(f"Invalid new path {new_path} (for {path}): {rule} Nothing was changed.") from None
