"""The library's API is importable from the package roots, and is enough to use the library."""

from __future__ import annotations

import importlib
import tomllib
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


# The public API each package declares, held name for name (issue 21: moving modules changes none of it).
PUBLIC = {
    "scratchpad_core": (
        "AccessDenied AppendResult Chunk DeleteLogResult DeletePrefixResult DeleteResult EditMismatch EditResult "
        "FileInfo FileListing Hunk InvalidAgentId InvalidInput InvalidPath LimitExceeded Limits LogEntryOut LogInfo "
        "LogListing LogPage NotFound Quota QuotaExceeded RateLimited ReadResult RenamePrefixResult RenameResult "
        "Scratchpad ScratchpadError SearchMatch SearchResult StorageBusy StorageError StorageUnavailable "
        "SummaryResult SummaryUnavailable UsageStats VersionConflict VersionInfo VersionList WriteResult "
        "apply_chunks apply_hunks apply_unified"
    ),
    "scratchpad_adapters": (
        "AsyncScratchpadMemoryTool Backend MemoryBackend MemoryDatabase MemoryFileRepository MemoryLogRepository "
        "MemorySummaryRepository MemoryUnitOfWork MemoryUsageRepository ScratchpadMemoryTool SqlBackend "
        "default_database_path open_backend open_store sqlite_url"
    ),
    "scratchpad_mcp.settings": "LimitVariables Settings SettingsError",
}


@pytest.mark.parametrize("package", sorted(PUBLIC))
def test_each_package_keeps_its_public_api(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == PUBLIC[package].split()
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_the_commands_entry_points_are_where_the_package_says() -> None:
    """The console script (pyproject's [project.scripts]) and `python -m scratchpad_mcp` reach the same function."""
    scripts = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"scratchpad-mcp": "scratchpad_mcp.launch:entry_point"}
    module, _, function = scripts["scratchpad-mcp"].partition(":")
    assert callable(getattr(importlib.import_module(module), function))
    main = (Path(importlib.import_module("scratchpad_mcp").__file__ or "").parent / "__main__.py").read_text()
    assert "from .launch import entry_point" in main and "entry_point()" in main
