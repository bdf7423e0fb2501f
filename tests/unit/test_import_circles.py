"""No import circles in scratchpad_core, scratchpad_adapters or scratchpad_mcp, counting every import a reader
follows: at module level, inside functions, and those made only for type checking (issue 21). Read from the
sources with ast, so it needs nothing installed; `lint-imports` (pyproject's contracts) checks the layers."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("scratchpad_core", "scratchpad_adapters", "scratchpad_mcp")


def modules(root: Path, packages: Iterable[str]) -> dict[str, tuple[Path, bool]]:
    """Every module of the packages: its dotted name, its file and whether it is a package's __init__."""
    found = {}
    for package in packages:
        for source in sorted((root / package).rglob("*.py")):
            parts = list(source.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (source, is_package)
    return found


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Module -> the modules of the packages it imports, wherever the import statement stands."""
    known = modules(root, packages)

    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, (source, is_package) in known.items():
        here = name if is_package else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".")
                    base = ".".join([*parts[: len(parts) - node.level + 1], *([node.module] if node.module else [])])
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
            for target in targets:
                imported = resolve(target)
                if imported is not None and imported != name:
                    graph[name].add(imported)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert len(graph) > 100 and sum(map(len, graph.values())) > 400  # the packages were read
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(circle) for circle in found)


def test_every_kind_of_import_is_followed(tmp_path: Path) -> None:
    """A circle closed only by an import for type checking, or only by one inside a function, is a circle."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import b\nfrom .sub import c\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import A\n")
    (package / "sub" / "c.py").write_text("def late():\n    from ..a import x\n")
    (package / "d.py").write_text("import pkg.b\n")
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.a"] == {"pkg.b", "pkg.sub.c"} and graph["pkg.d"] == {"pkg.b"}
    assert circles(graph) == [["pkg.a", "pkg.b", "pkg.sub.c"]]
