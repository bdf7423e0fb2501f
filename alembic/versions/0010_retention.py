"""Retention rules (scratchpad_core.retention.rules): per agent, its logs or files under a path prefix.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 03:45:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

PATH = sa.String(length=255).with_variant(sa.String(length=255, collation="C"), "postgresql")


def upgrade() -> None:
    op.create_table(
        "retention_rules",
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("prefix", PATH, nullable=False),
        sa.Column("keep_entries", sa.Integer(), nullable=True),
        sa.Column("max_age", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("agent_id", "kind", "prefix", name="pk_retention_rules"),
    )


def downgrade() -> None:
    op.drop_table("retention_rules")
