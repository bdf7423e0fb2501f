"""Expired files counted nowhere (issue 28): an index on each agent's files by their last write, and one on its
deleted paths.

A files rule (scratchpad_core.retention.rules) expires a file max_age after its last write. Usage (get_usage_stats,
the command line, the web view), a write that meets a quota and a prune find an agent's expired files by a
range scan of the first index, whatever the number of files the agent holds. Deleting them (as delete_file
does) forgets the oldest deleted paths beyond those remembered: the second, partial, index holds only deleted
paths, so that this no longer reads every file row of the agent.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 02:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


TOMBSTONE = sa.text("current_version < 0")


def upgrade() -> None:
    op.create_index("ix_files_agent_id_updated_at", "files", ["agent_id", "updated_at"])
    op.create_index(
        "ix_files_tombstones", "files", ["agent_id", "updated_at"], sqlite_where=TOMBSTONE, postgresql_where=TOMBSTONE
    )


def downgrade() -> None:
    op.drop_index("ix_files_tombstones", table_name="files")
    op.drop_index("ix_files_agent_id_updated_at", table_name="files")
