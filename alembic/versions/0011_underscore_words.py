"""`_` separates words in word search (scratchpad_core.search.words: runs of letters and digits): the index rows whose
text holds `_` get their terms anew (sk_live_4242 was one term, it is sk, live and 4242), with their agents'
statistics; SQLite's FTS5 index follows through the triggers. Rows without `_` are not rewritten.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from scratchpad_adapters.sql.search import reterm as search_reterm

    search_reterm.reterm(op.get_bind())


def downgrade() -> None:
    """Nothing to undo in the schema. The terms stay split: a search of an earlier release finds sk_live_4242 by
    its parts only (`db check` of that release names the rows whose terms differ from its rule)."""
