"""The file tools: write, read, edit, insert, versions, restore, delete, list, search and summarize. Each takes
the Calls it runs with and its arguments, and returns the use case to run for the calling agent."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time.

from typing import Annotated

from pydantic import Field

from scratchpad_core import results as r
from scratchpad_core.bounds import DEFAULT_SEARCH_RESULTS
from scratchpad_core.diffing import DEFAULT_CONTEXT
from scratchpad_core.usecases.reads import DEFAULT_FORMAT, DiffFormat

from ..calls import UseCase
from .arguments import AgentId, Calls, ExpectedArg, PathArg, PrefixArg, RequestIdArg, SnippetArg


def write_file(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    content: Annotated[str, Field(description="Up to {max_file_bytes}.")],
    expected_version: ExpectedArg = None,
    request_id: RequestIdArg = None,
) -> UseCase[r.WriteResult]:
    """Store a whole file as its next version ({max_versions} kept). For a part: edit_file or insert_lines."""
    return lambda a: calls.store.write_file(
        a, path, content, expected_version, request_id=request_id, actor=calls.actor()
    )


def read_file(
    calls: Calls,
    agent_id: AgentId,
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
    """Read a file, a slice or an old version; since_version: only changes (cheapest: format=compact)."""
    return lambda a: calls.store.read_file(
        a, path, since_version, context=context, format=format, version=version,
        start_line=start_line, max_lines=max_lines, max_bytes=calls.max_read_bytes,
    )  # fmt: skip


def edit_file(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    old_str: Annotated[str, Field(description="Exact text, unique in the file.")],
    new_str: Annotated[str, Field(description="Its replacement.")],
    replace_all: Annotated[bool, Field(description="Replace every occurrence.")] = False,
    expected_version: ExpectedArg = None,
    snippet: SnippetArg = False,
    request_id: RequestIdArg = None,
) -> UseCase[r.EditResult]:
    """Replace old_str with new_str in a file; returns the new version and the (first) change's lines."""
    return lambda a: calls.store.edit_file(
        a, path, old_str, new_str, replace_all, expected_version,
        snippet=snippet, request_id=request_id, actor=calls.actor(),
    )  # fmt: skip


def insert_lines(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    line: Annotated[int, Field(description="After this line; 0: top, -1: end.")],
    text: Annotated[str, Field(description="Lines to insert.")],
    expected_version: ExpectedArg = None,
    snippet: SnippetArg = False,
    request_id: RequestIdArg = None,
) -> UseCase[r.EditResult]:
    """Insert lines after a line number; line 0 or -1 creates a missing file."""
    return lambda a: calls.store.insert_lines(
        a, path, line, text, expected_version, snippet=snippet, request_id=request_id, actor=calls.actor()
    )


def list_versions(calls: Calls, agent_id: AgentId, path: PathArg) -> UseCase[r.VersionList]:
    """A file's retained versions."""
    return lambda a: calls.store.list_versions(a, path)


def restore_version(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    version: Annotated[int, Field(description="Version to restore.")],
    expected_version: ExpectedArg = None,
    request_id: RequestIdArg = None,
) -> UseCase[r.WriteResult]:
    """Make a retained version current again, as a new version."""
    return lambda a: calls.store.restore_version(
        a, path, version, expected_version, request_id=request_id, actor=calls.actor()
    )


def delete_file(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    expected_version: ExpectedArg = None,
    request_id: RequestIdArg = None,
) -> UseCase[r.DeleteResult]:
    """Delete a file and its versions (not a log at its path)."""
    return lambda a: calls.store.delete_file(a, path, expected_version, request_id=request_id, actor=calls.actor())


def list_files(
    calls: Calls,
    agent_id: AgentId,
    prefix: PrefixArg = None,
    limit: Annotated[int | None, Field(description="Page size, 1-{max_list}; omit: all.")] = None,
    cursor: Annotated[str | None, Field(description="next_cursor of the last page.")] = None,
) -> UseCase[r.FileListing]:
    """Your files, by path."""
    return lambda a: calls.store.list_files(a, prefix, limit=limit, cursor=cursor)


def search_files(
    calls: Calls,
    agent_id: AgentId,
    query: Annotated[str, Field(description="Words; a question works.")],
    prefix: PrefixArg = None,
    max_results: Annotated[int, Field(description="At most this many, 1-{max_results}.")] = DEFAULT_SEARCH_RESULTS,
    exact: Annotated[bool, Field(description="Literal query.")] = False,
    regex: Annotated[bool, Field(description="RE2 pattern.")] = False,
    case_sensitive: Annotated[bool, Field(description="exact/regex: match case.")] = False,
) -> UseCase[r.SearchResult]:
    """Passages of files and logs with query's words, best first; exact/regex: lines, then entries."""
    return lambda a: calls.store.search_files(
        a, query, prefix, max_results=max_results, exact=exact, regex=regex, case_sensitive=case_sensitive
    )


def summarize_file(calls: Calls, agent_id: AgentId, path: PathArg) -> UseCase[r.SummaryResult]:
    """Cached summary of a file over {summary_chars} characters."""
    return lambda a: calls.store.summarize_file(a, path)
