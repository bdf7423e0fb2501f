"""The stdio server's environment: no Anthropic key, database URL vs path, the default database location."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

from tests.mcp.helpers import START_TIMEOUT, console_script, long_text, ok, refused, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

A = {"agent_id": "env-agent"}


async def test_without_anthropic_key_summaries_fail_and_the_rest_works(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
    assert "ANTHROPIC_API_KEY" not in env
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            await ok(client, "write_file", {**A, "path": "long.md", "content": long_text(9000)})
            message = await refused(client, "summarize_file", {**A, "path": "long.md"})
            assert message.startswith("summarize_file needs ANTHROPIC_API_KEY")
            assert "The other tools work without it." in message
            assert (await ok(client, "read_file", {**A, "path": "long.md"}))["content"] == long_text(9000)
            await ok(client, "append_log", {**A, "path": "log", "entry": "still working"})
            assert (await ok(client, "get_usage_stats", A))["file_count"] == 1
            # Asking again gives the same answer, not a crash.
            assert (await refused(client, "summarize_file", {**A, "path": "long.md"})) == message


async def test_database_url_wins_over_db_path(tmp_path: Path) -> None:
    url_file, path_file = tmp_path / "from-url.db", tmp_path / "from-path.db"
    env = server_env(SCRATCHPAD_DB_PATH=str(path_file), SCRATCHPAD_DATABASE_URL=f"sqlite:///{url_file}")
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            await ok(client, "write_file", {**A, "path": "where", "content": "url"})
    assert url_file.is_file()
    assert not path_file.exists()


async def test_default_database_under_the_user_data_dir(tmp_path: Path) -> None:
    home, data = tmp_path / "home", tmp_path / "xdg-data"
    home.mkdir()
    env = server_env(drop=("XDG_DATA_HOME",), HOME=str(home), XDG_DATA_HOME=str(data))
    expected = data / "scratchpad-mcp" / "scratchpad.db"
    errlog_path = tmp_path / "stderr.txt"
    with anyio.fail_after(START_TIMEOUT), errlog_path.open("w") as errlog:
        params = StdioServerParameters(command=console_script(), env=env, cwd=str(tmp_path))
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("write_file", {**A, "path": "d", "content": "default"})
            assert result.structured_content == {"path": "d", "version": 1, "bytes_written": 7}
    assert expected.is_file()
    logged = [line for line in errlog_path.read_text().splitlines() if f"sqlite:///{expected}" in line]
    assert len(logged) == 1


async def test_default_database_follows_home_without_xdg(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = server_env(drop=("XDG_DATA_HOME",), HOME=str(home))
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env, cwd=str(tmp_path))) as client:
            await ok(client, "write_file", {**A, "path": "d", "content": "home"})
    assert (home / ".local" / "share" / "scratchpad-mcp" / "scratchpad.db").is_file()
