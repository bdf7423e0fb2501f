"""The measures of issue 30, read from the sources: no folder of the packages holds more than 20 modules, no
function is longer than 80 lines outside bench/, nothing imports in a circle (import-linter's contracts), and every
module or package docs/architecture.md names exists."""

from __future__ import annotations

import ast
import importlib.util
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scratchpad_core", "scratchpad_adapters", "scratchpad_mcp")
MAX_MODULES = 20
MAX_FUNCTION_LINES = 80
CHECKED = (*PACKAGES, "tests", "tools", "alembic")  # everything but bench/


def modules_per_folder() -> Counter[str]:
    return Counter(
        source.parent.relative_to(ROOT).as_posix() for package in PACKAGES for source in (ROOT / package).rglob("*.py")
    )


def long_functions(top: Path, roots: tuple[str, ...], limit: int) -> list[str]:
    found = []
    for root in roots:
        for source in sorted((top / root).rglob("*.py")):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > limit:
                        found.append(f"{source.relative_to(top).as_posix()}:{node.lineno} {node.name}: {lines} lines")
    return found


def test_no_folder_holds_more_than_20_modules() -> None:
    counts = modules_per_folder()
    assert counts["scratchpad_adapters/sql/connection"] > 1  # the rooms are found
    crowded = {folder: n for folder, n in counts.items() if n > MAX_MODULES}
    assert not crowded, f"split these folders into rooms (at most {MAX_MODULES} modules each): {crowded}"


def test_no_function_is_longer_than_80_lines() -> None:
    assert long_functions(ROOT, CHECKED, MAX_FUNCTION_LINES) == []


def test_the_length_check_finds_a_long_function(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "long.py").write_text("def f():\n" + "    x = 1\n" * 80 + "def g():\n    pass\n")
    assert long_functions(tmp_path, ("pkg",), MAX_FUNCTION_LINES) == ["pkg/long.py:1 f: 81 lines"]


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter is in the dev group")
def test_the_import_contracts_hold() -> None:
    done = subprocess.run(["lint-imports"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


DOC = ROOT / "docs" / "architecture.md"
NAME = re.compile(r"\b(?:scratchpad_core|scratchpad_adapters|scratchpad_mcp)(?:\.\w+)*")


def test_every_module_the_architecture_page_names_exists() -> None:
    names = sorted(set(NAME.findall(DOC.read_text(encoding="utf-8"))))
    assert "scratchpad_adapters.sql.connection" in names
    missing = [name for name in names if importlib.util.find_spec(name) is None]
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def test_the_architecture_page_names_every_room_of_the_sql_adapter() -> None:
    text = DOC.read_text(encoding="utf-8")
    rooms = [p.parent.name for p in (ROOT / "scratchpad_adapters" / "sql").glob("*/__init__.py")]
    assert rooms
    assert [room for room in rooms if f"scratchpad_adapters.sql.{room}" not in text] == []
