"""The library's API is importable from the package roots, and is enough to use the library."""

from __future__ import annotations

from pathlib import Path

import pytest

import scratchpad_adapters
import scratchpad_core


@pytest.mark.parametrize("package", [scratchpad_core, scratchpad_adapters], ids=lambda p: p.__name__)
def test_every_exported_name_exists(package: object) -> None:
    names = package.__all__  # type: ignore[attr-defined]
    assert names == sorted(names, key=lambda n: (n[0].islower(), n))
    for name in names:
        assert getattr(package, name) is not None, name


def test_a_round_trip_with_root_imports_only(tmp_path: Path) -> None:
    from scratchpad_adapters import open_store
    from scratchpad_core import Hunk, Limits, NotFound, ReadResult, VersionConflict, apply_hunks

    with open_store(f"sqlite:///{tmp_path / 'api.db'}", limits=Limits(max_versions=2)) as store:
        store.write_file("me", "plan.md", "a\nb\n")
        store.write_file("me", "plan.md", "a\nB\n")
        read = store.read_file("me", "plan.md", since_version=1, format="compact")
        assert isinstance(read, ReadResult)
        assert read.diff == [Hunk(2, 1, ["B"])]
        assert apply_hunks("a\nb\n", [Hunk(2, 1, ["B"])]) == "a\nB\n"
        with pytest.raises(VersionConflict):
            store.write_file("me", "plan.md", "x", expected_version=1)
        with pytest.raises(NotFound):
            store.read_file("me", "missing.md")
