"""Which database a command works on, and which setting named it: told before a maintenance command starts,
refused when two settings on the command's own environment name different databases."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from scratchpad_adapters.admin import file_of, safe_url
from scratchpad_adapters.factory import sqlite_url

from ..settings import Settings, SettingsError

DATABASE_OPTION = "--database"
URL_VARIABLE = "SCRATCHPAD_DATABASE_URL"
PATH_VARIABLE = "SCRATCHPAD_DB_PATH"


@dataclass(frozen=True)
class Database:
    """The database's URL and the setting it came from ("" for the default location)."""

    url: str
    setting: str

    @property
    def origin(self) -> str:
        return f"from {self.setting}" if self.setting else "the default location"

    def named(self) -> str:
        """The database as an operator reads it: its URL without the password, and where it came from."""
        return f"{safe_url(self.url)} ({self.origin})"

    def advice(self) -> str:
        return f"Check {self.setting}" if self.setting else f"Set {PATH_VARIABLE} or {URL_VARIABLE}"


def chosen(settings: Settings, environ: Mapping[str, str], option: str | None) -> Database:
    """The database `settings` (read from `environ`) name, or the --database `option` when given."""
    if option is not None:
        return Database(option, DATABASE_OPTION)
    if environ.get(URL_VARIABLE):
        return Database(settings.database_url, URL_VARIABLE)
    if environ.get(PATH_VARIABLE):
        return Database(settings.database_url, PATH_VARIABLE)
    return Database(settings.database_url, "")


def refuse_to_guess(settings: Settings, environ: Mapping[str, str], option: str | None) -> None:
    """A command given both SCRATCHPAD_DATABASE_URL and SCRATCHPAD_DB_PATH that name different databases, and
    no --database, would pick one silently (the URL): refuse, naming both and how to say which."""
    url, path = environ.get(URL_VARIABLE), environ.get(PATH_VARIABLE)
    if option is not None or not url or not path or _same_file(url, path):
        return
    raise SettingsError(
        f"{URL_VARIABLE} ({safe_url(url)}) and {PATH_VARIABLE} ({path}) name different databases: say which with "
        f"{DATABASE_OPTION} URL before the command (e.g. `uv run scratchpad-mcp {DATABASE_OPTION} "
        f"{sqlite_url(path)} export`), or unset one of them."
    )


def _same_file(url: str, path: str) -> bool:
    named = file_of(url)
    return named is not None and named.resolve() == Path(path).expanduser().resolve()
