"""Claude's memory tool (memory_20250818) backed by scratchpad: persistent, versioned, shared memory.

    tools=[ScratchpadMemoryTool(open_store(url), "research-bot")]   # or AsyncScratchpadMemoryTool

/memories/notes/plan.md is the agent's file notes/plan.md. Every command answers as the SDK's reference
backend (BetaLocalFilesystemMemoryTool) does after the same commands, to the character, including its
refusals (a ToolError, or the same OSError where the reference lets one out); every change is one
scratchpad transaction, so it can be listed, diffed and restored over MCP. What cannot be the same:

- Folders exist while a file lies under them (scratchpad stores files only). The reference keeps an empty
  folder after its last file is deleted or moved away (or after a rename that failed once it had made the
  destination's folder); here it is gone: view and delete say it does not exist, create and rename onto it work.
- A folder's size in a view is 4K (4096 bytes), what ext4 and most Linux file systems give a small folder (the reference
  shows its file system's size).
- Scratchpad's stricter rules refuse what the reference would store, naming the rule: create and rename to a
  path with characters outside [a-zA-Z0-9/_.-], over 255 characters or with '..' in a name ("Cannot create
  /memories/a b.md: scratchpad's path rule: ..."), content with NUL characters or over the file size limit,
  and writes past the agent's quotas. For the other commands such a path simply does not exist.
- A file and a folder at one path (possible when both were written over MCP) read as the file.
"""

from .tools import AsyncScratchpadMemoryTool, ScratchpadMemoryTool

__all__ = ["AsyncScratchpadMemoryTool", "ScratchpadMemoryTool"]
