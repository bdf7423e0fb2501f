"""Opening a database already at head costs one query and no alembic import (start-up time); any other database
still goes through alembic's upgrade under the migration lock."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

from scratchpad_adapters.sql.connection.engine import make_engine
from scratchpad_adapters.sql.schema import migrate

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def engine(empty_url: str) -> Iterator[Engine]:
    engine = make_engine(empty_url)
    yield engine
    engine.dispose()


def test_the_head_read_from_the_files_is_alembics(tmp_path: Path) -> None:
    assert migrate.head_revision() == ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()
    versions = tmp_path / "versions"
    versions.mkdir()
    merge = "revision: str = 'c3'\ndown_revision: tuple[str, str] | None = (\"b1\", 'b2')\n"
    scripts = {
        "a.py": 'revision = "a"\ndown_revision = None\n',
        "b1.py": "revision = 'b1'\ndown_revision = 'a'\n",
        "b2.py": 'revision = "b2"\ndown_revision = "a"\n',
    }
    for name, body in scripts.items():
        versions.joinpath(name).write_text(body)
    heads = migrate._heads.__wrapped__  # the files as they are now, past the cache
    assert heads(tmp_path) == ["b1", "b2"]  # two heads: head_revision() gives None, and alembic decides
    versions.joinpath("c3.py").write_text(merge)
    assert heads(tmp_path) == ["c3"]


def test_the_stored_revision_follows_upgrades_and_downgrades(engine: Engine) -> None:
    with engine.connect() as connection:
        assert migrate.stored_revision(connection) is None  # no version table yet
    assert migrate.upgrade(engine) == (None, migrate.head_revision())
    with engine.connect() as connection:
        assert migrate.stored_revision(connection) == migrate.head_revision()
    assert migrate.upgrade(engine) == (migrate.head_revision(), migrate.head_revision())  # nothing to do
    migrate.downgrade(engine, "0003")
    assert migrate.current_revision(engine) == "0003"
    before, after = migrate.upgrade(engine)  # not at head: alembic's upgrade runs
    assert (before, after) == ("0003", migrate.head_revision())
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = 'ffff'"))
    with pytest.raises(Exception, match="newer scratchpad-mcp"):
        migrate.upgrade(engine)  # a revision this version does not know is still refused by alembic


def test_opening_a_migrated_database_does_not_import_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    program = (
        "import sys\n"
        "from scratchpad_adapters import open_store\n"
        f"open_store({url!r}).close()\n"
        "print('alembic' in sys.modules)\n"
    )
    run = [sys.executable, "-c", program]
    first = subprocess.run(run, cwd=REPO, capture_output=True, text=True, check=True, timeout=120)
    again = subprocess.run(run, cwd=REPO, capture_output=True, text=True, check=True, timeout=120)
    assert (first.stdout.strip(), again.stdout.strip()) == ("True", "False")  # migrated once, then only read
