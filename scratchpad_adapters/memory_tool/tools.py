"""Claude's memory tool (memory_20250818) on a scratchpad store, as the anthropic SDK's tool classes."""

from __future__ import annotations

from anthropic.lib.tools import BetaAbstractMemoryTool, BetaAsyncAbstractMemoryTool
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)
from anyio.to_thread import run_sync

from scratchpad_core.actors import LIBRARY
from scratchpad_core.service import Scratchpad

from .files import MemoryFiles


class ScratchpadMemoryTool(BetaAbstractMemoryTool):
    """The memory tool on `agent_id`'s files in `store`: /memories/notes.md is the file notes.md.

    Pass it to `client.beta.messages.tool_runner(tools=[...])`. Every change is a scratchpad version,
    delete or rename, so it can be listed, diffed and restored like any other; its versions record `actor`
    as who made them (e.g. "memory-tool:research-worker-3"; by default "library", as any library call).
    """

    def __init__(
        self,
        store: Scratchpad,
        agent_id: str,
        *,
        actor: str = LIBRARY,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.files = MemoryFiles(store, agent_id, actor)

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return self.files.view(command.path, command.view_range)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return self.files.create(command.path, command.file_text)

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return self.files.str_replace(command.path, command.old_str, command.new_str)

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return self.files.insert(command.path, command.insert_line, command.insert_text)

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return self.files.delete(command.path)

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return self.files.rename(command.old_path, command.new_path)

    def clear_all_memory(self) -> str:
        return self.files.clear_all_memory()


class AsyncScratchpadMemoryTool(BetaAsyncAbstractMemoryTool):
    """ScratchpadMemoryTool for the async client: each command runs in a worker thread, so the store's
    blocking database calls never stall the event loop."""

    def __init__(
        self,
        store: Scratchpad,
        agent_id: str,
        *,
        actor: str = LIBRARY,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ) -> None:
        super().__init__(cache_control=cache_control)
        self.files = MemoryFiles(store, agent_id, actor)

    async def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        return await run_sync(self.files.view, command.path, command.view_range)

    async def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        return await run_sync(self.files.create, command.path, command.file_text)

    async def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        return await run_sync(self.files.str_replace, command.path, command.old_str, command.new_str)

    async def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        return await run_sync(self.files.insert, command.path, command.insert_line, command.insert_text)

    async def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        return await run_sync(self.files.delete, command.path)

    async def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        return await run_sync(self.files.rename, command.old_path, command.new_path)

    async def clear_all_memory(self) -> str:
        return await run_sync(self.files.clear_all_memory)
