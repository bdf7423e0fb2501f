"""Settings.from_env: defaults, every variable, invalid values, and limits taking effect end to end."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from scratchpad_adapters import open_store
from scratchpad_core.limits import Limits
from scratchpad_mcp.settings import Settings, SettingsError
from tests.conftest import FakeSummarizer
from tests.mcp.conftest import serve
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, refused, server_env


def test_defaults(tmp_path: Path) -> None:
    settings = Settings.from_env({"SCRATCHPAD_DB_PATH": str(tmp_path / "d.db")})
    assert settings.limits == Limits()
    assert settings.limits == Limits(
        max_file_bytes=1024 * 1024,
        max_log_entry_bytes=64 * 1024,
        max_versions=10,
        quota_files=1000,
        quota_log_entries=100_000,
        quota_bytes=100 * 1024 * 1024,
    )
    assert settings.summary_model == "claude-haiku-4-5"
    assert settings.transport == "stdio"
    assert settings.port == 4321
    assert settings.host == "127.0.0.1"
    assert settings.database_url == f"sqlite:///{tmp_path / 'd.db'}"
    assert settings.database_is_default is False


def test_default_database_is_in_the_user_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    settings = Settings.from_env({})
    assert settings.database_url == f"sqlite:///{tmp_path / 'xdg' / 'scratchpad-mcp' / 'scratchpad.db'}"
    assert settings.database_is_default is True


@pytest.mark.parametrize(
    ("variable", "field"),
    [
        ("SCRATCHPAD_MAX_FILE_BYTES", "max_file_bytes"),
        ("SCRATCHPAD_MAX_LOG_ENTRY_BYTES", "max_log_entry_bytes"),
        ("SCRATCHPAD_MAX_VERSIONS", "max_versions"),
        ("SCRATCHPAD_QUOTA_FILES", "quota_files"),
        ("SCRATCHPAD_QUOTA_LOG_ENTRIES", "quota_log_entries"),
        ("SCRATCHPAD_QUOTA_BYTES", "quota_bytes"),
    ],
)
def test_each_limit_variable(variable: str, field: str) -> None:
    limits = Settings.from_env({variable: "7"}).limits
    assert getattr(limits, field) == 7
    others = {name: value for name, value in vars(limits).items() if name != field}
    assert others == {name: value for name, value in vars(Limits()).items() if name != field}


def test_all_limit_variables_together() -> None:
    env = {
        "SCRATCHPAD_MAX_FILE_BYTES": "100",
        "SCRATCHPAD_MAX_LOG_ENTRY_BYTES": "20",
        "SCRATCHPAD_MAX_VERSIONS": "3",
        "SCRATCHPAD_QUOTA_FILES": "4",
        "SCRATCHPAD_QUOTA_LOG_ENTRIES": "5",
        "SCRATCHPAD_QUOTA_BYTES": "1_000",
    }
    assert Settings.from_env(env).limits == Limits(100, 20, 3, 4, 5, 1000)


def test_other_variables(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "SCRATCHPAD_DB_PATH": str(tmp_path / "d.db"),
            "SCRATCHPAD_SUMMARY_MODEL": "claude-test-model",
            "MCP_TRANSPORT": "HTTP",
            "PORT": "8080",
            "SCRATCHPAD_HOST": "0.0.0.0",
        }
    )
    assert settings.summary_model == "claude-test-model"
    assert settings.transport == "http"
    assert settings.port == 8080
    assert settings.host == "0.0.0.0"


def test_database_url_wins_over_db_path(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'from-url.db'}"
    settings = Settings.from_env({"SCRATCHPAD_DATABASE_URL": url, "SCRATCHPAD_DB_PATH": str(tmp_path / "path.db")})
    assert settings.database_url == url
    assert settings.database_is_default is False


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SCRATCHPAD_MAX_FILE_BYTES", "abc"),
        ("SCRATCHPAD_MAX_FILE_BYTES", "0"),
        ("SCRATCHPAD_MAX_LOG_ENTRY_BYTES", "-1"),
        ("SCRATCHPAD_MAX_VERSIONS", "1.5"),
        ("SCRATCHPAD_MAX_VERSIONS", "0"),
        ("SCRATCHPAD_QUOTA_FILES", "many"),
        ("SCRATCHPAD_QUOTA_FILES", "-3"),
        ("SCRATCHPAD_QUOTA_LOG_ENTRIES", "0"),
        ("SCRATCHPAD_QUOTA_BYTES", "10MB"),
        ("SCRATCHPAD_QUOTA_BYTES", "-5"),
        ("MCP_TRANSPORT", "sse"),
        ("PORT", "http"),
        ("PORT", "70000"),
        ("PORT", "-1"),
        ("SCRATCHPAD_AUTH", "maybe"),
        ("SCRATCHPAD_RATE_LIMIT", "fast"),
        ("SCRATCHPAD_RATE_LIMIT", "-2"),
        ("SCRATCHPAD_RATE_LIMIT", "nan"),
        ("SCRATCHPAD_RATE_LIMIT", "inf"),
        ("SCRATCHPAD_RATE_LIMIT", "1e400"),
        ("SCRATCHPAD_RATE_LIMIT", "2000000"),
        ("SCRATCHPAD_LOG_FORMAT", "xml"),
        ("SCRATCHPAD_LOG_LEVEL", "bogus"),
        ("SCRATCHPAD_LOG_LEVEL", "10"),
        ("SCRATCHPAD_HOST", "999.1.1.1"),
        ("SCRATCHPAD_HOST", "bad host"),
        ("SCRATCHPAD_PUBLIC_URL", "not a url"),
        ("SCRATCHPAD_PUBLIC_URL", "ftp://files.example.com"),
        ("SCRATCHPAD_PUBLIC_URL", "https://scratchpad.example.com:99999"),
        ("SCRATCHPAD_HOST", "fe80::1%eth0"),
    ],
)
def test_invalid_values_raise_settings_error_naming_the_variable(variable: str, value: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({variable: value})
    assert variable in str(raised.value)


def test_a_burst_below_one_call_is_refused_when_rate_limiting() -> None:
    # A bucket that holds less than one call would refuse every call after the first, forever.
    with pytest.raises(SettingsError) as raised:
        Settings.from_env({"SCRATCHPAD_RATE_LIMIT": "1", "SCRATCHPAD_RATE_BURST": "0"})
    assert "SCRATCHPAD_RATE_BURST" in str(raised.value)
    assert Settings.from_env({"SCRATCHPAD_RATE_LIMIT": "1", "SCRATCHPAD_RATE_BURST": "1"}).rate_burst == 1
    assert Settings.from_env({"SCRATCHPAD_RATE_LIMIT": "2.5"}).rate_burst == 5


def test_the_listen_url_brackets_an_ipv6_address() -> None:
    assert Settings.from_env({"SCRATCHPAD_HOST": "::1", "PORT": "8080"}).listen_url == "http://[::1]:8080"
    assert Settings.from_env({"SCRATCHPAD_HOST": "0.0.0.0"}).listen_url == "http://0.0.0.0:4321"
    assert Settings.from_env({"SCRATCHPAD_HOST": "scratchpad.internal"}).host == "scratchpad.internal"
    assert Settings.from_env({"SCRATCHPAD_HOST": "[::]"}).listen_url == "http://[::]:4321"
    assert Settings.from_env({"SCRATCHPAD_HOST": "scratchpad_app"}).host == "scratchpad_app"  # a Compose service
    assert Settings.from_env({"SCRATCHPAD_HOST": "example.com."}).host == "example.com"


@pytest.mark.slow
def test_an_invalid_setting_over_http_is_one_json_line(tmp_path: Path) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"), MCP_TRANSPORT="http", SCRATCHPAD_RATE_LIMIT="abc")
    done = subprocess.run(
        [console_script()], check=False, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=START_TIMEOUT,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    (line,) = [json.loads(raw) for raw in done.stderr.splitlines()]
    assert line["event"] == "startup_failed" and line["level"] == "error"
    assert line["message"].startswith("scratchpad-mcp: invalid setting: SCRATCHPAD_RATE_LIMIT='abc'")


def test_log_levels_are_case_insensitive() -> None:
    assert Settings.from_env({"SCRATCHPAD_LOG_LEVEL": "debug"}).log_level == "DEBUG"
    assert Settings.from_env({"SCRATCHPAD_LOG_LEVEL": "Warning"}).log_level == "WARNING"
    assert Settings.from_env({}).log_level == "INFO"


@pytest.mark.anyio
async def test_max_file_bytes_takes_effect_end_to_end_in_process(tmp_path: Path) -> None:
    settings = Settings.from_env({"SCRATCHPAD_DB_PATH": str(tmp_path / "e.db"), "SCRATCHPAD_MAX_FILE_BYTES": "10"})
    with open_store(settings.database_url, limits=settings.limits, summarizer=FakeSummarizer()) as store:
        async with Client(serve(store)) as client:
            args = {"agent_id": "a", "path": "f"}
            assert (await ok(client, "write_file", {**args, "content": "x" * 10}))["bytes_written"] == 10
            message = await refused(client, "write_file", {**args, "content": "x" * 11})
            assert message.startswith("Content too large: 11 bytes (UTF-8) exceeds the 10-byte limit per file.")
            assert (await ok(client, "read_file", args))["content"] == "x" * 10
    assert (tmp_path / "e.db").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PORT", "http"),
        ("SCRATCHPAD_MAX_FILE_BYTES", "0"),
        ("SCRATCHPAD_LOG_LEVEL", "bogus"),
        ("SCRATCHPAD_RATE_LIMIT", "nan"),
    ],
)
def test_the_command_reports_an_invalid_setting_without_a_traceback(tmp_path: Path, variable: str, value: str) -> None:
    env = server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
    env[variable] = value
    done = subprocess.run(
        [console_script()],
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
    )
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith(f"scratchpad-mcp: invalid setting: {variable}")
    assert done.returncode == 2
