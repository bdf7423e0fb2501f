"""A database a newcomer names wrongly: one line naming the setting, the path and the cause, no traceback, a
non-zero exit; and postgres:// URLs taken as PostgreSQL. Each case runs the real command."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import command

pytestmark = pytest.mark.slow

ADVICE = "at a file in a directory this user may write."


def without_root_override() -> list[str]:
    """A prefix that makes permissions bind this process too: root keeps its uid but loses the capabilities that
    let it write anywhere (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH); nothing for another user."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a read-only directory cannot be shown")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def read_only_mount(folder: Path) -> list[str]:
    """A prefix that runs the command in its own mount namespace, with a read-only tmpfs on `folder`."""
    folder.mkdir()
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"mount -t tmpfs -o ro tmpfs {folder}"], capture_output=True, check=False
    ) if shutil.which("unshare") else None  # fmt: skip
    if probe is None or probe.returncode != 0:
        pytest.skip("no read-only file system can be mounted here (needs unshare -m and mount)")
    return ["unshare", "-m", "sh", "-c", f'mount -t tmpfs -o ro tmpfs {folder} && exec "$@"', "sh"]


def the_three_settings(path: Path) -> list[tuple[tuple[str, ...], dict[str, str], str]]:
    """(options, environment, the setting named) for each way to give a database path."""
    return [
        ((), {"SCRATCHPAD_DB_PATH": str(path)}, "SCRATCHPAD_DB_PATH"),
        ((), {"SCRATCHPAD_DATABASE_URL": f"sqlite:///{path}"}, "SCRATCHPAD_DATABASE_URL"),
        (("--database", f"sqlite:///{path}"), {}, "--database"),
    ]


def assert_explained(path: Path, cause: str, prefix: Sequence[str] = ()) -> None:
    """Serving and `db upgrade` both fail in one line that names the setting, the path and the cause."""
    for options, env, setting in the_three_settings(path):
        for args, lead in (((), "scratchpad-mcp cannot start: "), (("db", "upgrade"), "scratchpad-mcp: ")):
            done = command(*options, *args, prefix=prefix, **env)
            assert done.returncode == 1, (setting, args, done.stderr)
            assert "Traceback" not in done.stderr and done.stdout == "", done.stderr
            last = done.stderr.strip().splitlines()[-1]
            expected = (
                f"{lead}cannot use {path} as a SQLite database (from {setting}): {cause}. Point {setting} {ADVICE}"
            )
            assert last.endswith(expected), (setting, args, last)
    assert not path.exists()


def test_a_path_under_a_file(tmp_path: Path) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("not a directory\n", encoding="utf-8")
    assert_explained(file / "scratchpad.db", f"{file} is a file, not a directory")
    assert_explained(file / "deeper" / "scratchpad.db", f"{file} is a file, not a directory")


def test_a_read_only_directory_and_a_missing_one_under_it(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        prefix = without_root_override()
        assert_explained(locked / "x.db", f"the directory {locked} is not writable by this user", prefix)
        missing = locked / "missing"
        cause = f"the directory {missing} does not exist and cannot be made: the directory {locked} is not writable"
        assert_explained(missing / "x.db", f"{cause} by this user", prefix)
    finally:
        locked.chmod(0o755)


def test_a_read_only_file_system(tmp_path: Path) -> None:
    mounted = tmp_path / "ro"
    prefix = read_only_mount(mounted)
    assert_explained(mounted / "x.db", f"{mounted} is on a read-only file system", prefix)
    cause = f"the directory {mounted / 'sub'} does not exist and cannot be made: {mounted} is on a read-only file"
    assert_explained(mounted / "sub" / "x.db", f"{cause} system", prefix)


def test_reading_from_a_missing_directory_says_so(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "x.db"
    done = command("export", SCRATCHPAD_DB_PATH=str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f"scratchpad-mcp: database sqlite:///{path} (from SCRATCHPAD_DB_PATH)",
        f"scratchpad-mcp: There is no database file at {path} (the directory {path.parent} does not exist). "
        "Check the path.",
    ]
    assert not path.parent.exists()


def test_postgres_urls_in_both_spellings_are_postgresql_with_psycopg() -> None:
    for scheme in ("postgres", "postgresql"):
        done = command("--database", f"{scheme}://scratch:hunter2@127.0.0.1:1/nowhere", "db", "current")
        assert done.returncode == 1 and "Traceback" not in done.stderr and "hunter2" not in done.stderr
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith(f"scratchpad-mcp: cannot use the database {scheme}://scratch:***@127.0.0.1:1/"), last
        assert "Connection refused" in last and "Unsupported" not in last, last


@pytest.mark.postgres
def test_a_postgres_url_reaches_the_server() -> None:
    url = create_postgres_database()
    try:
        plain = url.replace("postgresql+psycopg://", "postgres://", 1)
        done = command("--database", plain, "db", "upgrade")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("(at head)"), done.stdout
    finally:
        drop_postgres_database(url)
