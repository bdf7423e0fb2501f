"""`db check`'s rules on what each retained version holds: its content's sha256 and line count.

SQLite has no sha256 in SQL, so these are computed in Python, with the store's own functions
(scratchpad_core.model.sha256_hex, scratchpad_core.text.count_lines), over one streamed cursor in
the check's snapshot: CONTENT_BATCH versions at a time, in primary key order (no sort of contents).
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlalchemy import Connection, select

from scratchpad_core.model import sha256_hex
from scratchpad_core.text import count_lines

from ..schema.tables import file_versions, files
from .rules import Violation, f, scoped, v

CONTENT_BATCH = 32  # versions in memory at once (each at most max_file_bytes)


def content_rules(connection: Connection, agent: str | None) -> Iterator[Violation]:
    """Each retained version's sha256 and line count are those of its content."""
    query = (
        select(f.agent_id, f.path, v.version, v.content, v.sha256, v.lines)
        .select_from(file_versions.join(files, v.file_id == f.id))
        .where(scoped(f.agent_id, agent))
        .order_by(v.file_id, v.version)
        .execution_options(yield_per=CONTENT_BATCH)
    )
    for row in connection.execute(query):
        real, lines = sha256_hex(row.content), count_lines(row.content)
        if real != row.sha256:
            said = f"{row.sha256[:12]}..." if row.sha256 else "nothing"
            detail = f"version {row.version}'s content hashes to {real[:12]}..., the row says {said}"
            yield Violation("version-hash", row.agent_id, row.path, detail)
        if lines != row.lines:
            detail = f"version {row.version} says {row.lines} lines, its content has {lines}"
            yield Violation("version-lines", row.agent_id, row.path, detail)
