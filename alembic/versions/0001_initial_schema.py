"""Initial schema: agents' counters, files with their versions, logs with their entries, summaries.

Revision ID: 0001
Revises: 
Create Date: 2026-11-29 22:18:38.301294
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('agents',
    sa.Column('agent_id', sa.String(length=128), nullable=False),
    sa.Column('files', sa.Integer(), nullable=False),
    sa.Column('logs', sa.Integer(), nullable=False),
    sa.Column('log_entries', sa.Integer(), nullable=False),
    sa.Column('bytes', sa.BigInteger(), nullable=False),
    sa.Column('operations', sa.BigInteger(), nullable=False),
    sa.Column('bytes_saved', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('agent_id', name=op.f('pk_agents'))
    )
    op.create_table('files',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('agent_id', sa.String(length=128), nullable=False),
    sa.Column('path', sa.String(length=255).with_variant(sa.String(length=255, collation='C'), 'postgresql'), nullable=False),
    sa.Column('current_version', sa.Integer(), nullable=False),
    sa.Column('bytes', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_files')),
    sa.UniqueConstraint('agent_id', 'path', name='uq_files_agent_id_path')
    )
    op.create_table('logs',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('agent_id', sa.String(length=128), nullable=False),
    sa.Column('path', sa.String(length=255).with_variant(sa.String(length=255, collation='C'), 'postgresql'), nullable=False),
    sa.Column('last_entry_id', sa.Integer(), nullable=False),
    sa.Column('entries', sa.Integer(), nullable=False),
    sa.Column('bytes', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.Column('updated_at', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_logs')),
    sa.UniqueConstraint('agent_id', 'path', name='uq_logs_agent_id_path')
    )
    op.create_table('file_versions',
    sa.Column('file_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('bytes', sa.Integer(), nullable=False),
    sa.Column('lines', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['file_id'], ['files.id'], name=op.f('fk_file_versions_file_id_files'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('file_id', 'version', name=op.f('pk_file_versions'))
    )
    op.create_table('log_entries',
    sa.Column('log_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('entry_id', sa.Integer(), nullable=False),
    sa.Column('entry', sa.Text(), nullable=False),
    sa.Column('bytes', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['log_id'], ['logs.id'], name=op.f('fk_log_entries_log_id_logs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('log_id', 'entry_id', name=op.f('pk_log_entries'))
    )
    op.create_table('summaries',
    sa.Column('file_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('summary', sa.Text(), nullable=False),
    sa.Column('model', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['file_id'], ['files.id'], name=op.f('fk_summaries_file_id_files'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('file_id', name=op.f('pk_summaries'))
    )


def downgrade() -> None:
    op.drop_table('summaries')
    op.drop_table('log_entries')
    op.drop_table('file_versions')
    op.drop_table('logs')
    op.drop_table('files')
    op.drop_table('agents')
