"""The log tools: append, read, list and delete. Each takes the Calls it runs with and its arguments, and returns
the use case to run for the calling agent."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time.

from typing import Annotated

from pydantic import Field

from scratchpad_core import results as r

from ..calls import UseCase
from .arguments import AgentId, Calls, PathArg, PrefixArg, RequestIdArg


def append_log(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    entry: Annotated[str, Field(description="Up to {max_entry_bytes}.")],
    request_id: RequestIdArg = None,
) -> UseCase[r.AppendResult]:
    """Append an entry to a log (made on first use); returns its entry_id."""
    return lambda a: calls.store.append_log(a, path, entry, request_id=request_id, actor=calls.actor())


def read_log(
    calls: Calls,
    agent_id: AgentId,
    path: PathArg,
    since_entry: Annotated[int | None, Field(description="last_entry_id you got; omit: from the start.")] = None,
    limit: Annotated[int | None, Field(description="Page size, 1-{log_page}.")] = None,
    tail: Annotated[int | None, Field(description="Instead, the newest N (1-{log_page}).")] = None,
    show_by: Annotated[bool, Field(description="Say who wrote each entry.")] = False,
) -> UseCase[r.LogPage]:
    """Log entries after since_entry, oldest first; if has_more, call again with last_entry_id."""
    return lambda a: calls.store.read_log(a, path, since_entry, limit=limit, tail=tail, show_by=show_by)


def list_logs(calls: Calls, agent_id: AgentId, prefix: PrefixArg = None) -> UseCase[r.LogListing]:
    """Your logs and their sizes."""
    return lambda a: calls.store.list_logs(a, prefix)


def delete_log(
    calls: Calls, agent_id: AgentId, path: PathArg, request_id: RequestIdArg = None
) -> UseCase[r.DeleteLogResult]:
    """Delete a log, freeing its quota."""
    return lambda a: calls.store.delete_log(a, path, request_id=request_id, actor=calls.actor())
