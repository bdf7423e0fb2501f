"""Alembic, driven from code: upgrade at start (serialized across processes), inspect, downgrade.

The migrations ship inside the wheel as scratchpad_adapters/sql/schema/migrations; in a source
checkout they are the top-level alembic/ directory.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from scratchpad_core.errors import StorageError

if TYPE_CHECKING:  # alembic (a third of a second to import) only when a schema changes or is inspected
    from alembic.config import Config

log = logging.getLogger("scratchpad.migrate")
MIGRATION_LOCK_KEY = 0x5C7A7C4AD  # pg_advisory_xact_lock key shared by every replica


def _migrations_dir() -> Path:
    packaged = Path(__file__).with_name("migrations")
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parents[3] / "alembic"


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_migrations_dir()))
    return config


def is_known(revision: str) -> bool:
    """Whether this version's migrations include `revision`."""
    from alembic.script import ScriptDirectory
    from alembic.util.exc import CommandError

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


_REVISION = re.compile(r"""^(down_revision|revision)\b[^=\n]*=(.*)$""", re.MULTILINE)
_QUOTED = re.compile(r"""["']([^"']+)["']""")


def head_revision() -> str | None:
    """The newest revision, read from the migration files' `revision` and `down_revision` lines (as alembic would
    find it, without importing alembic: a test holds the two to the same answer); None when there are several."""
    heads = _heads(_migrations_dir())
    return heads[0] if len(heads) == 1 else None


@functools.cache
def _heads(folder: Path) -> list[str]:
    revisions: set[str] = set()
    replaced: set[str] = set()
    for script in folder.joinpath("versions").glob("*.py"):
        for name, value in _REVISION.findall(script.read_text(encoding="utf-8")):
            (revisions if name == "revision" else replaced).update(_QUOTED.findall(value))
    return sorted(revisions - replaced)


def stored_revision(connection: Connection) -> str | None:
    """The revision the database records (alembic's version table), None when it has none; without alembic."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    rows = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    return rows[0] if len(rows) == 1 else None


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as connection:
        return revision_on(connection)


def revision_on(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    revision: str | None = MigrationContext.configure(connection).get_current_revision()
    return revision


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str | None]:
    """Bring the database to `revision`; concurrent callers wait for each other and apply nothing twice.

    Returns the revisions before and after, as seen under the migration lock (equal: nothing applied). A database
    already at head is seen to be so with one query, and alembic stays unimported (start-up time).
    """
    if revision == "head" and (head := head_revision()) is not None:
        with engine.connect() as connection:
            if stored_revision(connection) == head:
                return head, head
    from alembic import command

    return _run(engine, lambda config: command.upgrade(config, revision))


def downgrade(engine: Engine, revision: str) -> tuple[str | None, str | None]:
    from alembic import command

    return _run(engine, lambda config: command.downgrade(config, revision))


def _lock_for_migration(connection: Connection) -> None:
    """Serialize migrations: concurrent starters wait, then find the schema already at head."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    # SQLite: the migration transaction began with BEGIN IMMEDIATE, which already excludes other writers.


def _run(engine: Engine, step: Callable[[Config], None]) -> tuple[str | None, str | None]:
    from alembic.util.exc import CommandError

    config = alembic_config()
    with engine.begin() as connection:
        _lock_for_migration(connection)
        before = revision_on(connection)
        config.attributes["connection"] = connection
        try:
            step(config)
        except CommandError as error:
            raise StorageError(
                f"Cannot migrate the database from revision {before!r}: {error}. If the database's revision is one "
                "this version does not know, a newer scratchpad-mcp made it: upgrade scratchpad-mcp, or use another "
                "database. `scratchpad-mcp db current` shows where it stands."
            ) from error
        after = revision_on(connection)
    if after != before:
        log.info("migrated the database from %s to %s", before or "empty", after or "empty",
                 extra={"event": "migration", "from_revision": before, "to_revision": after})  # fmt: skip
    return before, after
