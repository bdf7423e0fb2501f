"""Statement pieces the repositories share: literal prefix ranges, and forgetting old tombstones."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Delete, ScalarSelect, Table, and_, bindparam, delete, select


def prefix_bounds(prefix: str) -> dict[str, str]:
    """Bounds for a literal, case-sensitive prefix match that can use the (agent_id, path) index."""
    return {"lo": prefix, "hi": prefix[:-1] + chr(ord(prefix[-1]) + 1)} if prefix else {}


def under_prefix(column: Any, prefixed: bool) -> Any:
    return and_(column >= bindparam("lo"), column < bindparam("hi")) if prefixed else and_(True)


def forgetting(table: Table, dead: ColumnElement[bool], owner: ScalarSelect[Any]) -> Delete:
    """DELETE the owner's tombstones beyond the `keep` most recent (Limits.remembered_deletions): quotas count
    live rows only, so without this an agent could leave a row behind for every path it ever deleted."""
    t = table.c
    recent = (
        select(t.id)
        .where(t.agent_id == owner, dead)
        .order_by(t.updated_at.desc(), t.id.desc())
        .limit(bindparam("keep"))
    )
    return delete(table).where(t.agent_id == owner, dead, t.id.not_in(recent))
