"""The search index's backlog (issue 29): writers no longer change the index; each file and log row says what the
index holds of it (files.indexed_version; logs.indexed_last and indexed_entries), and a partial index over the
rows where that is not their content is the backlog a search (or the background pass) catches up first.
Initialized from the index records, so a store whose index is up to date starts with no backlog.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

FILES_PENDING = "indexed_version <> CASE WHEN current_version > 0 THEN current_version ELSE 0 END"
LOGS_PENDING = "(indexed_entries <> entries OR (entries > 0 AND indexed_last <> last_entry_id))"


def upgrade() -> None:
    zero = sa.text("0")
    op.add_column("files", sa.Column("indexed_version", sa.Integer(), nullable=False, server_default=zero))
    op.add_column("logs", sa.Column("indexed_last", sa.Integer(), nullable=False, server_default=zero))
    op.add_column("logs", sa.Column("indexed_entries", sa.Integer(), nullable=False, server_default=zero))
    op.execute(
        "UPDATE files SET indexed_version = "
        "coalesce((SELECT version FROM search_files WHERE search_files.file_id = files.id), 0)"
    )
    op.execute(
        "UPDATE logs SET "
        "indexed_last = coalesce((SELECT CASE WHEN last_entry >= first_entry THEN last_entry ELSE 0 END "
        "FROM search_logs WHERE search_logs.log_id = logs.id), 0), "
        "indexed_entries = coalesce((SELECT last_entry - first_entry + 1 FROM search_logs "
        "WHERE search_logs.log_id = logs.id AND last_entry >= first_entry), 0)"
    )
    where = {"sqlite_where": sa.text(FILES_PENDING), "postgresql_where": sa.text(FILES_PENDING)}
    op.create_index("ix_files_unindexed", "files", ["agent_id"], **where)
    where = {"sqlite_where": sa.text(LOGS_PENDING), "postgresql_where": sa.text(LOGS_PENDING)}
    op.create_index("ix_logs_unindexed", "logs", ["agent_id"], **where)


def downgrade() -> None:
    op.drop_index("ix_logs_unindexed", "logs")
    op.drop_index("ix_files_unindexed", "files")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+): batch mode would copy `files`, and the copy's drop would
    # cascade to every file's versions.
    for table, column in (("logs", "indexed_entries"), ("logs", "indexed_last"), ("files", "indexed_version")):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
