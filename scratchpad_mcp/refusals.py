"""ScratchpadServer: the SDK's MCPServer, with its refusals before a tool runs told and logged like ours."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from .calls import CallRunner, clipped


def invalid_arguments(tool: str, error: ValidationError) -> str:
    """The SDK's argument check, told the way our own errors are: field, rule, what to do (no pydantic links)."""
    problems = []
    for detail in error.errors()[:5]:
        field = ".".join(str(part) for part in detail["loc"]) or "arguments"
        problems.append(f"{field}: {detail['msg']}")
    return f"Invalid arguments for {tool}: {'; '.join(problems)}. Nothing was run; fix the arguments and retry."


class ScratchpadServer(MCPServer):
    """MCPServer whose refusals before a tool runs (unknown tool, invalid arguments) read well and are logged."""

    def __init__(self, runner: CallRunner, **options: Any) -> None:
        super().__init__("scratchpad", **options)
        self._runner = runner
        self._tool_names: set[str] = set()

    def tool(self, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:  # type: ignore[override]
        """Register a tool; its docstring, folded to one line, is its description."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._tool_names.add(fn.__name__)
            description = " ".join((fn.__doc__ or "").split())
            return super(ScratchpadServer, self).tool(description=description, **options)(fn)

        return register

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            known = name in self._tool_names
            if not known:
                message = f"Unknown tool: {clipped(name)!r}. List the tools to see what this server offers."
            elif isinstance(error.__cause__, ValidationError):
                message = invalid_arguments(name, error.__cause__)
            else:
                message = str(error)
            outcome = "invalid_arguments" if known else "unknown_tool"
            self._runner.rejected(name, arguments.get("agent_id"), outcome, known_tool=known, reply=message)
            raise ToolError(message) from None
