"""What was removed from a store (deleted, dropped by retention or a version limit, redacted) leaves the
database's files too: `db scrub`, and the end of `redact`.

SQLite: the full-text index is rebuilt from its live rows ('rebuild': a deleted row's terms stay in FTS5's
segments until a merge drops them, and 'optimize' merges nothing in an index of one segment, so only a rebuild
answers for every history), secure_delete is on, every page is written anew from the live rows (VACUUM), and the
write-ahead log is checkpointed and truncated (journal_size_limit 0 truncates a rollback journal, too). A
connection of another process with a transaction open holds the checkpoint back: old pages then stay in the
-wal file, and the scrub says so (Scrubbed.held) instead of finishing. Once every process has closed the
database, none of its files holds what was removed.

PostgreSQL keeps old row versions in the table files until VACUUM FULL rewrites them (plain VACUUM marks their
space reusable without overwriting it), and samples of the rows in pg_statistic until ANALYZE samples them anew:
`vacuum_command` names every table with a column that may hold content, a reply or index terms (tables.CONTENT)
in one VACUUM (FULL, ANALYZE), and `vacuum` runs it. The server's write-ahead log, its archives, replicas and
backups are beyond a command's reach (the README says so). It locks each table while it rewrites it, so it
is the operator's to run, when the servers can wait.
"""

from __future__ import annotations

import contextlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, text

from ..connection.errors import classified
from ..schema.tables import metadata

SCRUB_WAIT_MS = 5_000  # how long the scrub waits for another connection to let go of the database
_REBUILD = "INSERT INTO search_fts(search_fts) VALUES ('rebuild')"


@dataclass(frozen=True)
class Scrubbed:
    """A SQLite database scrubbed: `held` None when none of its files holds removed content any more (once
    every process has closed it), else what another connection held back."""

    file: Path
    held: str | None = None


def scrub_sqlite(file: Path, wait_ms: int = SCRUB_WAIT_MS) -> Scrubbed:
    """Rewrite the SQLite database at `file` without what was removed from it."""
    with contextlib.closing(sqlite3.connect(file, timeout=wait_ms / 1000, isolation_level=None)) as connection:
        connection.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        connection.execute("PRAGMA secure_delete = ON")
        connection.execute("PRAGMA journal_size_limit = 0")
        has_index = connection.execute("SELECT 1 FROM sqlite_master WHERE name = 'search_fts'").fetchone()
        try:
            if has_index:
                connection.execute(_REBUILD)
            connection.execute("VACUUM")
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) and "busy" not in str(error):
                raise
            return Scrubbed(file, "another connection is writing to it")
        busy, frames, copied = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy or frames != copied:
        left = f"{frames - copied:,} pages of its write-ahead log" if frames > copied else "its write-ahead log"
        return Scrubbed(file, f"a reader's open transaction kept {left} from being checkpointed")
    for kept in (file.with_name(file.name + "-wal"), file.with_name(file.name + "-journal")):
        if kept.exists() and kept.stat().st_size > 0:
            return Scrubbed(file, f"{kept.name} still holds {kept.stat().st_size:,} bytes")
    return Scrubbed(file)


def content_tables() -> list[str]:
    """The tables whose files may hold a removed text or its index terms (a column marked tables.CONTENT)."""
    return sorted({table.name for table in metadata.tables.values() for c in table.columns if c.info.get("content")})


def vacuum_command() -> str:
    """The command that rewrites every such table on PostgreSQL without its old row versions, and its statistics
    from the rows it keeps."""
    return f"VACUUM (FULL, ANALYZE) {', '.join(content_tables())};"


def vacuum(engine: Engine) -> None:
    """Run vacuum_command (outside a transaction, as VACUUM must be); StorageBusy when a lock was not had in time."""
    with classified(), engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text(vacuum_command()))
