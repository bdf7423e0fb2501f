"""A refusal on the command line: the library's refusal (scratchpad_core.refusals) in this command line's
words, its options (`--agent`, `--exact`) and the commands that show what is there (`scratchpad-mcp files`)."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import Any

from scratchpad_core.errors import ScratchpadError
from scratchpad_core.refusals import Words


def _command(words: str, tail: str) -> Any:
    """A step naming a command run for the refusal's agent (and path, where PATH is in `words`)."""

    def said(facts: Mapping[str, Any]) -> str:
        agent = shlex.quote(str(facts.get("agent_id", "AGENT")))
        path = shlex.quote(str(facts.get("path", "PATH")))
        return f"`scratchpad-mcp {words.format(agent=agent, path=path)}` {tail}"

    return said


CLI = Words(
    arguments={
        "agent_id": "--agent",
        "path": "PATH",
        "cursor": "--cursor",
        "limit": "--limit",
        "tail": "--tail",
        "query": "QUERY",
        "max_results": "--limit",
        "exact": "--exact",
        "regex": "--regex",
        "version": "version",
        "expected_version": "expected version",
        "since_version": "FROM",
        "start_line": "--lines",
        "old_str": "the text to replace",
        "new_str": "the new text",
        "request_id": "request id",
        "since": "--since",
        "prefix": "--prefix",
        "max_bytes": "the reply's size",
    },
    switched_on={"exact": "--exact", "regex": "--regex"},
    steps={
        "see_files": _command("files --agent {agent}", "lists its files."),
        "see_logs": _command("logs --agent {agent}", "lists its logs."),
        "see_versions": _command("versions --agent {agent} {path}", "lists them."),
        "search_literally": "search literally with --exact instead of --regex",
        "drop_regex": "drop --regex to search for the text as it is",
        "find_symbols": "pass --exact to find punctuation or symbols",
        "continue_listing": "pass the cursor the previous page ended with, unchanged",
        "read_instead": _command("cat --agent {agent} {path}", "prints it."),
        "free_space": "the agent frees space by deleting files or logs (`scratchpad-mcp retention` can expire them)",
        "insert_lines": "insert it as new lines",
        "replace_every": "replace every occurrence",
        "read_lines": _command("cat --agent {agent} {path} --lines FIRST:LAST", "prints them"),
        "earlier_call": "an earlier call",
        "continue_changes": "pass the cursor the last `changes` printed, unchanged (or leave --since out)",
    },
)


def said(error: ScratchpadError) -> str:
    """The error's refusal in the command line's words."""
    return error.refusal.worded(CLI)
