"""A per-agent change number for read_changes (issue 31).

agents.changes counts the agent's writes: a writing transaction bumps it before it touches the agent's files or
logs (the row stays locked until commit, so writers take numbers in commit order) and stamps what it touches:
files.changed (last change), files.born (the change that created the path's current life, or moved a file
there, with moved_from the old path), files.redacted (the last redaction), file_versions.change,
logs.changed / logs.born / logs.dropped (the newest change retention dropped) and log_entries.change.
Rows written before this migration carry 0: a first sync (no cursor) sees them all as creations.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_PATH = sa.String(255).with_variant(sa.String(255, collation="C"), "postgresql")
_NUMBERS = {
    "agents": ("changes",),
    "files": ("changed", "born", "redacted"),
    "file_versions": ("change",),
    "logs": ("changed", "born", "dropped"),
    "log_entries": ("change",),
}


def upgrade() -> None:
    zero = sa.text("0")
    for table, columns in _NUMBERS.items():
        for column in columns:
            op.add_column(table, sa.Column(column, sa.BigInteger(), nullable=False, server_default=zero))
    op.add_column("files", sa.Column("moved_from", _PATH, nullable=True))
    op.create_index("ix_files_agent_id_changed", "files", ["agent_id", "changed"])
    op.create_index("ix_logs_agent_id_changed", "logs", ["agent_id", "changed"])


def downgrade() -> None:
    op.drop_index("ix_logs_agent_id_changed", "logs")
    op.drop_index("ix_files_agent_id_changed", "files")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+), as 0013 does: batch mode would copy (and cascade) the tables.
    op.execute("ALTER TABLE files DROP COLUMN moved_from")
    for table, columns in reversed(_NUMBERS.items()):
        for column in columns:
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
