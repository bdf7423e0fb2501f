"""The statement that finds an agent's files by their last write (scratchpad_core.usecases.expiry: expired
files, for usage, quotas and prune): built once per shape, a range scan of an index either way."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, bindparam, func, select

from scratchpad_core.model import FileRecord

from ..schema.tables import file_versions, files
from .queries import prefix_bounds, under_prefix

f, v = files.c, file_versions.c
RECORD_COLUMNS = [f[field.name] for field in dataclasses.fields(FileRecord)]  # a FileRecord's (not the index's marker)


@functools.cache
def written_before(total: bool, prefixed: bool, excluded: int, limited: bool) -> Select[Any]:
    """The agent's live files under a prefix (lo..hi) and none of `excluded` others (lo_i..hi_i), last written
    before a time: the (agent_id, updated_at) index's range, or the (agent_id, path) one's for a prefix."""
    where = [f.agent_id == bindparam("agent_id"), f.updated_at < bindparam("before"), f.current_version > 0]
    where.append(under_prefix(f.path, prefixed))
    where += [~and_(f.path >= bindparam(f"lo_{i}"), f.path < bindparam(f"hi_{i}")) for i in range(excluded)]
    if total:  # every live file has its current version: the join keeps each one
        counted = select(func.count(func.distinct(f.id)), func.coalesce(func.sum(v.bytes), 0))
        return counted.select_from(files.join(file_versions, v.file_id == f.id)).where(*where)
    query = select(*RECORD_COLUMNS).where(*where).order_by(f.path)
    return query.limit(bindparam("limit")) if limited else query


def written_before_params(agent_id: str, prefix: str, before: int, excluding: Sequence[str]) -> dict[str, Any]:
    params: dict[str, Any] = {"agent_id": agent_id, "before": before, **prefix_bounds(prefix)}
    for i, other in enumerate(excluding):
        bounds = prefix_bounds(other)
        params[f"lo_{i}"], params[f"hi_{i}"] = bounds["lo"], bounds["hi"]
    return params
