"""scratchpad_core imports only the standard library (and itself)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import scratchpad_core

CORE = Path(scratchpad_core.__file__).parent
ALLOWED = set(sys.stdlib_module_names) | {"scratchpad_core"}


def _absolute_imports(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def test_core_sources_are_found() -> None:
    names = {p.relative_to(CORE).as_posix() for p in CORE.rglob("*.py")}
    assert {"__init__.py", "diffing.py", "editing.py", "paths.py", "usecases/search/searching.py"} <= names


def test_core_imports_only_the_standard_library() -> None:
    offending = []
    for source in sorted(CORE.rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
        for line, module in _absolute_imports(tree):
            if module.split(".")[0] not in ALLOWED:
                offending.append(f"{source.relative_to(CORE.parent)}:{line}: import {module}")
    assert not offending, "scratchpad_core must stay standard-library only:\n" + "\n".join(offending)


def test_the_checker_flags_third_party_imports() -> None:
    tree = ast.parse("import os\nimport sqlalchemy.orm\nfrom regex import compile\nfrom . import paths\n")
    flagged = [(line, m) for line, m in _absolute_imports(tree) if m.split(".")[0] not in ALLOWED]
    assert flagged == [(2, "sqlalchemy.orm"), (3, "regex")]
