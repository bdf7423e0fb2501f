"""Agent teams (issue 23): a key's grants on other agents' namespaces, and request_ids scoped to their caller.

key_grants holds one row per (key, agent): read or write. request_ids gains `caller` (a key's id; "" for stdio
and the library) in its primary key, so that two keys sending one request_id to a shared agent make two
requests. Existing ids keep "" (as sent before keys could share an agent). Downgrading drops the grants and
keeps, of ids sent by several callers under one id, none but the callerless ones.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "key_grants",
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("access", sa.String(length=8), nullable=False),
        sa.PrimaryKeyConstraint("key_id", "agent_id", name=op.f("pk_key_grants")),
        sa.ForeignKeyConstraint(
            ["key_id"], ["api_keys.id"], name=op.f("fk_key_grants_key_id_api_keys"), ondelete="CASCADE"
        ),
    )
    with op.batch_alter_table("request_ids") as batch:
        batch.add_column(sa.Column("caller", sa.String(length=32), nullable=False, server_default=""))
        batch.drop_constraint("pk_request_ids", type_="primary")
        batch.create_primary_key("pk_request_ids", ["agent_id", "caller", "request_id"])


def downgrade() -> None:
    op.drop_table("key_grants")
    op.execute("DELETE FROM request_ids WHERE caller <> ''")
    with op.batch_alter_table("request_ids") as batch:
        batch.drop_constraint("pk_request_ids", type_="primary")
        batch.create_primary_key("pk_request_ids", ["agent_id", "request_id"])
        batch.drop_column("caller")
