"""What every tool shares: the store and the call's facts it runs with (Calls), the hints its annotations give,
and the arguments several tools take, each with the description a model reads ({bounds} filled in later)."""

# No `from __future__ import annotations` here: the SDK reads these annotations at run time.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import Field

from scratchpad_core import results as r
from scratchpad_core.service import Scratchpad


@dataclass(frozen=True)
class Calls:
    """What a tool runs with besides its arguments: the store; max_read_bytes bounds a full read_file (None: no
    bound); actor() names who makes the call being run (its key, or the transport), which every version and log
    entry records; spaces() the agents its key may use (its own first), which get_usage_stats lists."""

    store: Scratchpad
    max_read_bytes: int | None
    actor: Callable[[], str]
    spaces: Callable[[], list[r.Space] | None]


READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
KEEP = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
DESTROY = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
REMOTE_READ = ToolAnnotations(read_only_hint=True, open_world_hint=True)

# The agent_id every tool declares; register_tools puts the server's own in its place (agent_argument).
AgentId = Annotated[str, Field(description="Your namespace, e.g. my-bot")]
PathArg = Annotated[str, Field(description="e.g. notes/plan.md")]
PrefixArg = Annotated[str | None, Field(description="Paths starting with this.")]
ExpectedArg = Annotated[int | None, Field(description="Refuse unless at this version (0: must not exist).")]
SnippetArg = Annotated[bool, Field(description="Also return the changed lines.")]
RequestIdArg = Annotated[str | None, Field(description="Same on retry: no redo.")]


def agent_argument(required: bool, *, writes: bool = True) -> Any:
    """agent_id: the caller's namespace (stdio, no keys); with keys, the key's own agent (omitted) or one it has a
    grant on (scratchpad_core.access.grants), a write grant for a writing tool."""
    if required:
        return AgentId
    granted = "one granted write" if writes else "a granted one"
    return Annotated[str | None, Field(default=None, description=f"Omit: your key's, or {granted}.")]
