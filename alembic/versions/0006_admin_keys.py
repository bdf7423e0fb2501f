"""Admin keys: an API key with no agent, which signs in to the web view and sees every agent (and calls no tools).

api_keys.agent_id becomes nullable; every existing key keeps its agent. Downgrading deletes the admin keys,
which the older schema has no place for.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.alter_column("agent_id", existing_type=sa.String(length=128), nullable=True)


def downgrade() -> None:
    op.execute("DELETE FROM api_keys WHERE agent_id IS NULL")
    with op.batch_alter_table("api_keys") as batch:
        batch.alter_column("agent_id", existing_type=sa.String(length=128), nullable=False)
