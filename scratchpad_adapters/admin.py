"""Administering a SQL store: the one door the command line uses into scratchpad_adapters.sql's rooms.

Open read-only (`open_read_only`, then `schema_revision`), check (`check`), migrate (`upgrade`, `downgrade`, the
revisions), export and import (`export`, `check_first_line`, `import_`), scrub (`scrub_sqlite`, `vacuum`), and the
SQLite file and URL helpers their messages need. Pruning is the library's (`Scratchpad.prune`). An import-linter
contract keeps scratchpad_mcp from importing scratchpad_adapters.sql itself, so the rooms can change behind this.
"""

from __future__ import annotations

from sqlalchemy import Engine

from .sql.connection.engine import snapshot
from .sql.connection.read_only import refuse_writes
from .sql.connection.sqlite_files import SqliteFileError as SqliteFileError  # noqa: PLC0414 (re-exported)
from .sql.connection.sqlite_files import file_of as file_of  # noqa: PLC0414
from .sql.connection.sqlite_files import problem as problem  # noqa: PLC0414
from .sql.connection.urls import safe_url as safe_url  # noqa: PLC0414
from .sql.integrity.checking import Report as Report  # noqa: PLC0414
from .sql.integrity.checking import check as check  # noqa: PLC0414
from .sql.repositories.agent_activity import SqlAgentActivity as SqlAgentActivity  # noqa: PLC0414
from .sql.schema.migrate import current_revision as current_revision  # noqa: PLC0414
from .sql.schema.migrate import downgrade as downgrade  # noqa: PLC0414
from .sql.schema.migrate import head_revision as head_revision  # noqa: PLC0414
from .sql.schema.migrate import is_known as is_known  # noqa: PLC0414
from .sql.schema.migrate import revision_on
from .sql.schema.migrate import upgrade as upgrade  # noqa: PLC0414
from .sql.transfer.exporter import export as export  # noqa: PLC0414
from .sql.transfer.importer import check_first_line as check_first_line  # noqa: PLC0414
from .sql.transfer.importer import import_ as import_  # noqa: PLC0414
from .sql.transfer.scrub import Scrubbed as Scrubbed  # noqa: PLC0414
from .sql.transfer.scrub import scrub_sqlite as scrub_sqlite  # noqa: PLC0414
from .sql.transfer.scrub import vacuum as vacuum  # noqa: PLC0414
from .sql.transfer.scrub import vacuum_command as vacuum_command  # noqa: PLC0414


def open_read_only(engine: Engine) -> None:
    """Make every connection `engine` opens from now on refuse writes (call it before the first connection)."""
    refuse_writes(engine)


def schema_revision(engine: Engine) -> str | None:
    """The schema's revision, read in one snapshot (None: no schema)."""
    with engine.connect() as connection, snapshot(connection).begin():
        return revision_on(connection)
