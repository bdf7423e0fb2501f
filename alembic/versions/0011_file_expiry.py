"""Expired files counted nowhere (issue 28): an index on each agent's files by their last write.

A files rule (scratchpad_core.retention) expires a file max_age after its last write. Usage (get_usage_stats,
the command line, the web view), a write that meets a quota and a prune find an agent's expired files by a
range scan of this index, whatever the number of files the agent holds.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 02:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_files_agent_id_updated_at", "files", ["agent_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_files_agent_id_updated_at", table_name="files")
