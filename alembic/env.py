"""Alembic environment: the only way scratchpad's schema is created or changed.

The server calls migrations with its own open connection (config.attributes["connection"]),
inside a transaction that already holds the migration lock. Run by hand, it connects to
sqlalchemy.url, or to SCRATCHPAD_DATABASE_URL when that is unset.
"""

from __future__ import annotations

import os

from sqlalchemy import Connection, pool

from alembic import context
from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema.tables import metadata
from scratchpad_adapters.sql.search.terms import is_engine_object

config = context.config


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        include_name=lambda name, kind, _: not is_engine_object(name, kind),  # FTS5's own tables
    )


def run_online() -> None:
    shared = config.attributes.get("connection")
    if shared is not None:
        _configure(shared)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.get_main_option("sqlalchemy.url") or os.environ["SCRATCHPAD_DATABASE_URL"]
    engine = make_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


def run_offline() -> None:
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
