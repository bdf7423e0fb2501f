"""bench/ is one file a benchmark, each run with `uv run python -m bench.NAME`, beside one module of shared helpers
(common.py) that no benchmark's own code stands in for: no benchmark imports another."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SHARED = {"__init__", "common"}


def benchmarks() -> list[Path]:
    return sorted(path for path in BENCH.glob("*.py") if path.stem not in SHARED)


def test_every_file_but_the_shared_helpers_is_a_runnable_benchmark() -> None:
    assert len(benchmarks()) >= 10
    for path in benchmarks():
        source = path.read_text(encoding="utf-8")
        assert 'if __name__ == "__main__":' in source, f"{path.name} is no benchmark: fold it into one, or into common"
        assert f"python -m bench.{path.stem}" in source, f"{path.name}'s docstring does not say how to run it"


def test_no_benchmark_imports_another() -> None:
    for path in [*benchmarks(), BENCH / "common.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "bench":
                assert node.module == "bench.common", f"{path.name} imports {node.module}"
                assert path.stem != "common", "common imports nothing of bench"
            if isinstance(node, ast.ImportFrom) and node.module == "bench":
                raise AssertionError(f"{path.name} imports {[alias.name for alias in node.names]} from bench")


def test_the_docs_name_only_benchmarks_that_exist() -> None:
    text = "".join(path.read_text(encoding="utf-8") for path in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))])
    named = set(re.findall(r"python -m bench\.([a-z_]+)\b", text))
    named |= set(re.findall(r"`bench\.([a-z_]+)`", text))
    assert {"speed", "tokens", "histories", "web"} <= named
    assert named <= {path.stem for path in benchmarks()}, named - {path.stem for path in benchmarks()}
