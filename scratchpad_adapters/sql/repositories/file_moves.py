"""Moving a file's versions, summary and head onto its destination's row (FileRepository.move).

The versions and the summary change rows to the destination's id, shifted by the number the destination
remembers (numbering.move_shift; a tombstone's number is minus its current_version; 0 for a new row). The destination
has no versions and no summary (they were deleted with its file), so no key can collide.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, Integer, bindparam, func, select, update

from scratchpad_core.numbering import move_shift

from ..connection.execution import run
from ..schema.tables import file_versions, files, summaries

f, v, s = files.c, file_versions.c, summaries.c

_HEAD = select(f.path, f.current_version, f.bytes, f.sha256, f.created_at).where(f.id == bindparam("file_id"))
_OLDEST = select(func.min(v.version)).where(v.file_id == bindparam("file_id"))
_MOVE_VERSIONS = (
    update(file_versions)
    .where(v.file_id == bindparam("from_id"))
    .values(file_id=bindparam("to_id"), version=v.version + bindparam("shift", type_=Integer))
)
_MOVE_SUMMARY = (
    update(summaries)
    .where(s.file_id == bindparam("from_id"))
    .values(file_id=bindparam("to_id"), version=s.version + bindparam("shift", type_=Integer))
)
_TAKE_HEAD = (
    update(files)
    .where(f.id == bindparam("to_id"))
    .values(
        current_version=bindparam("moved_version"),
        bytes=bindparam("moved_bytes"),
        sha256=bindparam("moved_sha256"),
        created_at=bindparam("moved_created_at"),
        updated_at=bindparam("now"),
        changed=bindparam("change"),
        born=bindparam("change"),
        moved_from=bindparam("moved_from"),
    )
)


def move_heads(connection: Connection, moves: Sequence[tuple[int, int]], now: int, change: int) -> list[int]:
    """Give each destination its source's versions (their change numbers with them), summary and head, born
    from the path it left at `change`; returns the moved current versions.
    The sources' rows are left as they were, for the repository to bury."""
    numbers = []
    for from_id, to_id in moves:
        head = run(connection, _HEAD, {"file_id": from_id}).one()
        remembered = -run(connection, _HEAD, {"file_id": to_id}).one().current_version  # 0, or a tombstone's
        oldest = run(connection, _OLDEST, {"file_id": from_id}).scalar() or head.current_version
        shift = move_shift(remembered, oldest)
        ids = {"from_id": from_id, "to_id": to_id, "shift": shift}
        run(connection, _MOVE_VERSIONS, ids)
        run(connection, _MOVE_SUMMARY, ids)
        number = head.current_version + shift
        moved = {"moved_version": number, "moved_bytes": head.bytes, "moved_sha256": head.sha256}
        moved.update(moved_created_at=head.created_at, moved_from=head.path, change=change)
        run(connection, _TAKE_HEAD, {**moved, "to_id": to_id, "now": now})
        numbers.append(number)
    return numbers
