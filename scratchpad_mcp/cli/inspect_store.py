"""The store an inspection command reads: opened without upgrading, refused when its schema is not this
version's, never written (its connections refuse writes, its use cases count nothing); and the one-line
refusals of what is not there."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from scratchpad_adapters import admin
from scratchpad_adapters.admin import SqlAgentActivity, safe_url
from scratchpad_adapters.agent_directory import AgentDirectory
from scratchpad_adapters.factory import SqlBackend
from scratchpad_adapters.memory import is_memory_url
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.errors import InvalidInput, NotFound
from scratchpad_core.paths import check_agent_id
from scratchpad_core.results import LogInfo
from scratchpad_core.service import Scratchpad

from ..settings.backend import open_configured
from .admin import in_memory, require_existing
from .invocation import Invocation

UPGRADE = "uv run scratchpad-mcp db upgrade"


@dataclass(frozen=True)
class Inspection:
    """What the commands read through: the use cases (counting nothing), the agents and their activity."""

    store: Scratchpad
    agents: AgentDirectory
    activity: SqlAgentActivity

    def agent(self, agent_id: str) -> str:
        """`agent_id`, refused in one line when the store has never heard of it."""
        agent_id = check_agent_id(agent_id)
        if not self.activity.known(agent_id):
            raise NotFound(f"No agent {agent_id!r} in this database; `scratchpad-mcp agents` lists the agents.")
        return agent_id

    def log(self, agent_id: str, path: str) -> LogInfo:
        """The agent's log at `path`, refused in one line when there is none."""
        found = [log for log in self.store.list_logs(self.agent(agent_id), prefix=path).logs if log.path == path]
        if not found or found[0].entries == 0:
            raise NotFound(f"Log not found: {path} (agent {agent_id!r}); `scratchpad-mcp logs` lists its logs.")
        return found[0]


@contextlib.contextmanager
def inspecting(invocation: Invocation) -> Iterator[Inspection]:
    """The store the settings name, for reading: it must exist and its schema must be at this version's head."""
    settings = invocation.begin()
    url = settings.database_url
    if is_memory_url(url):  # a new, empty store in this process: nothing to look at
        raise in_memory(url, "inspection commands work")
    require_existing(url)
    backend = open_configured(settings, upgrade=False)
    try:
        assert isinstance(backend, SqlBackend), "every URL but memory:// opens a SQL backend"
        admin.open_read_only(backend.engine)  # before its first connection
        _check_schema(url, admin.schema_revision(backend.engine))
        store = viewing_store(backend)
        yield Inspection(store, AgentDirectory(store), SqlAgentActivity(backend.engine))
    finally:
        backend.close()


def _check_schema(url: str, current: str | None) -> None:
    head = admin.head_revision()
    if current == head:
        return
    if current is None:
        raise InvalidInput(f"{safe_url(url)} holds no scratchpad data (no schema). Check the database URL.")
    if not admin.is_known(current):
        raise InvalidInput(
            f"The schema of {safe_url(url)} is at {current}, unknown to this scratchpad-mcp (head {head}): "
            "a newer version made it; inspect it with that version."
        )
    raise InvalidInput(
        f"The schema of {safe_url(url)} is at {current}, behind this scratchpad-mcp's {head}; inspection "
        f"never changes a database: run `{UPGRADE}` first (or inspect it with the version that wrote it)."
    )
