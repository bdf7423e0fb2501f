"""The site's generated parts, without a whole build (CI runs `mkdocs build --strict`): the tools page holds every
tool the server lists, the command line page every command, and the plotted figures are the tables' own."""

from __future__ import annotations

import re
import tomllib

import anyio
import pytest

from scratchpad_adapters import open_store
from scratchpad_mcp.cli.main import command_line
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from tests.cli.conftest import isolated_main
from tests.docs.examples import ROOT

pytest.importorskip("mkdocs", reason="the docs dependency group is not installed: uv sync --group docs")
from docs_build import hooks  # after the skip: it needs mkdocs


def numbers(line: str) -> list[float]:
    return [float(found.replace(",", "")) for found in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]


def test_the_tools_page_is_the_servers_own_definitions() -> None:
    with open_store("memory://") as store:
        listed = anyio.run(build_server(store, CallRunner(TrustedCaller())).list_tools)
    page = hooks.tools_reference()
    assert [tool.name for tool in listed] == re.findall(r"^### `(\w+)`$", page, flags=re.M)
    for tool in listed:
        assert f"> {(tool.description or '').splitlines()[0]}" in page
        for argument, schema in tool.input_schema["properties"].items():
            assert f"| `{argument}` |" in page and schema.get("description", "") in page
    assert "| `max_results` | integer |  | `10` |" in page


def test_the_command_line_page_has_every_command_and_its_help() -> None:
    page = hooks.cli_reference()
    root = command_line()
    for name in root.list_commands(None):  # type: ignore[arg-type]
        assert f"`scratchpad-mcp {name}`" in page, name
    assert "`scratchpad-mcp retention set`" in page and "--keep-entries" in page


def test_the_tools_summary_names_every_reply_field() -> None:
    with open_store("memory://") as store:
        listed = anyio.run(build_server(store, CallRunner(TrustedCaller())).list_tools)
    rows = {row.split(" | ")[0]: row.removesuffix(" |") for row in hooks.tools_summary().splitlines()}
    for tool in listed:
        arguments, returns = rows[f"| [`{tool.name}`](#{tool.name})"].split(" | ")[1:3]
        assert arguments.split(", ")[0] == "agent_id"
        assert [word.rstrip("?") for word in returns.split(", ")] == list((tool.output_schema or {})["properties"])
    assert rows["| [`restore_version`](#restore_version)"].endswith("| path, version, bytes_written, unchanged?")


@pytest.mark.parametrize("words", [[], ["search"], ["db", "scrub"]], ids=" ".join)
def test_the_command_line_page_shows_help_as_the_command_prints_it(
    words: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a wide terminal: the help's own width (110) applies
    assert isolated_main(*words, "--help") == 0
    printed = capsys.readouterr().out.rstrip()
    assert f"```text\n{printed}\n```" in hooks.cli_reference()


def test_the_library_page_lists_every_refusal_code() -> None:
    from scratchpad_core.errors import CODES

    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| `(\w+)` \| `(\w+)` \|", page, flags=re.M))
    assert listed == {code: error.__name__ for code, error in CODES.items()}


def test_the_plotted_figures_are_those_of_the_benchmarks_tables() -> None:
    figures = tomllib.loads((ROOT / "docs" / "figures.toml").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()
    for row in figures["ratios"]["rows"]:
        (line,) = [line for line in page if line.strip().startswith(f"| {row['operation']} |")]
        assert numbers(line.split("|")[3]) == row["runs"], line  # the "ops/s after" column
    for series in figures["search_scale"]["series"]:
        rows = [line.split("|") for line in page if line.strip().startswith("| ") and line.count("|") == 6]
        assert any(numbers(cells[2] + cells[3]) == series["ms"] for cells in rows), series
