"""The overview tools: read_changes (what changed in a whole space since a cursor) and get_usage_stats (usage,
quotas and, for a key's own agent, the spaces it may use)."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time.

import dataclasses
from typing import Annotated

from pydantic import Field

from scratchpad_core import results as r
from scratchpad_core.usecases.catchup import ChangesPage

from ..calls import UseCase
from .arguments import AgentId, Calls, PrefixArg


def read_changes(
    calls: Calls,
    agent_id: AgentId,
    since: Annotated[str | None, Field(description="Last cursor; omit: all.")] = None,
    prefix: PrefixArg = None,
    max_bytes: Annotated[int | None, Field(description="Page size.")] = None,
) -> UseCase[ChangesPage]:
    """File and log changes since a cursor: compact diffs, new entries; has_more: call again."""
    bound = max_bytes if max_bytes is not None else calls.max_read_bytes  # None: the use case's default
    return lambda a: calls.store.read_changes(a, since, prefix, bound)


def get_usage_stats(calls: Calls, agent_id: AgentId) -> UseCase[r.UsageStats]:
    """Your usage and quotas."""
    return lambda a: with_spaces(calls.store.get_usage_stats(a), calls.spaces())


def with_spaces(stats: r.UsageStats, spaces: list[r.Space] | None) -> r.UsageStats:
    """The stats, listing the key's spaces when they are of the key's own agent (listed first)."""
    own = spaces is not None and spaces[0].agent == stats.agent_id
    return dataclasses.replace(stats, spaces=spaces) if own else stats
