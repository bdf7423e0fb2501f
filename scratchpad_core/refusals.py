"""A refusal as data: a stable code, the facts, whether a retry can help, and a sentence each interface words.

Every ScratchpadError (errors.py) carries one `Refusal`:

    code        stable, machine-readable: the error class's `code` (errors.CODES lists them all)
    says        the sentence, a str.format template: `{path}`, `{current:,}` are facts; `{argument}` is the
                argument at fault and `{arg.NAME}` any other argument, `{do.NAME}` a step to take next, each
                `{on.NAME}` a switch turned on (exact, regex), each named neutrally and worded by the
                interface that shows the refusal (its `Words`)
    facts       what the sentence states (path, versions, limits, counts), also given as data (MCP)
    argument    the neutral name of the argument at fault, if one is
    retryable   whether the same call can succeed later unchanged (a busy database, a rate limit)

An interface renders with `refusal.worded(WORDS)`: the library and MCP name tool arguments (`exact=true`) and
tools (`list_files`), scratchpad_core.refusals.LIBRARY; the command line its options and commands
(scratchpad_mcp.cli.refusals); the web view its controls and pages (scratchpad_mcp.web.refusals). Nothing
rewords a rendered sentence: each interface fills the template from the facts in its own words.

Adding a refusal:
- a new code: one line in errors.py, `class CursorExpired(InvalidInput): code = "cursor_expired"` (its place in
  the tree says what it is; `retryable = True` if waiting helps). The table test renders every code.
- a sentence: `raise InvalidInput.said("Invalid {argument}: use {low}..{high}.", argument="limit", low=1,
  high=100)`. A plain `InvalidInput("...")` still works, for a sentence that names no argument and no step.
- a new neutral argument, switch or step: one line in ARGUMENTS, SWITCHES or STEPS below (what it means), and
  one line in each interface's words (LIBRARY here; the CLI's and the web view's). tests/unit/test_refusals.py
  checks that every interface words every name.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

Word = str | Callable[[Mapping[str, Any]], str]  # fixed words, or words made from the refusal's facts


@dataclass(frozen=True)
class Words:
    """How one interface names the neutral arguments and steps (each a word, or a function of the facts)."""

    arguments: Mapping[str, Word]
    steps: Mapping[str, Word]
    switched_on: Mapping[str, Word]


# The neutral arguments a refusal can name, and what each is.
ARGUMENTS: dict[str, str] = {
    "agent_id": "the agent acted for",
    "path": "a file's or a log's path",
    "cursor": "where a listing continues (the previous page's next cursor)",
    "limit": "how many rows one page lists",
    "tail": "how many of a log's last entries to read",
    "query": "what a search looks for",
    "max_results": "how many results one search returns",
    "exact": "search for the text as it is, line by line",
    "regex": "search with a regular expression (RE2)",
    "version": "which version of a file to read",
    "expected_version": "the version a change expects the file to be at",
    "since_version": "the older version a diff starts from",
    "start_line": "the first line to read",
    "old_str": "the text an edit replaces",
    "new_str": "the text an edit puts in its place",
    "request_id": "the id that makes a retried call safe",
    "since": "where a catch-up on changes continues (the cursor a previous reply gave)",
    "prefix": "the part of the namespace a call covers",
    "max_bytes": "how many bytes one reply may hold",
}

# The arguments that are switches, which a refusal can name turned on.
SWITCHES: dict[str, str] = {"exact": ARGUMENTS["exact"], "regex": ARGUMENTS["regex"]}

# The next steps a refusal can advise, and what each is.
STEPS: dict[str, str] = {
    "see_files": "where the agent's files are listed (facts: agent_id)",
    "see_logs": "where the agent's logs are listed (facts: agent_id)",
    "see_versions": "where a file's retained versions are listed (facts: agent_id, path)",
    "search_literally": "search for the query as it is, without a regular expression",
    "drop_regex": "search without a regular expression",
    "find_symbols": "search for punctuation or symbols as they are",
    "continue_listing": "continue a listing from where its previous page ended",
    "read_instead": "read the file rather than summarize it",
    "free_space": "how the agent frees space under its quota (deleting files or logs)",
    "insert_lines": "add text as new lines rather than replacing some",
    "replace_every": "replace every occurrence of the edited text",
    "read_lines": "read the lines of the file to copy the edited text from",
    "earlier_call": "the earlier call a request id named (facts: operation)",
    "continue_changes": "continue a catch-up on changes from the cursor the previous reply gave",
}


@dataclass(frozen=True)
class Refusal:
    code: str
    says: str
    facts: Mapping[str, Any] = field(default_factory=dict)
    argument: str | None = None
    retryable: bool = False

    @classmethod
    def plain(cls, code: str, sentence: str, retryable: bool = False) -> Refusal:
        """A sentence that names no argument and no step: every interface shows it as it is."""
        return cls(code, sentence.replace("{", "{{").replace("}", "}}"), {}, None, retryable)

    def worded(self, words: Words) -> str:
        """The sentence in one interface's words, its facts filled in."""
        return _Filler(self, words).format(self.says)


class _Filler(string.Formatter):
    def __init__(self, refusal: Refusal, words: Words) -> None:
        self._refusal = refusal
        self._words = words

    def get_value(self, key: int | str, args: Any, kwargs: Any) -> Any:
        facts = self._refusal.facts
        if key == "argument":
            return _said(self._words.arguments, self._refusal.argument or "", facts)
        if key == "arg":
            return _Named(self._words.arguments, facts)
        if key == "do":
            return _Named(self._words.steps, facts)
        if key == "on":
            return _Named(self._words.switched_on, facts)
        return facts[str(key)]


class _Named:
    """`{arg.NAME}` / `{do.NAME}`: NAME in the interface's words."""

    def __init__(self, table: Mapping[str, Word], facts: Mapping[str, Any]) -> None:
        self._table = table
        self._facts = facts

    def __getattr__(self, name: str) -> str:
        return _said(self._table, name, self._facts)


def _said(table: Mapping[str, Word], name: str, facts: Mapping[str, Any]) -> str:
    word = table.get(name, name)  # a name an interface has no word for yet: the neutral name
    return word if isinstance(word, str) else word(facts)


# The library's own words, which the MCP tools share: the tools are the Scratchpad methods of the same names,
# their arguments its keyword arguments (JSON spelling: true, false).
LIBRARY = Words(
    arguments={name: name for name in ARGUMENTS},
    switched_on={"exact": "exact=true", "regex": "regex=true"},
    steps={
        "see_files": "Use list_files to see this agent's files.",
        "see_logs": "Use list_logs to see this agent's logs.",
        "see_versions": "Use list_versions to see which are.",
        "search_literally": "search literally with exact=true and regex=false",
        "drop_regex": "use regex=false",
        "find_symbols": "use exact=true to find punctuation or symbols",
        "continue_listing": "pass the next_cursor of the previous page unchanged",
        "read_instead": "Use read_file instead.",
        "free_space": "free space with delete_file or delete_log",
        "insert_lines": "use insert_lines",
        "replace_every": "pass replace_all=true to replace every occurrence",
        "read_lines": "read_file with start_line/max_lines",
        "earlier_call": lambda facts: f"an earlier {facts['operation']} call",
        "continue_changes": "pass the cursor a read_changes reply gave, unchanged (or omit it for a first sync)",
    },
)
