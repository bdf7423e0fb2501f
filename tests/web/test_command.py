"""`scratchpad-mcp web` and `keys create --admin` from outside: the console script on a real SQLite file."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from scratchpad_adapters import open_store
from tests.mcp.helpers import console_script, server_env
from tests.servers import WebProcess

pytestmark = pytest.mark.slow


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [console_script(), *args], env={**server_env(), **env}, capture_output=True, text=True, timeout=120, check=False
    )


@pytest.fixture
def database(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'scratchpad.db'}"
    with open_store(url) as store:
        store.write_file("notes-bot", "plan.md", "# the plan\n")
    return url


@pytest.fixture
def web(database: str) -> Iterator[WebProcess]:
    process = WebProcess(database)
    yield process
    process.stop()


def test_web_serves_the_local_store_on_loopback_and_prints_its_url(web: WebProcess) -> None:
    assert web.url() == f"http://127.0.0.1:{web.port}/"
    page = web.get("/")
    assert page.status_code == 200 and "notes-bot" in page.text  # the local user: no sign-in
    assert "# the plan" in web.get("/a/notes-bot/file/plan.md").text
    # a page elsewhere cannot reach it through DNS rebinding: only loopback names are answered (as /mcp refuses)
    refused = web.get("/", headers={"Host": "attacker.example:80"})
    assert (refused.status_code, refused.text) == (421, "Invalid Host header")


def test_web_on_another_address_needs_keys(database: str) -> None:
    refused = run("--database", database, "web", "--host", "0.0.0.0", SCRATCHPAD_AUTH="none")
    assert refused.returncode == 2
    assert "would show every agent to anyone who reaches it" in refused.stderr and refused.stdout == ""
    unlisted = run("--database", database, "web", "--host", "0.0.0.0")  # keys, but no names: it does not start
    assert unlisted.returncode == 2 and unlisted.stdout == ""
    assert unlisted.stderr.splitlines()[-1] == (
        "scratchpad-mcp: SCRATCHPAD_ALLOWED_HOSTS is not set and 0.0.0.0 is not a loopback address, so any name "
        "pointed at it would be answered: set it to the names clients use (e.g. SCRATCHPAD_ALLOWED_HOSTS="
        "scratchpad.example.com,10.0.0.5:*), or to * behind a proxy that checks Host itself."
    )
    keyed = WebProcess(database, "--host", "0.0.0.0", SCRATCHPAD_ALLOWED_HOSTS="*")
    try:
        assert keyed.url() == f"http://0.0.0.0:{keyed.port}/"
        first = keyed.get("/", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/signin"
        # SCRATCHPAD_ALLOWED_HOSTS=*: any Host, said so (behind a proxy that checks it)
        named = keyed.get("/", headers={"Host": "scratchpad.example.com"}, follow_redirects=False)
        assert named.status_code == 303
    finally:
        keyed.stop()
    listed = WebProcess(database, "--host", "0.0.0.0", SCRATCHPAD_ALLOWED_HOSTS="scratchpad.example.com")
    try:
        assert listed.get("/", headers={"Host": "scratchpad.example.com."}, follow_redirects=False).status_code == 303
        assert listed.get("/", headers={"Host": "attacker.example"}).status_code == 421
    finally:
        listed.stop()


def test_web_refuses_what_it_cannot_show(tmp_path: Path) -> None:
    missing = run("--database", f"sqlite:///{tmp_path / 'typo.db'}", "web")
    assert missing.returncode == 1 and "There is no database file" in missing.stderr
    assert not (tmp_path / "typo.db").exists()  # nothing created
    memory = run("--database", "memory://", "web")
    assert memory.returncode == 2 and "memory:// lives in one process only" in memory.stderr
    behind = tmp_path / "behind.db"
    create_engine(f"sqlite:///{behind}").connect().close()  # a database with no schema yet
    unmigrated = run("--database", f"sqlite:///{behind}", "web")
    assert unmigrated.returncode == 2 and "db upgrade" in unmigrated.stderr
    with create_engine(f"sqlite:///{behind}").connect() as connection:  # and the command left it so
        assert connection.execute(text("SELECT count(*) FROM sqlite_master")).scalar() == 0


def test_keys_create_admin(database: str) -> None:
    made = run("--database", database, "keys", "create", "--admin", "--label", "ops")
    assert made.returncode == 0 and made.stdout.startswith("spk_")
    assert "admin key" in made.stderr and "every agent" in made.stderr
    listed = run("--database", database, "keys", "list")
    assert "(admin)" in listed.stdout and "ops" in listed.stdout
    for args in ([], ["--admin", "--agent", "x"], ["--admin", "--read-only"]):
        wrong = run("--database", database, "keys", "create", *args)
        assert wrong.returncode == 2, args
        assert "--admin" in wrong.stderr or "admin key" in wrong.stderr, args
