"""One prompt that earns its place: `recall`, what an agent has stored, to pick up its work in a conversation.

A host shows prompts to the person (Claude Desktop's attachments, Claude Code's slash commands), never to the model
on every turn, so the prompt costs an agent nothing until a person picks it. Its message is the agent's index (files
with their versions, logs with their last entry ids) and how to catch up from it without re-reading: the same
rows list_files and list_logs return, read in one snapshot through the call runner (the caller's key decides the
agent, as for a tool). An unknown prompt, or an unknown argument, is the protocol's invalid-params error (-32602)
naming it and the valid ones.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    GetPromptRequestParams,
    GetPromptResult,
    ListPromptsResult,
    PaginatedRequestParams,
    Prompt,
    PromptArgument,
    PromptMessage,
    TextContent,
)

from scratchpad_core.errors import AccessDenied, InvalidInput, ScratchpadError
from scratchpad_core.results import FileListing, LogListing
from scratchpad_core.service import Scratchpad

from .calls import CallRunner, clipped

RECALL = "recall"
FILES_SHOWN = 100  # the first files by path; the message says how to list the rest
TTL_MS = 3_600_000  # the list of prompts changes only with the server's version


class Prompts:
    """prompts/list and prompts/get: the recall prompt over a store, for the agent the caller may read."""

    def __init__(self, store: Scratchpad, runner: CallRunner, *, agent_id_required: bool) -> None:
        self._store = store
        self._runner = runner
        who = "the agent's namespace" if agent_id_required else "the agent's namespace (default: the key's own)"
        self._prompt = Prompt(
            name=RECALL,
            title="Recall an agent's notes",
            description="What an agent has stored in scratchpad (files with versions, logs with last entries), "
            "and how to catch up on it without re-reading.",
            arguments=[PromptArgument(name="agent_id", description=who, required=agent_id_required)],
        )

    def register(self, server: Server[Any]) -> None:
        server.add_request_handler("prompts/list", PaginatedRequestParams, self.list_prompts)
        server.add_request_handler("prompts/get", GetPromptRequestParams, self.get_prompt)

    async def list_prompts(self, _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams) -> ListPromptsResult:
        return ListPromptsResult(prompts=[self._prompt], ttl_ms=TTL_MS, cache_scope="private")

    async def get_prompt(self, _ctx: ServerRequestContext[Any], params: GetPromptRequestParams) -> GetPromptResult:
        if params.name != RECALL:
            raise MCPError(
                INVALID_PARAMS,
                f"Unknown prompt: {clipped(params.name)!r}; valid: {RECALL}. Nothing was run; list the prompts.",
            )
        arguments = dict(params.arguments or {})
        unknown = sorted(set(arguments) - {"agent_id"})
        if unknown:
            names = ", ".join(repr(clipped(name, 64)) for name in unknown[:5])
            raise MCPError(INVALID_PARAMS, f"Unknown argument {names} for {RECALL}; valid: agent_id. Nothing was run.")

        def recall(agent_id: str) -> tuple[str, FileListing, LogListing]:
            return agent_id, self._store.list_files(agent_id, limit=FILES_SHOWN), self._store.list_logs(agent_id)

        try:
            agent_id, files, logs = await self._runner.access("prompts/get", arguments.get("agent_id"), recall)
        except ScratchpadError as error:
            refused = isinstance(error, (InvalidInput, AccessDenied))
            raise MCPError(INVALID_PARAMS if refused else INTERNAL_ERROR, error.message) from None
        text = recalled(agent_id, files, logs)
        message = PromptMessage(role="user", content=TextContent(type="text", text=text))
        return GetPromptResult(description=f"What agent {agent_id} has stored", messages=[message])


def recalled(agent_id: str, files: FileListing, logs: LogListing) -> str:
    """The prompt's message: the agent's index, and how to read on from it."""
    if not files.files and not logs.logs:
        return f"Agent {agent_id} has stored nothing in scratchpad yet (no files, no logs)."
    lines = [f"Agent {agent_id} has stored this in scratchpad (the agent_id of every call below is {agent_id!r})."]
    if files.files:
        more = f" (the first {FILES_SHOWN} by path; list_files with cursor={files.next_cursor!r} lists on)"
        lines.append(f"Files: path, current version, bytes{more if files.next_cursor else ''}:")
        lines += [f"- {f.path} v{f.current_version}, {f.bytes:,} B" for f in files.files]
    if logs.logs:
        lines.append("Logs: path, entries, last entry id:")
        lines += [f"- {g.path}: {entries(g.entries)}, last {g.last_entry_id}" for g in logs.logs]
    lines.append(
        "Read a file with read_file; once you hold version N, read_file with since_version=N returns only what "
        "changed (format='compact' is smallest). Read a log's newest entries with read_log tail=N, later ones with "
        "since_entry=the last entry id you saw. search_files finds passages by their words."
    )
    return "\n".join(lines)


def entries(count: int) -> str:
    return f"{count:,} entry" if count == 1 else f"{count:,} entries"
