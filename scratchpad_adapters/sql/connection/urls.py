"""Database URLs: which ones scratchpad runs on, what it says about one it cannot use, and how one is shown."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import exc
from sqlalchemy.engine import URL, make_url

from scratchpad_core.errors import InvalidInput

URL_FORMS = "Use sqlite:///path/to/file.db or postgresql+psycopg://user:password@host:5432/dbname."
BACKENDS = ("sqlite", "postgresql")


@contextlib.contextmanager
def accepted(url: str | URL) -> Iterator[URL]:
    """The URL, parsed, for a block that builds its engine: an unparseable URL, another database, a driver that
    is not installed or an option the driver refuses (in the block too) becomes InvalidInput naming the forms."""
    try:
        parsed = _postgres_with_psycopg(make_url(url))
        if parsed.get_backend_name() not in BACKENDS:
            raise InvalidInput(
                f"Unsupported database {safe_url(url)}: scratchpad runs on SQLite and PostgreSQL. {URL_FORMS}"
            )
        yield parsed
    except (exc.ArgumentError, ValueError, exc.NoSuchModuleError, ImportError) as error:
        shown = safe_url(url) if isinstance(error, (exc.NoSuchModuleError, ImportError)) else "the database URL"
        raise InvalidInput(f"Cannot use {shown}: {error}. {URL_FORMS}") from None


def _postgres_with_psycopg(url: URL) -> URL:
    """postgres:// and postgresql:// (as Heroku, Render, libpq and most hosts write them) mean PostgreSQL through
    psycopg 3, the driver scratchpad installs; a URL naming its driver (postgresql+psycopg://) is kept."""
    if url.drivername in ("postgres", "postgresql"):
        return url.set(drivername="postgresql+psycopg")
    if url.get_backend_name() == "postgres":  # postgres+psycopg://
        return url.set(drivername=f"postgresql+{url.get_driver_name()}")
    return url


def safe_url(url: str | URL) -> str:
    """The URL as it may be shown or logged: without its password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (exc.ArgumentError, ValueError):
        return "(an unparseable URL)"
