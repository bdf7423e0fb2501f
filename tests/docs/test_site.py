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


def test_the_plotted_figures_are_those_of_the_benchmarks_tables() -> None:
    figures = tomllib.loads((ROOT / "docs" / "figures.toml").read_text(encoding="utf-8"))
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()
    for row in figures["ratios"]["rows"]:
        (line,) = [line for line in page if line.strip().startswith(f"| {row['operation']} |")]
        assert numbers(line.split("|")[3]) == row["runs"], line  # the "ops/s after" column
    for series in figures["search_scale"]["series"]:
        rows = [line.split("|") for line in page if line.strip().startswith("| ") and line.count("|") == 6]
        assert any(numbers(cells[2] + cells[3]) == series["ms"] for cells in rows), series
