"""The overview tool: get_usage_stats (usage, quotas and, for a key's own agent, the spaces it may use)."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time.

import dataclasses

from scratchpad_core import results as r

from ..calls import UseCase
from .arguments import AgentId, Calls


def get_usage_stats(calls: Calls, agent_id: AgentId) -> UseCase[r.UsageStats]:
    """Your usage and quotas."""
    return lambda a: with_spaces(calls.store.get_usage_stats(a), calls.spaces())


def with_spaces(stats: r.UsageStats, spaces: list[r.Space] | None) -> r.UsageStats:
    """The stats, listing the key's spaces when they are of the key's own agent (listed first)."""
    own = spaces is not None and spaces[0].agent == stats.agent_id
    return dataclasses.replace(stats, spaces=spaces) if own else stats
