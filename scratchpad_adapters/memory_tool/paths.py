"""Memory paths (/memories/...) to scratchpad paths, resolved and refused as the SDK's reference backend does.

/memories/notes/plan.md is the scratchpad path "notes/plan.md"; /memories itself is "" (the agent's root,
always a directory). The reference resolves the path under a real folder and refuses what lands outside
it; here the folder is a virtual one, so "..", "." and repeated slashes resolve the same way.
"""

from __future__ import annotations

import errno
import os
import posixpath

from anthropic.lib.tools import ToolError

from scratchpad_core.errors import InvalidPath, ScratchpadError
from scratchpad_core.paths import check_path
from scratchpad_core.refusals import LIBRARY, Words

MEMORIES = "/memories"
# Refusals in the memory tool's words: its commands (view, delete), not the MCP tools, which Claude has not got here.
WORDS = Words(
    arguments=LIBRARY.arguments,
    switched_on=LIBRARY.switched_on,
    steps={
        **LIBRARY.steps,
        "see_files": "View /memories to see the files.",
        "free_space": "free space with the delete command",
    },
)
_ROOT = "/\x00scratchpad/memories"  # stands for the reference's base folder + "/memories"


def resolve(path: str) -> str:
    """The scratchpad path a memory path names ("" for /memories), or the reference's refusal."""
    if not path.startswith(MEMORIES):
        raise ToolError(f"Path must start with /memories, got: {path}")
    relative = path[len(MEMORIES) :].lstrip("/")
    full = posixpath.normpath(f"{_ROOT}/{relative}") if relative else _ROOT
    if full == _ROOT:
        return ""
    if not full.startswith(_ROOT + "/"):
        raise ToolError(f"Path {path} would escape /memories directory")
    return full[len(_ROOT) + 1 :]


def ancestors(relative: str) -> list[str]:
    """The folders that hold `relative`, outermost first ("a/b/c" -> ["a", "a/b"])."""
    parts = relative.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def storable(relative: str) -> bool:
    """Whether scratchpad can hold a file at this path (one it cannot hold does not exist)."""
    try:
        check_path(relative)
    except InvalidPath:
        return False
    return True


def refused(verb: str, path: str, error: ScratchpadError) -> ToolError:
    """A scratchpad refusal (a stricter rule, a quota, the database) in the tool's words: what was refused, and why."""
    reason = error.refusal.worded(WORDS)
    if isinstance(error, InvalidPath) and reason.startswith("Invalid path: "):
        reason = "scratchpad's path rule: " + reason.removeprefix("Invalid path: ")
    return ToolError(f"Cannot {verb} {path}: {reason}")


def not_a_directory() -> OSError:
    """What the reference raises (an OSError, not a ToolError) when a folder of the path is a file."""
    return NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))


def into_itself() -> OSError:
    """What the reference raises when a folder is renamed into itself."""
    return OSError(errno.EINVAL, os.strerror(errno.EINVAL))
