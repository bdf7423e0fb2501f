"""A refusal on a web page: the library's refusal (scratchpad_core.refusals) in the view's words, its controls
(the search box, the exact and regex boxes, the versions' from and to) and its pages (the agent's, the file's)."""

from __future__ import annotations

from scratchpad_core.errors import ScratchpadError
from scratchpad_core.refusals import Words

WEB = Words(
    arguments={
        "agent_id": "agent",
        "path": "path",
        "cursor": "page link",
        "limit": "page size",
        "tail": "number of entries",
        "query": "search",
        "max_results": "number of results",
        "exact": "exact",
        "regex": "regex",
        "version": "version",
        "expected_version": "expected version",
        "since_version": "from version",
        "start_line": "start line",
        "old_str": "the text to replace",
        "new_str": "the new text",
        "request_id": "request id",
        "since": "changes link",
        "prefix": "folder",
        "max_bytes": "page size",
    },
    switched_on={"exact": "a search with exact ticked", "regex": "a search with regex ticked"},
    steps={
        "see_files": "The agent's page lists its files.",
        "see_logs": "The agent's page lists its logs.",
        "see_versions": "The file's page lists the versions it keeps.",
        "search_literally": "search literally: tick exact and untick regex",
        "drop_regex": "untick regex to search for the text as it is",
        "find_symbols": "tick exact to find punctuation or symbols",
        "continue_listing": "follow the page's own More link, unchanged",
        "read_instead": "The file's page shows it whole.",
        "free_space": "the agent frees space by deleting files or logs",
        "insert_lines": "insert it as new lines",
        "replace_every": "replace every occurrence",
        "read_lines": "the file's page shows its lines",
        "earlier_call": "an earlier call",
        "continue_changes": "open the agent's page again for its recent changes",
    },
)


def said(error: ScratchpadError) -> str:
    """The error's refusal in the web view's words."""
    return error.refusal.worded(WEB)
