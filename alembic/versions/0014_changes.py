"""A per-agent change number for read_changes (issue 31).

agents.changes counts the agent's writes: a writing transaction bumps it before it touches the agent's files or
logs (the row stays locked until commit, so writers take numbers in commit order) and stamps what it touches:
files.changed (last change), files.born (the change that created the path's current life, or moved a file
there, with moved_from the old path), files.redacted (the last redaction), file_versions.change,
logs.changed / logs.born / logs.dropped (the newest change retention dropped) and log_entries.change.
Rows written before this migration carry 0: a first sync (no cursor) sees them all as creations.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-05 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_PATH = sa.String(255).with_variant(sa.String(255, collation="C"), "postgresql")
_NUMBERS = {
    "agents": ("changes",),
    "files": ("changed", "born", "redacted"),
    "file_versions": ("change",),
    "logs": ("changed", "born", "dropped"),
    "log_entries": ("change",),
}


# The agent's changes resource hears of its logs too: a log whose entries change notifies the files' channel with
# path "" (scratchpad_core.changes), while a process listens (as migration 0005's files trigger does).
LOG_FUNCTION = """
CREATE FUNCTION scratchpad_log_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM change_listeners
        WHERE seen_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 90000
    ) THEN
        PERFORM pg_notify('scratchpad_files', json_build_array(NEW.agent_id, '', true, true)::text);
    END IF;
    RETURN NULL;
END
$$
"""
LOG_TRIGGER = """
CREATE TRIGGER scratchpad_log_changed AFTER UPDATE ON logs FOR EACH ROW
WHEN ((OLD.last_entry_id, OLD.entries, OLD.bytes) IS DISTINCT FROM (NEW.last_entry_id, NEW.entries, NEW.bytes))
EXECUTE FUNCTION scratchpad_log_changed()
"""


def upgrade() -> None:
    zero = sa.text("0")
    for table, columns in _NUMBERS.items():
        for column in columns:
            op.add_column(table, sa.Column(column, sa.BigInteger(), nullable=False, server_default=zero))
    op.add_column("files", sa.Column("moved_from", _PATH, nullable=True))
    op.create_index("ix_files_agent_id_changed", "files", ["agent_id", "changed"])
    op.create_index("ix_logs_agent_id_changed", "logs", ["agent_id", "changed"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(LOG_FUNCTION)
        op.execute(LOG_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS scratchpad_log_changed ON logs")
        op.execute("DROP FUNCTION IF EXISTS scratchpad_log_changed()")
    op.drop_index("ix_logs_agent_id_changed", "logs")
    op.drop_index("ix_files_agent_id_changed", "files")
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35+), as 0013 does: batch mode would copy (and cascade) the tables.
    op.execute("ALTER TABLE files DROP COLUMN moved_from")
    for table, columns in reversed(_NUMBERS.items()):
        for column in columns:
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
