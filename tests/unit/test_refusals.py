"""Refusals as data (scratchpad_core.refusals): each interface words every neutral name the core may use, every
name a template in the code uses is declared, and a sentence's facts and plain sentences are shown as they are."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scratchpad_adapters.memory_tool.paths import WORDS as MEMORY_TOOL
from scratchpad_core.errors import InvalidInput, NotFound, RateLimited, ScratchpadError, VersionConflict
from scratchpad_core.refusals import ARGUMENTS, LIBRARY, STEPS, SWITCHES, Words
from scratchpad_mcp.cli.refusals import CLI
from scratchpad_mcp.web.refusals import WEB

ROOT = Path(__file__).resolve().parents[2]
INTERFACES = {"library and MCP": LIBRARY, "command line": CLI, "web view": WEB, "memory tool": MEMORY_TOOL}


@pytest.mark.parametrize("name", INTERFACES)
def test_each_interface_words_every_name(name: str) -> None:
    words: Words = INTERFACES[name]
    assert set(words.arguments) == set(ARGUMENTS)
    assert set(words.switched_on) == set(SWITCHES)
    assert set(words.steps) == set(STEPS)


def test_every_name_a_template_uses_is_declared() -> None:
    used: dict[str, set[str]] = {"arg": set(), "do": set(), "on": set(), "argument": set()}
    for source in (*ROOT.glob("scratchpad_core/**/*.py"), *ROOT.glob("scratchpad_adapters/**/*.py")):
        text = source.read_text()
        for kind, name in re.findall(r"\{(arg|do|on)\.([a-z_]+)\}", text):
            used[kind].add(name)
        used["argument"] |= set(re.findall(r'\bargument="(\w+)"', text))
    assert used["do"] and used["arg"] and used["on"] and used["argument"]
    assert used["arg"] | used["argument"] <= set(ARGUMENTS)
    assert used["on"] <= set(SWITCHES)
    assert used["do"] <= set(STEPS)


def test_a_plain_sentence_and_a_fact_are_shown_as_they_are() -> None:
    assert ScratchpadError("Braces {stay} as {0} they are.").message == "Braces {stay} as {0} they are."
    error = NotFound.said("File not found: {path}. {do.see_files}", path="{x}/{do.y}", agent_id="a")
    assert error.message == "File not found: {x}/{do.y}. Use list_files to see this agent's files."
    assert str(error) == error.message and error.refusal.facts["path"] == "{x}/{do.y}"


def test_the_refusal_carries_code_facts_argument_and_retryable() -> None:
    refusal = InvalidInput.said("Invalid {argument}: use {low}..{high}.", argument="limit", low=1, high=9).refusal
    assert (refusal.code, refusal.argument, refusal.retryable) == ("invalid_input", "limit", False)
    assert dict(refusal.facts) == {"low": 1, "high": 9}
    assert refusal.worded(CLI) == "Invalid --limit: use 1..9." and refusal.worded(WEB) == "Invalid page size: use 1..9."
    conflict = VersionConflict("a.md", 2, 3).refusal
    assert dict(conflict.facts) == {"path": "a.md", "expected": 2, "current": 3}
    assert RateLimited(0.5).refusal.retryable and RateLimited(0.5).refusal.facts["retry_after"] == 0.5


def test_a_name_an_interface_has_no_word_for_yet_stays_neutral() -> None:
    """Another change may add a name before every interface words it: the refusal still shows."""
    error = InvalidInput.said("Invalid {argument}: use 1..{high}.", argument="depth", high=5)
    assert error.message == "Invalid depth: use 1..5." and error.refusal.worded(CLI) == "Invalid depth: use 1..5."
