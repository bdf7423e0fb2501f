"""ScratchpadServer: the SDK's MCPServer, with its refusals before a tool runs told and logged like ours."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from .calls import CallRunner, clipped
from .schemas import lean, property_names


def invalid_arguments(tool: str, error: ValidationError) -> str:
    """The SDK's argument check, told the way our own errors are: field, rule, what to do (no pydantic links)."""
    problems = []
    for detail in error.errors()[:5]:
        field = ".".join(str(part) for part in detail["loc"]) or "arguments"
        problems.append(f"{field}: {detail['msg']}")
    return f"Invalid arguments for {tool}: {'; '.join(problems)}. Nothing was run; fix the arguments and retry."


class ScratchpadServer(MCPServer):
    """MCPServer whose tools advertise lean schemas, refuse unknown arguments, and whose refusals before a tool
    runs (unknown tool, unknown or invalid arguments) read well and are logged."""

    def __init__(self, runner: CallRunner, *, bounds: Mapping[str, str] | None = None, **options: Any) -> None:
        super().__init__("scratchpad", **options)
        self._runner = runner
        self._bounds = dict(bounds or {})
        self._arguments: dict[str, list[str]] = {}  # each tool's argument names, in order

    def tool(self, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:  # type: ignore[override]
        """Register a tool: its docstring, folded to one line with {bounds} filled in, is its description; its
        annotations say whether it only reads (for read-only keys)."""

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            description = " ".join((fn.__doc__ or "").split()).format(**self._bounds)
            registered = super(ScratchpadServer, self).tool(description=description, **options)(fn)
            tool = self._tool_manager.get_tool(fn.__name__)
            assert tool is not None
            tool.parameters = lean(self._described(tool.parameters), closed=True)
            if tool.fn_metadata.output_schema is not None:
                tool.fn_metadata.output_schema = lean(tool.fn_metadata.output_schema)
            self._arguments[tool.name] = property_names(tool.parameters)
            hints = options.get("annotations")
            self._runner.declare(tool.name, read_only=bool(hints and hints.read_only_hint))
            return registered

        return register

    def _described(self, schema: dict[str, Any]) -> dict[str, Any]:
        properties = {
            name: {**prop, "description": prop["description"].format(**self._bounds)} if "description" in prop else prop
            for name, prop in schema.get("properties", {}).items()
        }
        return {**schema, "properties": properties}

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        valid = self._arguments.get(name)
        unknown = [key for key in arguments if valid is not None and key not in valid]
        if valid is not None and unknown:
            message = unknown_arguments(name, unknown, valid)
            self._runner.rejected(name, arguments.get("agent_id"), "invalid_arguments", known_tool=True, reply=message)
            raise ToolError(message)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            known = valid is not None
            if not known:
                message = f"Unknown tool: {clipped(name)!r}. List the tools to see what this server offers."
            elif isinstance(error.__cause__, ValidationError):
                message = invalid_arguments(name, error.__cause__)
            else:
                message = str(error)
            outcome = "invalid_arguments" if known else "unknown_tool"
            self._runner.rejected(name, arguments.get("agent_id"), outcome, known_tool=known, reply=message)
            raise ToolError(message) from None


def unknown_arguments(tool: str, unknown: list[str], valid: list[str]) -> str:
    """One line naming the unknown argument(s) and the valid ones: a misspelled argument is never ignored."""
    names = ", ".join(repr(clipped(key, 64)) for key in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
    noun = "argument" if len(unknown) == 1 else "arguments"
    return f"Unknown {noun} {names} for {tool}; valid: {', '.join(valid)}. Nothing was run; fix the name and retry."
