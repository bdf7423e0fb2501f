"""request_ids: a writing call's request_id and its result, so that a retry returns it and changes nothing.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "request_ids",
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("request_id", sa.String(length=128), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("operation", sa.String(length=32), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("result", sa.Text(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("agent_id", "request_id", name=op.f("pk_request_ids")),
    )
    op.create_index("ix_request_ids_agent_id_seq", "request_ids", ["agent_id", "seq"])


def downgrade() -> None:
    op.drop_index("ix_request_ids_agent_id_seq", table_name="request_ids")
    op.drop_table("request_ids")
