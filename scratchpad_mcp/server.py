"""build_server(): the MCP tools, each a thin call into one use case."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time,
# and the argument types below are chosen per server (agent_id is optional with API keys).

from typing import Annotated, Any, Literal

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from scratchpad_core import results as r
from scratchpad_core.limits import utf8_len
from scratchpad_core.service import Scratchpad

from .calls import CallRunner
from .refusals import ScratchpadServer

INSTRUCTIONS = """\
Private, versioned storage for your notes, plans and logs; it survives between sessions.
Save tokens: after reading a file once, read it again with since_version=<the version you saw> to get
only the changes; change files with edit_file or insert_lines instead of rewriting them; read long files
in slices (start_line, max_lines); find lines with search_files; summarize_file gives the gist of long files.
Use append_log for history and read_log with since_entry=<last_entry_id> (or tail) to catch up."""

READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
KEEP = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
REMOTE_READ = ToolAnnotations(read_only_hint=True, open_world_hint=True)

PathArg = Annotated[str, Field(description="Relative path, [a-zA-Z0-9/_.-], e.g. 'notes/plan.md'.")]
PrefixArg = Annotated[str | None, Field(description="Only paths starting with this literal, case-sensitive prefix.")]
ExpectedArg = Annotated[
    int | None,
    Field(description="Fail with a conflict unless the file is at this version (0: it must not exist yet)."),
]


def agent_argument(required: bool) -> Any:
    if required:
        return Annotated[str, Field(description="Your agent's namespace, [a-zA-Z0-9_-], up to 128 characters.")]
    return Annotated[str | None, Field(default=None, description="Optional: your API key already names your agent.")]


def build_server(
    pad: Scratchpad,
    runner: CallRunner,
    *,
    agent_id_required: bool = True,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
) -> ScratchpadServer:
    """The MCP server; with a token verifier, callers need a key and agent_id becomes optional.

    Tools are async and hand the use case to the runner, which runs it inline (stdio: one client, and
    SQLite serializes writers anyway) or on a worker thread (HTTP: many clients at once).
    """
    mcp = ScratchpadServer(
        runner, instructions=INSTRUCTIONS, log_level="WARNING", token_verifier=token_verifier, auth=auth
    )
    AgentArg = agent_argument(agent_id_required)

    @mcp.tool(annotations=IDEMPOTENT)
    async def write_file(
        agent_id: AgentArg, path: PathArg, content: str, expected_version: ExpectedArg = None
    ) -> Annotated[CallToolResult, r.WriteResult]:
        """Store a whole file as its next version (10 are kept). Identical content makes no new version.
        To change part of a file, use edit_file or insert_lines instead."""
        return await runner.call(
            "write_file",
            agent_id,
            lambda a: pad.write_file(a, path, content, expected_version),
            read_only=False,
            bytes_in=utf8_len(content),
        )

    @mcp.tool(annotations=READ)
    async def read_file(
        agent_id: AgentArg,
        path: PathArg,
        since_version: Annotated[
            int | None, Field(description="The version you last read: get only the diff since then.")
        ] = None,
        context: Annotated[
            int, Field(description="Unchanged lines kept around each change in a diff; -1 keeps all.")
        ] = 3,
        format: Annotated[
            Literal["chunks", "unified"], Field(description="Diff as JSON chunks, or as unified diff text.")
        ] = "chunks",
        version: Annotated[
            int | None, Field(description="Read this retained older version instead of the current one.")
        ] = None,
        start_line: Annotated[int | None, Field(description="First line to return (1-based), for a slice.")] = None,
        max_lines: Annotated[int | None, Field(description="At most this many lines, for a slice.")] = None,
    ) -> Annotated[CallToolResult, r.ReadResult]:
        """Read a file. With since_version, get only what changed since that version (unchanged: true if nothing did).
        With start_line/max_lines, get just those lines. With version, get an older retained version."""
        return await runner.call(
            "read_file",
            agent_id,
            lambda a: pad.read_file(
                a,
                path,
                since_version,
                context=context,
                format=format,
                version=version,
                start_line=start_line,
                max_lines=max_lines,
            ),
            read_only=True,
        )

    @mcp.tool(annotations=KEEP)
    async def edit_file(
        agent_id: AgentArg,
        path: PathArg,
        old_str: Annotated[
            str, Field(description="Exact text to replace, unique in the file (copy whitespace exactly).")
        ],
        new_str: Annotated[str, Field(description="Replacement text (it takes the file's line endings).")],
        replace_all: Annotated[bool, Field(description="Replace every occurrence instead of exactly one.")] = False,
        expected_version: ExpectedArg = None,
    ) -> Annotated[CallToolResult, r.EditResult]:
        """Change part of a file without resending it: replace old_str with new_str. Returns the new version and the
        changed lines, numbered."""
        return await runner.call(
            "edit_file",
            agent_id,
            lambda a: pad.edit_file(a, path, old_str, new_str, replace_all, expected_version),
            read_only=False,
            bytes_in=utf8_len(old_str) + utf8_len(new_str),
        )

    @mcp.tool(annotations=KEEP)
    async def insert_lines(
        agent_id: AgentArg,
        path: PathArg,
        line: Annotated[int, Field(description="Insert after this line: 0 = at the top, -1 = at the end.")],
        text: Annotated[str, Field(description="The lines to insert.")],
        expected_version: ExpectedArg = None,
    ) -> Annotated[CallToolResult, r.EditResult]:
        """Insert text as whole lines after a line number; line=-1 appends to the end (e.g. to a notes file, which
        line 0 or -1 creates if it does not exist yet)."""
        return await runner.call(
            "insert_lines",
            agent_id,
            lambda a: pad.insert_lines(a, path, line, text, expected_version),
            read_only=False,
            bytes_in=utf8_len(text),
        )

    @mcp.tool(annotations=READ)
    async def list_versions(agent_id: AgentArg, path: PathArg) -> Annotated[CallToolResult, r.VersionList]:
        """List a file's retained versions (number, bytes, lines, sha256, time) without their content."""
        return await runner.call("list_versions", agent_id, lambda a: pad.list_versions(a, path), read_only=True)

    @mcp.tool(annotations=KEEP)
    async def restore_version(
        agent_id: AgentArg,
        path: PathArg,
        version: Annotated[int, Field(description="The retained version to bring back.")],
        expected_version: ExpectedArg = None,
    ) -> Annotated[CallToolResult, r.WriteResult]:
        """Make a retained older version current again, as a new version (history is kept)."""
        return await runner.call(
            "restore_version",
            agent_id,
            lambda a: pad.restore_version(a, path, version, expected_version),
            read_only=False,
        )

    @mcp.tool(annotations=DESTROY)
    async def delete_file(
        agent_id: AgentArg, path: PathArg, expected_version: ExpectedArg = None
    ) -> Annotated[CallToolResult, r.DeleteResult]:
        """Delete a file with all its versions and its cached summary. A log at the same path is kept (delete_log)."""
        return await runner.call(
            "delete_file", agent_id, lambda a: pad.delete_file(a, path, expected_version), read_only=False
        )

    @mcp.tool(annotations=READ)
    async def list_files(
        agent_id: AgentArg,
        prefix: PrefixArg = None,
        limit: Annotated[int | None, Field(description="Page size (1-1000); omit for all files.")] = None,
        cursor: Annotated[str | None, Field(description="next_cursor from the previous page.")] = None,
    ) -> Annotated[CallToolResult, r.FileListing]:
        """List your files (metadata only: path, version, bytes, times), sorted by path."""
        return await runner.call(
            "list_files", agent_id, lambda a: pad.list_files(a, prefix, limit=limit, cursor=cursor), read_only=True
        )

    @mcp.tool(annotations=READ)
    async def search_files(
        agent_id: AgentArg,
        query: Annotated[str, Field(description="Text to find (or a regular expression with regex=true).")],
        prefix: PrefixArg = None,
        max_results: Annotated[int, Field(description="Most matching lines to return (1-200).")] = 20,
        regex: Annotated[bool, Field(description="Treat query as a regular expression.")] = False,
        case_sensitive: Annotated[bool, Field(description="Match letter case exactly.")] = False,
    ) -> Annotated[CallToolResult, r.SearchResult]:
        """Find lines in the current version of your files: path, line number and the line, instead of reading files."""
        return await runner.call(
            "search_files",
            agent_id,
            lambda a: pad.search_files(
                a, query, prefix, max_results=max_results, regex=regex, case_sensitive=case_sensitive
            ),
            read_only=True,
            slow=True,
        )

    @mcp.tool(annotations=KEEP)
    async def append_log(
        agent_id: AgentArg, path: PathArg, entry: Annotated[str, Field(description="The entry (up to 64 KiB).")]
    ) -> Annotated[CallToolResult, r.AppendResult]:
        """Append one entry to an append-only log (created on first use). Returns its entry_id."""
        return await runner.call(
            "append_log", agent_id, lambda a: pad.append_log(a, path, entry), read_only=False, bytes_in=utf8_len(entry)
        )

    @mcp.tool(annotations=READ)
    async def read_log(
        agent_id: AgentArg,
        path: PathArg,
        since_entry: Annotated[
            int | None, Field(description="Return entries after this id: pass the last_entry_id you got.")
        ] = None,
        limit: Annotated[int | None, Field(description="Page size, 1-100 (default 100).")] = None,
        tail: Annotated[int | None, Field(description="Instead: the newest N entries (1-100), oldest first.")] = None,
    ) -> Annotated[CallToolResult, r.LogPage]:
        """Read log entries in order after since_entry; has_more says whether to call again with last_entry_id.
        Use tail=N for just the newest entries."""
        return await runner.call(
            "read_log", agent_id, lambda a: pad.read_log(a, path, since_entry, limit=limit, tail=tail), read_only=True
        )

    @mcp.tool(annotations=READ)
    async def list_logs(agent_id: AgentArg, prefix: PrefixArg = None) -> Annotated[CallToolResult, r.LogListing]:
        """List your logs: path, entries, bytes, last_entry_id, updated_at."""
        return await runner.call("list_logs", agent_id, lambda a: pad.list_logs(a, prefix), read_only=True)

    @mcp.tool(annotations=DESTROY)
    async def delete_log(agent_id: AgentArg, path: PathArg) -> Annotated[CallToolResult, r.DeleteLogResult]:
        """Delete a whole log and give its entries and bytes back to your quota."""
        return await runner.call("delete_log", agent_id, lambda a: pad.delete_log(a, path), read_only=False)

    @mcp.tool(annotations=REMOTE_READ)
    async def summarize_file(agent_id: AgentArg, path: PathArg) -> Annotated[CallToolResult, r.SummaryResult]:
        """A summary of a long file (over 8,000 characters), cached per version: repeat calls are free.
        For shorter files use read_file."""
        return await runner.call(
            "summarize_file", agent_id, lambda a: pad.summarize_file(a, path), read_only=True, slow=True
        )

    @mcp.tool(annotations=READ)
    async def get_usage_stats(agent_id: AgentArg) -> Annotated[CallToolResult, r.UsageStats]:
        """Your stored bytes, file count, log entry count (log_count), operations, bytes saved, and quotas."""
        return await runner.call("get_usage_stats", agent_id, pad.get_usage_stats, read_only=True)

    return mcp
