"""--help reads well at every level: the root lists its commands by section, every command has its own."""

from __future__ import annotations

import pytest

from scratchpad_mcp.cli.main import command_line
from tests.cli.conftest import isolated_main

COMMANDS = [
    *(["db", name] for name in ("upgrade", "current", "downgrade", "check", "prune", "scrub")),
    *(["retention", name] for name in ("set", "list", "clear")),
    ["export"], ["import"], ["redact"],
    *(["keys", name] for name in ("create", "list", "grant", "ungrant", "revoke")),
    ["serve"], ["web"],
    *([name] for name in ("agents", "files", "cat", "versions", "diff", "logs", "log", "search", "stats", "changes")),
]  # fmt: skip


def test_the_root_help_lists_every_command_by_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert isolated_main("--help") == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: scratchpad-mcp [OPTIONS] [COMMAND] [ARGS]...")
    commands, inspection = shown.split("Inspection commands (read-only):")
    assert "\nCommands:\n" in commands
    for name in ("agents", "files", "cat", "versions", "diff", "logs", "log", "search", "stats", "changes"):
        assert f"\n  {name} " in inspection and f"\n  {name} " not in commands
    for name in ("db", "export", "import", "keys", "serve"):
        assert f"\n  {name} " in commands
    assert "..." not in inspection  # every short help fits


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_each_command_has_its_help(words: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert isolated_main(*words, "--help") == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"usage: scratchpad-mcp {' '.join(words)} ")
    assert "-h, --help" in shown and "Show this message and exit." in shown


def test_every_command_is_covered() -> None:
    root = command_line()
    listed = {name for name, command in root.commands.items() if not hasattr(command, "commands")}
    groups = {f"{name} {sub}" for name, group in root.commands.items() for sub in getattr(group, "commands", {})}
    assert {" ".join(words) for words in COMMANDS} >= (listed | groups) - {"db check"}
