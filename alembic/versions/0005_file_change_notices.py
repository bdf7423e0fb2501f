"""PostgreSQL tells every listening process which files changed: a trigger on files notifies channel
scratchpad_files with [agent_id, path, was_live, is_live] for each row a transaction inserts, updates (its
version, content or path) or deletes; the notice goes out when the transaction commits, and not at all when it
rolls back. It notifies only while a process listens, one seen in change_listeners within the last 90 s: a
NOTIFY serializes the commits of the transactions that send one, which writers need not pay for nobody. A row holds a live file when current_version > 0 (a deleted file's row keeps minus its last version);
a row moved to another path tells of both paths. SQLite has no notices: its processes watch their own writes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:00:00
"""

from __future__ import annotations

import sqlalchemy as sa

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

FUNCTION = """
CREATE FUNCTION scratchpad_file_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    moved boolean := TG_OP = 'UPDATE' AND (OLD.agent_id, OLD.path) IS DISTINCT FROM (NEW.agent_id, NEW.path);
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM change_listeners
        WHERE seen_at > (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 90000
    ) THEN
        RETURN NULL;
    END IF;
    IF (TG_OP = 'DELETE' OR moved) AND OLD.current_version > 0 THEN
        PERFORM pg_notify('scratchpad_files', json_build_array(OLD.agent_id, OLD.path, true, false)::text);
    END IF;
    IF TG_OP = 'INSERT' OR moved THEN
        IF NEW.current_version > 0 THEN
            PERFORM pg_notify('scratchpad_files', json_build_array(NEW.agent_id, NEW.path, false, true)::text);
        END IF;
    ELSIF TG_OP = 'UPDATE' AND (OLD.current_version > 0 OR NEW.current_version > 0)
        AND (OLD.current_version, OLD.sha256) IS DISTINCT FROM (NEW.current_version, NEW.sha256) THEN
        PERFORM pg_notify(
            'scratchpad_files',
            json_build_array(NEW.agent_id, NEW.path, OLD.current_version > 0, NEW.current_version > 0)::text
        );
    END IF;
    RETURN NULL;
END
$$
"""

TRIGGER = """
CREATE TRIGGER scratchpad_file_changed AFTER INSERT OR UPDATE OR DELETE ON files
FOR EACH ROW EXECUTE FUNCTION scratchpad_file_changed()
"""


def upgrade() -> None:
    op.create_table(
        "change_listeners",
        sa.Column("listener_id", sa.String(length=32), nullable=False),
        sa.Column("seen_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("listener_id", name=op.f("pk_change_listeners")),
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(FUNCTION)
        op.execute(TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS scratchpad_file_changed ON files")
        op.execute("DROP FUNCTION IF EXISTS scratchpad_file_changed()")
    op.drop_table("change_listeners")
