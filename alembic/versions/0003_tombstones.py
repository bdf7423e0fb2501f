"""Deleted files and logs keep their rows as tombstones, so that their numbering carries on.

No table changes: a deleted file's row holds minus its last version in current_version, a deleted
log's row keeps last_entry_id with no entries. The revision exists so that a build that does not
know this meaning refuses the database (an unknown revision) instead of misreading those rows.
Downgrading removes the tombstones, which the older meaning has no place for.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 02:20:00
"""

from __future__ import annotations

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass  # rows written before this revision hold no tombstones


def downgrade() -> None:
    op.execute("DELETE FROM files WHERE current_version < 0")
    op.execute("DELETE FROM logs WHERE entries = 0")
