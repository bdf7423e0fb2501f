"""The agents a store holds, with their counters, page by page: for people looking at a store (the web view, the
command line's `agents`).

Read through the store's use cases (list_agents, find_agent) in a read-only snapshot: they count no operation,
and they leave out the files that have expired and are not yet pruned, as get_usage_stats and list_files do.
"""

from __future__ import annotations

from collections.abc import Sequence

from scratchpad_core.model import Usage
from scratchpad_core.service import Scratchpad

from .factory import Backend
from .viewing import viewing_store


class AgentDirectory:
    def __init__(self, store: Scratchpad) -> None:
        self._store = store

    def agents(self, after: str | None, limit: int) -> Sequence[Usage]:
        return self._store.list_agents(after, limit)

    def agent(self, agent_id: str) -> Usage:
        return self.found(agent_id) or Usage(agent_id)

    def found(self, agent_id: str) -> Usage | None:
        return self._store.find_agent(agent_id)


def agent_directory(backend: Backend) -> AgentDirectory:
    """The backend's agents, read as a viewer reads (closing the backend is enough)."""
    return AgentDirectory(viewing_store(backend))
