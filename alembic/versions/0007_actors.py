"""Who changed what: every version and log entry records its actor; rows from before read "unknown".

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 13:05:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

TABLES = ("file_versions", "log_entries")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("actor", sa.String(length=256), nullable=False, server_default="unknown"))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("actor")
