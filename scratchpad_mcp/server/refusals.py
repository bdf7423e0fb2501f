"""A refusal as an MCP tool result: one line of text in the tools' words, and the refusal as data.

The text names tool arguments and tools (`exact=true`, `list_files`): the tools are the library's methods, so
its words (scratchpad_core.refusals.LIBRARY) are theirs. The data goes in the result's `_meta`, under
META_KEY: {"code", "retryable"}, the argument at fault as the tool names it, and the refusal's numeric facts
(limits, versions, counts, seconds to wait), e.g.
    {"code": "version_conflict", "retryable": false, "argument": "expected_version", "expected": 3, "current": 4}

Not in structuredContent: a client validates structuredContent against the tool's output schema, and the
TypeScript SDK's client (1.32) does so on error results too, so a refusal's fields there would turn every
refusal into a schema failure for tools that declare an output schema (all of ours do).
"""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent

from scratchpad_core.errors import ScratchpadError
from scratchpad_core.refusals import LIBRARY, Refusal

META_KEY = "scratchpad/refusal"


def refused(error: ScratchpadError) -> CallToolResult:
    """The error result a tool call gets for `error`."""
    refusal = error.refusal
    text = TextContent(type="text", text=refusal.worded(LIBRARY))
    return CallToolResult(content=[text], is_error=True, _meta={META_KEY: refusal_data(refusal)})


def refusal_data(refusal: Refusal) -> dict[str, Any]:
    """The refusal as data: its code, whether a retry can help, the argument at fault, its numeric facts."""
    data: dict[str, Any] = {"code": refusal.code, "retryable": refusal.retryable}
    if refusal.argument is not None:
        data["argument"] = refusal.argument  # the tools' arguments keep the neutral names
    numbers = {k: v for k, v in refusal.facts.items() if isinstance(v, int | float) and not isinstance(v, bool)}
    return data | numbers
