"""The `scratchpad-mcp` commands of the README and docs/ run as written after the quick start: each goes through
`uv run` (or `uvx --from`), since the quick start puts no `scratchpad-mcp` on PATH, and each parses as the command's
own arguments."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from scratchpad_mcp.cli.invocation import Invocation
from scratchpad_mcp.cli.main import run

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# `scratchpad-mcp` as a command word: not inside a path, a URL or a longer name, followed by its arguments.
COMMAND = re.compile(r"(?<![\w/.:-])scratchpad-mcp(?![\w/.:-])(?P<rest>(?: [^`\n]*)?)")
RUNNERS = re.compile(r"(?:uv run(?: --directory \S+)?|uvx --from \S+) $")
NAMES_ONLY = ("", " ...")  # `scratchpad-mcp` named as a command, not run: "then `scratchpad-mcp ...` does the same"


class Parsed(Exception):
    """The command line parsed and its command began: nothing further runs."""


class ParseOnly(Invocation):
    def begin(self):
        raise Parsed

    def serve(self, warm=None):
        raise Parsed


def shell_snippets() -> list[str]:
    """Inline code spans and the lines of sh blocks (JSON blocks hold arguments, not commands)."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    snippets: list[str] = []
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.DOTALL):
        if language == "sh":
            snippets.extend(body.replace("\\\n", " ").splitlines())
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    snippets.extend(span.replace("\n", " ") for span in re.findall(r"`([^`]+)`", prose))
    return snippets


def commands() -> list[tuple[str, str, str]]:
    """(snippet, what stands before the command, its arguments) for every scratchpad-mcp command the README
    and docs/ show being run."""
    found = []
    for snippet in shell_snippets():
        for match in COMMAND.finditer(snippet):
            before = snippet[: match.start()]
            if match["rest"] not in NAMES_ONLY or before.strip():
                found.append((snippet, before, match["rest"]))
    return found


def test_the_readme_shows_its_commands_run_through_uv() -> None:
    shown = commands()
    assert len(shown) >= 12, shown
    assert any("keys create" in rest for _, _, rest in shown) and any(" export" in rest for _, _, rest in shown)
    for snippet, before, _ in shown:
        assert RUNNERS.search(before), f"the docs run scratchpad-mcp without `uv run`: {snippet!r}"
    assert "`uv tool install .`" in (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")  # the other way


@pytest.mark.parametrize(("snippet", "rest"), [(snippet, rest) for snippet, _, rest in commands()])
def test_each_readme_command_parses(snippet: str, rest: str) -> None:
    words = shlex.split(rest.split(")", maxsplit=1)[0].replace("$HOME", "/home/me"), comments=True)
    words = [word for word in words if ">" not in word and word != "..."]  # redirections; "and so on"
    try:
        code = run(words, ParseOnly())
    except Parsed:
        return
    assert code == 0, f"the docs' command does not parse: {snippet!r}"  # --help and --version exit 0
