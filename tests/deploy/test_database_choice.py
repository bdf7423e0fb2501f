"""Operators' commands say which database they work on, refuse to guess between two settings, and say how
fresh a key's last use is; `keys create` prints just the key on stdout, as docs/operations.md captures it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from scratchpad_adapters import open_store
from scratchpad_core.access.keys import TOUCH_EVERY_MS
from tests.deploy.conftest import command
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env

pytestmark = pytest.mark.slow

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
UNREACHABLE = "postgresql+psycopg://scratch:hunter2@127.0.0.1:1/nowhere"
SECRET = re.compile(r"spk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")


def lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    return done.stderr.strip().splitlines()


def test_each_command_names_its_database_and_the_setting_first(tmp_path: Path) -> None:
    database = tmp_path / "named.db"
    with open_store(f"sqlite:///{database}") as store:
        store.write_file("alice", "a.md", "x")
    export = tmp_path / "out.jsonl"
    url = f"sqlite:///{database}"
    sources = [
        ((), {"SCRATCHPAD_DB_PATH": str(database)}, "from SCRATCHPAD_DB_PATH"),
        ((), {"SCRATCHPAD_DATABASE_URL": url}, "from SCRATCHPAD_DATABASE_URL"),
        (("--database", url), {}, "from --database"),
        ((), {"XDG_DATA_HOME": str(tmp_path / "data")}, "the default location"),
    ]
    commands = [("db", "upgrade"), ("db", "current"), ("export", "-o", str(export)), ("keys", "list")]
    for options, env, origin in sources:
        for args in commands:
            done = command(*options, *args, **env)
            assert done.returncode == 0, (options, args, env, done.stderr)
            shown = url if origin != "the default location" else f"sqlite:///{tmp_path / 'data'}"
            assert lines(done)[0].startswith(f"scratchpad-mcp: database {shown}"), (args, done.stderr)
            assert lines(done)[0].endswith(f"({origin})"), (args, done.stderr)
    imported = command("--database", f"sqlite:///{tmp_path / 'copy.db'}", "import", str(export))
    assert imported.returncode == 0, imported.stderr
    assert lines(imported)[0] == f"scratchpad-mcp: database sqlite:///{tmp_path / 'copy.db'} (from --database)"
    hidden = command("--database", UNREACHABLE, "db", "current")
    assert hidden.returncode == 1 and "hunter2" not in hidden.stderr
    shown = "postgresql+psycopg://scratch:***@127.0.0.1:1/nowhere"
    assert lines(hidden)[0] == f"scratchpad-mcp: database {shown} (from --database)"


def test_two_settings_naming_different_databases_are_refused_unless_database_says_which(tmp_path: Path) -> None:
    in_path, in_url = tmp_path / "path.db", tmp_path / "url.db"
    both = {"SCRATCHPAD_DB_PATH": str(in_path), "SCRATCHPAD_DATABASE_URL": f"sqlite:///{in_url}"}
    source = tmp_path / "source.jsonl"
    with open_store(f"sqlite:///{tmp_path / 'source.db'}") as store:
        store.write_file("alice", "a.md", "x")
    assert command("--database", f"sqlite:///{tmp_path / 'source.db'}", "export", "-o", str(source)).returncode == 0
    for env in (both, {**both, "SCRATCHPAD_DATABASE_URL": UNREACHABLE}):
        for args in (("export",), ("import", str(source)), ("db", "upgrade"), ("db", "current"), ("keys", "list")):
            done = command(*args, **env)
            assert done.returncode == 2, (args, done.stderr)
            assert done.stdout == "" and "Traceback" not in done.stderr and "hunter2" not in done.stderr
            (line,) = lines(done)
            assert line.startswith("scratchpad-mcp: SCRATCHPAD_DATABASE_URL (")
            assert f"and SCRATCHPAD_DB_PATH ({in_path}) name different databases" in line
            example = f"`uv run scratchpad-mcp --database sqlite:///{in_path} export`"
            assert f"say which with --database URL before the command (e.g. {example})" in line
    assert not in_path.exists() and not in_url.exists()

    chosen = command("--database", f"sqlite:///{in_path}", "db", "upgrade", **both)
    assert chosen.returncode == 0, chosen.stderr
    assert lines(chosen)[0] == f"scratchpad-mcp: database sqlite:///{in_path} (from --database)"
    assert in_path.exists() and not in_url.exists()
    # The same file in both forms is no disagreement; the URL is what the command names.
    same = {"SCRATCHPAD_DB_PATH": str(in_path), "SCRATCHPAD_DATABASE_URL": f"sqlite:///{in_path}"}
    agreed = command("db", "current", **same)
    assert agreed.returncode == 0 and "(at head)" in agreed.stdout, agreed.stderr
    assert lines(agreed)[0] == f"scratchpad-mcp: database sqlite:///{in_path} (from SCRATCHPAD_DATABASE_URL)"


def test_keys_list_says_how_fresh_last_used_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'keys.db'}"
    assert command("--database", url, "keys", "create", "--agent", "a").returncode == 0
    listed = command("--database", url, "keys", "list")
    assert listed.returncode == 0, listed.stderr
    assert "last used" in listed.stdout.splitlines()[0]
    seconds = TOUCH_EVERY_MS // 1000
    assert lines(listed)[-1] == (
        f"scratchpad-mcp: 'last used' is recorded at most once every {seconds} s per key, so a key may have been "
        f"used up to {seconds} s after the time shown."
    )


def test_the_readme_captures_just_the_key(tmp_path: Path) -> None:
    (capture,) = [line.strip() for line in OPERATIONS.read_text(encoding="utf-8").splitlines() if "KEY=$(" in line]
    assert capture.startswith("KEY=$(uv run scratchpad-mcp keys create --agent ") and "2>/dev/null)" in capture
    script = capture.replace("uv run scratchpad-mcp", console_script()) + '\nprintf "%s" "$KEY"'
    env = {**server_env(), "SCRATCHPAD_DB_PATH": str(tmp_path / "captured.db")}
    done = subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=START_TIMEOUT, check=False
    )
    assert done.returncode == 0, done.stderr
    assert SECRET.fullmatch(done.stdout), done.stdout
    assert done.stderr == ""
    noted = command("keys", "create", "--agent", "b", SCRATCHPAD_DB_PATH=str(tmp_path / "captured.db"))
    assert SECRET.fullmatch(noted.stdout.strip()) and "keep the secret above, it is not stored" in noted.stderr
