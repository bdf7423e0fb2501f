"""The 15 MCP tools: what a model reads about each (arguments, description, hints) and the use case it runs."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time,
# and the argument types below are chosen per server (agent_id is optional with API keys).

import dataclasses
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Protocol, TypeVar

from mcp.types import ToolAnnotations
from pydantic import Field

from scratchpad_core import results as r
from scratchpad_core.actors import STDIO
from scratchpad_core.bounds import (
    DEFAULT_SEARCH_RESULTS,
    LOG_PAGE_SIZE,
    MAX_LIST_LIMIT,
    MAX_SEARCH_RESULTS,
    SUMMARY_THRESHOLD_CHARS,
)
from scratchpad_core.diffing import DEFAULT_CONTEXT
from scratchpad_core.limits import Limits, byte_size
from scratchpad_core.service import Scratchpad
from scratchpad_core.usecases.reads import DEFAULT_FORMAT, DiffFormat

from .calls import UseCase

Builder = TypeVar("Builder", bound=Callable[..., UseCase[Any]])


class ToolRegistry(Protocol):
    """Where register_tools puts the tools: the server's tool decorator (ScratchpadServer.tool)."""

    def tool(
        self, *, annotations: ToolAnnotations, payload: Sequence[str] = (), slow: bool = False
    ) -> Callable[[Builder], Builder]: ...


INSTRUCTIONS = """\
Private, versioned storage for your notes, plans and logs; it survives between sessions. Paths are relative, \
of [a-zA-Z0-9/_.-], e.g. notes/plan.md. Save tokens: once you have read a file, read it again with \
since_version=<the version you hold> and format=compact to get only the changes; change files with edit_file \
or insert_lines instead of rewriting them; read long files in slices (start_line, max_lines); find by words with \
search_files; summarize_file gives the gist of a long file. Logs: append_log, then read_log with \
since_entry=<last_entry_id> (or tail) to catch up."""

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
KEEP = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
REMOTE_READ = ToolAnnotations(read_only_hint=True, open_world_hint=True)

PathArg = Annotated[str, Field(description="e.g. notes/plan.md")]
PrefixArg = Annotated[str | None, Field(description="Only paths starting with this.")]
ExpectedArg = Annotated[
    int | None, Field(description="Refuse unless at this version (0: must not exist); omit: no check.")
]
SnippetArg = Annotated[bool, Field(description="Also return the changed lines.")]
RequestIdArg = Annotated[str | None, Field(description="Same on retry: no redo.")]


def agent_argument(required: bool, *, writes: bool = True) -> Any:
    """agent_id: the caller's namespace (stdio, no keys); with keys, the key's own agent (omitted) or one it has a
    grant on (scratchpad_core.access.grants), a write grant for a writing tool."""
    if required:
        return Annotated[str, Field(description="Your namespace, e.g. my-bot")]
    granted = "one granted write" if writes else "a granted one"
    return Annotated[str | None, Field(default=None, description=f"Omit: your key's, or {granted}.")]


def register_tools(
    mcp: ToolRegistry,
    store: Scratchpad,
    *,
    agent_id_required: bool = True,
    max_read_bytes: int | None = None,
    actor: Callable[[], str] = lambda: STDIO,
    spaces: Callable[[], list[r.Space] | None] = lambda: None,
) -> None:
    """The tools, on `mcp`: each takes its arguments and returns the use case to run for the calling agent.

    The server runs it (ScratchpadServer.tool): who calls, read-only or not (from the annotations), and the
    payload's size (the arguments named in `payload`). Docstrings are the descriptions a model reads, with
    {bounds} filled in from the live limits. max_read_bytes bounds a full read_file (None: no bound); the reply
    past it says truncated and where to go on, so the description need not. actor() names who makes the call
    being run (its key, or the transport), which every version and log entry records; spaces() the agents its
    key may use (its own first), which get_usage_stats of the key's own agent lists.
    """
    AgentArg = agent_argument(agent_id_required)
    ReadAgentArg = agent_argument(agent_id_required, writes=False)

    @mcp.tool(annotations=IDEMPOTENT, payload=("content",))
    def write_file(
        agent_id: AgentArg,
        path: PathArg,
        content: Annotated[str, Field(description="Up to {max_file_bytes}.")],
        expected_version: ExpectedArg = None,
        request_id: RequestIdArg = None,
    ) -> UseCase[r.WriteResult]:
        """Store a whole file as its next version ({max_versions} kept). To change part of one, use edit_file
        or insert_lines."""
        return lambda a: store.write_file(a, path, content, expected_version, request_id=request_id, actor=actor())

    @mcp.tool(annotations=READ)
    def read_file(
        agent_id: ReadAgentArg,
        path: PathArg,
        since_version: Annotated[int | None, Field(description="Version you hold: get only the changes.")] = None,
        format: Annotated[
            DiffFormat, Field(description="Diff as chunks, unified text or compact {{at,remove,add}} hunks.")
        ] = DEFAULT_FORMAT,
        context: Annotated[
            int, Field(description="Unchanged lines around changes (not compact); -1: all.")
        ] = DEFAULT_CONTEXT,
        version: Annotated[int | None, Field(description="An older retained version; omit: current.")] = None,
        start_line: Annotated[int | None, Field(description="First line of a slice (1-based, default 1).")] = None,
        max_lines: Annotated[int | None, Field(description="Lines in the slice; omit: to the end.")] = None,
    ) -> UseCase[r.ReadResult]:
        """Read a file, a slice or an older version; with since_version only the changes (cheapest:
        format=compact)."""
        return lambda a: store.read_file(
            a, path, since_version, context=context, format=format, version=version,
            start_line=start_line, max_lines=max_lines, max_bytes=max_read_bytes,
        )  # fmt: skip

    @mcp.tool(annotations=KEEP, payload=("old_str", "new_str"))
    def edit_file(
        agent_id: AgentArg,
        path: PathArg,
        old_str: Annotated[str, Field(description="Exact text, unique in the file.")],
        new_str: Annotated[str, Field(description="Its replacement.")],
        replace_all: Annotated[bool, Field(description="Replace every occurrence.")] = False,
        expected_version: ExpectedArg = None,
        snippet: SnippetArg = False,
        request_id: RequestIdArg = None,
    ) -> UseCase[r.EditResult]:
        """Replace old_str with new_str in a file; returns the new version and the (first) change's lines."""
        return lambda a: store.edit_file(
            a, path, old_str, new_str, replace_all, expected_version,
            snippet=snippet, request_id=request_id, actor=actor(),
        )  # fmt: skip

    @mcp.tool(annotations=KEEP, payload=("text",))
    def insert_lines(
        agent_id: AgentArg,
        path: PathArg,
        line: Annotated[int, Field(description="After this line; 0: top, -1: end.")],
        text: Annotated[str, Field(description="Lines to insert.")],
        expected_version: ExpectedArg = None,
        snippet: SnippetArg = False,
        request_id: RequestIdArg = None,
    ) -> UseCase[r.EditResult]:
        """Insert lines after a line number; line 0 or -1 creates a missing file."""
        return lambda a: store.insert_lines(
            a, path, line, text, expected_version, snippet=snippet, request_id=request_id, actor=actor()
        )

    @mcp.tool(annotations=READ)
    def list_versions(agent_id: ReadAgentArg, path: PathArg) -> UseCase[r.VersionList]:
        """A file's retained versions."""
        return lambda a: store.list_versions(a, path)

    @mcp.tool(annotations=KEEP)
    def restore_version(
        agent_id: AgentArg,
        path: PathArg,
        version: Annotated[int, Field(description="Version to restore.")],
        expected_version: ExpectedArg = None,
        request_id: RequestIdArg = None,
    ) -> UseCase[r.WriteResult]:
        """Make a retained version current again, as a new version."""
        return lambda a: store.restore_version(a, path, version, expected_version, request_id=request_id, actor=actor())

    @mcp.tool(annotations=DESTROY)
    def delete_file(
        agent_id: AgentArg, path: PathArg, expected_version: ExpectedArg = None, request_id: RequestIdArg = None
    ) -> UseCase[r.DeleteResult]:
        """Delete a file and its versions (not a log at the same path)."""
        return lambda a: store.delete_file(a, path, expected_version, request_id=request_id, actor=actor())

    @mcp.tool(annotations=READ)
    def list_files(
        agent_id: ReadAgentArg,
        prefix: PrefixArg = None,
        limit: Annotated[int | None, Field(description="Page size, 1-{max_list}; omit: all.")] = None,
        cursor: Annotated[str | None, Field(description="next_cursor of the last page.")] = None,
    ) -> UseCase[r.FileListing]:
        """Your files, by path."""
        return lambda a: store.list_files(a, prefix, limit=limit, cursor=cursor)

    @mcp.tool(annotations=READ, slow=True)
    def search_files(
        agent_id: ReadAgentArg,
        query: Annotated[str, Field(description="Words; a question works.")],
        prefix: PrefixArg = None,
        max_results: Annotated[int, Field(description="At most this many, 1-{max_results}.")] = DEFAULT_SEARCH_RESULTS,
        exact: Annotated[bool, Field(description="Literal query.")] = False,
        regex: Annotated[bool, Field(description="RE2 pattern.")] = False,
        case_sensitive: Annotated[bool, Field(description="exact/regex: match case.")] = False,
    ) -> UseCase[r.SearchResult]:
        """Passages of your files and logs with query's words, best first; exact/regex: lines, then log entries."""
        return lambda a: store.search_files(
            a, query, prefix, max_results=max_results, exact=exact, regex=regex, case_sensitive=case_sensitive
        )

    @mcp.tool(annotations=KEEP, payload=("entry",))
    def append_log(
        agent_id: AgentArg,
        path: PathArg,
        entry: Annotated[str, Field(description="Up to {max_entry_bytes}.")],
        request_id: RequestIdArg = None,
    ) -> UseCase[r.AppendResult]:
        """Append an entry to a log (made on first use); returns its entry_id."""
        return lambda a: store.append_log(a, path, entry, request_id=request_id, actor=actor())

    @mcp.tool(annotations=READ)
    def read_log(
        agent_id: ReadAgentArg,
        path: PathArg,
        since_entry: Annotated[int | None, Field(description="last_entry_id you got; omit: from the start.")] = None,
        limit: Annotated[int | None, Field(description="Page size, 1-{log_page}.")] = None,
        tail: Annotated[int | None, Field(description="Instead, the newest N (1-{log_page}).")] = None,
        show_by: Annotated[bool, Field(description="Say who wrote each entry.")] = False,
    ) -> UseCase[r.LogPage]:
        """Log entries after since_entry, oldest first; if has_more, call again with last_entry_id."""
        return lambda a: store.read_log(a, path, since_entry, limit=limit, tail=tail, show_by=show_by)

    @mcp.tool(annotations=READ)
    def list_logs(agent_id: ReadAgentArg, prefix: PrefixArg = None) -> UseCase[r.LogListing]:
        """Your logs and their sizes."""
        return lambda a: store.list_logs(a, prefix)

    @mcp.tool(annotations=DESTROY)
    def delete_log(agent_id: AgentArg, path: PathArg, request_id: RequestIdArg = None) -> UseCase[r.DeleteLogResult]:
        """Delete a log, freeing its quota."""
        return lambda a: store.delete_log(a, path, request_id=request_id, actor=actor())

    @mcp.tool(annotations=REMOTE_READ, slow=True)
    def summarize_file(agent_id: ReadAgentArg, path: PathArg) -> UseCase[r.SummaryResult]:
        """Cached summary of a file over {summary_chars} characters."""
        return lambda a: store.summarize_file(a, path)

    @mcp.tool(annotations=READ)
    def get_usage_stats(agent_id: ReadAgentArg) -> UseCase[r.UsageStats]:
        """Your usage and quotas."""
        return lambda a: with_spaces(store.get_usage_stats(a), spaces())


def tool_bounds(limits: Limits) -> dict[str, str]:
    """The numbers the tool descriptions state, from the live limits and the fixed bounds."""
    return {
        "max_versions": f"{limits.max_versions:,}",
        "max_file_bytes": byte_size(limits.max_file_bytes),
        "max_entry_bytes": byte_size(limits.max_log_entry_bytes),
        "max_list": f"{MAX_LIST_LIMIT:,}",
        "max_results": f"{MAX_SEARCH_RESULTS:,}",
        "log_page": f"{LOG_PAGE_SIZE:,}",
        "summary_chars": f"{SUMMARY_THRESHOLD_CHARS:,}",
    }


def with_spaces(stats: r.UsageStats, spaces: list[r.Space] | None) -> r.UsageStats:
    """The stats, listing the key's spaces when they are of the key's own agent (listed first)."""
    own = spaces is not None and spaces[0].agent == stats.agent_id
    return dataclasses.replace(stats, spaces=spaces) if own else stats
