"""Word search (issue 22): the index tables, each database's full-text engine over them, and the index of every
existing store, built here in batches (a line on stderr as it goes: a large store takes a while).

A replica still running the previous release keeps writing without touching the index; a search finds what it
left behind (a file whose index record is not at its current version, a log whose indexed entries are not its
live ones) and catches up first (scratchpad_adapters.sql.search.index: lagging).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 00:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

TABLES = ("search_rows", "search_logs", "search_files", "search_agents")


def upgrade() -> None:
    from scratchpad_adapters.sql.search import build as search_build
    from scratchpad_adapters.sql.search import terms as search_terms

    bind = op.get_bind()
    postgres = bind.dialect.name == "postgresql"
    Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.create_table(
        "search_agents",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("documents", sa.BigInteger(), nullable=False),
        sa.Column("length", sa.BigInteger(), nullable=False),
        sa.Column("common", sa.Text(), nullable=False),
        sa.UniqueConstraint("agent_id", name=op.f("uq_search_agents_agent_id")),
    )
    op.create_table(
        "search_files",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("file_id", Id, nullable=False),
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("slots", sa.LargeBinary(), nullable=False),
        sa.UniqueConstraint("file_id", name=op.f("uq_search_files_file_id")),
    )
    op.create_index(op.f("ix_search_files_agent_id"), "search_files", ["agent_id"])
    op.create_table(
        "search_logs",
        sa.Column("log_id", Id, primary_key=True, autoincrement=False),
        sa.Column("agent_id", sa.String(length=128), nullable=False),
        sa.Column("first_entry", sa.Integer(), nullable=False),
        sa.Column("last_entry", sa.Integer(), nullable=False),
    )
    op.create_index(op.f("ix_search_logs_agent_id"), "search_logs", ["agent_id"])
    terms = sa.Text().with_variant(sa.dialects.postgresql.TSVECTOR(), "postgresql")
    op.create_table(
        "search_rows",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("owner", sa.BigInteger(), nullable=False),
        sa.Column("entry", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("terms", terms, nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
    )
    op.create_index("ix_search_rows_owner_entry", "search_rows", ["owner", "entry"])
    for statement in search_terms.POSTGRES_SCHEMA if postgres else search_terms.SQLITE_SCHEMA:
        op.execute(statement)
    search_build.build_all(bind, markers=False)  # 0013 adds the rows' markers, and sets them from the records


def downgrade() -> None:
    from scratchpad_adapters.sql.search import terms as search_terms

    if op.get_bind().dialect.name != "postgresql":
        for statement in search_terms.SQLITE_DROP:
            op.execute(statement)
    for table in TABLES:
        op.drop_table(table)
