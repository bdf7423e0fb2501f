"""The settings' one definition: names derived from Limits, the exact refusals, the docs' table generated from it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from scratchpad_core.limits import Limits
from scratchpad_mcp.settings import Settings, SettingsError
from scratchpad_mcp.settings.docs import END, START, main, settings_table, with_table

TABLE_PAGE = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_docs_table_is_the_generated_one() -> None:
    # If this fails: uv run python -m scratchpad_mcp.settings.docs docs/operations.md
    assert with_table(TABLE_PAGE.read_text(encoding="utf-8")) == TABLE_PAGE.read_text(encoding="utf-8")
    assert START + "\n" + settings_table() + END in TABLE_PAGE.read_text(encoding="utf-8")


def test_every_limit_of_the_core_is_one_variable_named_after_its_field() -> None:
    names = [name for name, _ in Settings.variables()]
    assert len(names) == len(set(names))
    for limit in dataclasses.fields(Limits):
        variable = f"SCRATCHPAD_{limit.name.upper()}"
        assert variable in names
        assert getattr(Settings.from_env({variable: "3"}).limits, limit.name) == 3
    assert all(field.description for _, field in Settings.variables())


def test_the_table_has_one_row_per_variable_with_its_default() -> None:
    rows = settings_table().splitlines()[2:]
    assert [row.split(" | ")[0].strip("|` ") for row in rows] == [name for name, _ in Settings.variables()]
    assert "| `SCRATCHPAD_MAX_VERSIONS` | 10 | versions kept per file |" in rows
    assert "| `ANTHROPIC_API_KEY` | — | needed by `summarize_file` only |" in rows


def test_the_command_rewrites_only_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{START}\n| stale |\n{END}\n\nafter\n", encoding="utf-8")
    assert main([str(readme)]) == 0
    assert readme.read_text(encoding="utf-8") == f"# Title\n\n{START}\n{settings_table()}{END}\n\nafter\n"
    assert main([]) == 0
    assert capsys.readouterr().out == settings_table()
    with pytest.raises(ValueError, match="markers"):
        with_table("no markers here")


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SCRATCHPAD_MAX_FILE_BYTES": "abc"}, "SCRATCHPAD_MAX_FILE_BYTES='abc' is not an integer."),
        ({"SCRATCHPAD_MAX_VERSIONS": "1.0"}, "SCRATCHPAD_MAX_VERSIONS='1.0' is not an integer."),
        ({"SCRATCHPAD_QUOTA_FILES": "0"}, "SCRATCHPAD_QUOTA_FILES='0' is out of range: use an integer at least 1."),
        ({"PORT": "70000"}, "PORT='70000' is out of range: use an integer from 1 to 65535."),
        ({"MCP_TRANSPORT": " SSE "}, "MCP_TRANSPORT='sse' is not one of: stdio, http."),
        (
            {"SCRATCHPAD_LOG_LEVEL": "10"},
            "SCRATCHPAD_LOG_LEVEL='10' is not one of: debug, info, warning, error, critical.",
        ),
        ({"SCRATCHPAD_RATE_LIMIT": "fast"}, "SCRATCHPAD_RATE_LIMIT='fast' is not a number."),
        (
            {"SCRATCHPAD_RATE_LIMIT": "nan"},
            "SCRATCHPAD_RATE_LIMIT='nan' is out of range: use 0 (off) or a number of calls per second up to 1,000,000.",
        ),
        (
            {"SCRATCHPAD_RATE_LIMIT": "1", "SCRATCHPAD_RATE_BURST": "-1"},
            "SCRATCHPAD_RATE_BURST='-1' is out of range: use an integer at least 1.",
        ),
        ({"SCRATCHPAD_RATE_BURST": "-1"}, "SCRATCHPAD_RATE_BURST='-1' is out of range: use an integer at least 0."),
        (
            {"SCRATCHPAD_HOST": " bad host "},
            "SCRATCHPAD_HOST='bad host' is not an IP address (without a zone) or a host name; "
            "e.g. 127.0.0.1 or 0.0.0.0.",
        ),
        (
            {"SCRATCHPAD_PUBLIC_URL": "ftp://files.example.com/"},
            "SCRATCHPAD_PUBLIC_URL='ftp://files.example.com' is not an http(s) URL; use the address clients reach, "
            "e.g. https://scratchpad.example.com.",
        ),
    ],
)
def test_refusals_keep_their_exact_text(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as raised:
        Settings.from_env(env)
    assert str(raised.value) == message


def test_values_are_read_as_python_reads_them() -> None:
    settings = Settings.from_env(
        {"PORT": " 8_080 ", "SCRATCHPAD_RATE_LIMIT": " 2.5 ", "SCRATCHPAD_ALLOWED_HOSTS": " a.example, ,b.example "}
    )
    assert (settings.port, settings.rate_limit, settings.rate_burst) == (8080, 2.5, 5)
    assert settings.allowed_hosts == ("a.example", "b.example")
    assert Settings.from_env({"SCRATCHPAD_ALLOW_INSECURE": "TRUE"}).allow_insecure is False  # only 1, true, yes
    assert Settings.from_env({"SCRATCHPAD_ALLOW_INSECURE": "yes"}).allow_insecure is True
    assert Settings.from_env({"MCP_TRANSPORT": "http"}).log_format == "json"
    assert Settings.from_env({"MCP_TRANSPORT": "http", "SCRATCHPAD_LOG_FORMAT": "Text"}).log_format == "text"


def test_only_the_given_environment_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PORT", "1234")
    monkeypatch.setenv("SCRATCHPAD_MAX_VERSIONS", "2")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-os-environ")
    settings = Settings.from_env({"scratchpad_host": "bad host", "limits": "{}", "SCRATCHPAD_PORT": "x"})
    assert (settings.port, settings.limits, settings.host) == (4321, Limits(), "127.0.0.1")
    assert settings.anthropic_api_key.get_secret_value() == ""
    assert Settings().port == 4321  # built from values, not from os.environ


def test_the_anthropic_settings_are_read_here_and_the_key_is_never_shown() -> None:
    settings = Settings.from_env({"ANTHROPIC_API_KEY": "sk-ant-secret", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert settings.anthropic_api_key.get_secret_value() == "sk-ant-secret"
    assert settings.anthropic_base_url == "http://127.0.0.1:9"
    assert "sk-ant-secret" not in repr(settings) and "sk-ant-secret" not in str(settings)
    assert Settings.from_env({}).anthropic_base_url is None


@pytest.mark.parametrize(
    ("env", "fmt"),
    [
        ({}, "text"),
        ({"MCP_TRANSPORT": " HTTP "}, "json"),
        ({"MCP_TRANSPORT": "sse"}, "text"),
        ({"SCRATCHPAD_LOG_FORMAT": "JSON", "PORT": "x"}, "json"),
        ({"SCRATCHPAD_LOG_FORMAT": "xml", "MCP_TRANSPORT": "http"}, "text"),
        ({"SCRATCHPAD_LOG_FORMAT": " ", "MCP_TRANSPORT": "http"}, "json"),
    ],
)
def test_the_log_format_for_a_failed_start(env: dict[str, str], fmt: str) -> None:
    assert Settings.log_format_on_failure(env) == fmt


def test_the_database_given_on_the_command_line_is_no_default() -> None:
    settings = Settings.from_env({})
    assert settings.database_is_default is True
    assert settings.model_copy(update={"database_url": "sqlite:///x.db"}).database_is_default is False
    assert Settings.from_env({"SCRATCHPAD_DB_PATH": "x.db"}).database_is_default is False
