"""The MCP server, its tools, calls, replies, resources, subscriptions, wire checks; uses core, adapters, the SDK.

build_server() wires the tools to a store and a call runner; ScratchpadServer is the SDK's MCPServer with lean
schemas, and with its refusals before a tool runs told and logged like ours. Beside it: tools (what a model
reads), calls (one call: caller policy, gates, observers), replies, schemas, resources, subscriptions and
change_hub, log_lines (logging), and the JSON-RPC checks both transports apply to a message (wire, wire_params).
Nothing here imports a transport, the command line, the web view or the settings."""

from __future__ import annotations

import functools
import importlib.metadata
import inspect
import typing
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from mcp.server.auth.provider import TokenVerifier
from mcp.server.auth.settings import AuthSettings
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, InputRequiredResult, ServerCapabilities, ToolAnnotations
from pydantic import ValidationError

from scratchpad_core.changes import ChangeFeed
from scratchpad_core.limits import payload_bytes
from scratchpad_core.service import Scratchpad

from .calls import CallRunner, clipped
from .prompts import Prompts
from .resources import FileResources, FileUris
from .schemas import lean, property_names, unchecked_rows
from .subscriptions import FileSubscriptions
from .tools import INSTRUCTIONS, Builder, register_tools, tool_bounds


@dataclass(frozen=True)
class DirectTool:
    """A tool as the SDK registered it: its argument check, its argument names, and its function (for the calls
    answered without the SDK's pipeline: stdio.direct_calls)."""

    metadata: FuncMetadata
    names: frozenset[str]
    run: Callable[..., Awaitable[CallToolResult]]


def build_server(
    store: Scratchpad,
    runner: CallRunner,
    *,
    agent_id_required: bool = True,
    token_verifier: TokenVerifier | None = None,
    auth: AuthSettings | None = None,
    max_read_bytes: int | None = None,
    changes: Callable[[], ChangeFeed] | None = None,
    sessions: bool = False,
) -> ScratchpadServer:
    """The MCP server; with a token verifier, callers need a key and agent_id becomes optional; max_read_bytes
    bounds a full read_file's content (None: no bound). Files are resources; with a change feed (opened at the
    first subscription) clients may subscribe to them, also by resources/subscribe when the transport keeps
    sessions (stdio).

    Each call hands its use case to the runner, which runs it inline (stdio: one client, and SQLite
    serializes writers anyway) or on a worker thread (HTTP: many clients at once).
    """
    mcp = ScratchpadServer(
        runner,
        bounds=tool_bounds(store.limits),
        instructions=INSTRUCTIONS,
        version=package_version(),
        log_level="WARNING",
        token_verifier=token_verifier,
        auth=auth,
        subscriptions=False,  # ours, below: they hear of the store's changes, each caller of its own agent's
    )
    register_tools(
        mcp, store, agent_id_required=agent_id_required, max_read_bytes=max_read_bytes, actor=runner.actor,
        spaces=runner.spaces,
    )  # fmt: skip
    uris = FileUris(keyed=token_verifier is not None)
    FileResources(store, runner, uris).register(mcp.lowlevel)
    Prompts(store, runner, agent_id_required=agent_id_required).register(mcp.lowlevel)
    if changes is not None:
        verify = None if token_verifier is None else token_verifier.verify_token
        FileSubscriptions(changes, uris, runner, sessions=sessions, verify=verify).register(mcp.lowlevel)
    return mcp


def unchanging_lists(capabilities: Callable[..., ServerCapabilities]) -> Callable[..., ServerCapabilities]:
    """The server's capabilities, saying that its lists of tools and prompts never change (they do not): the SDK
    says listChanged true on the 2026-07-28 revision wherever subscriptions/listen is served, false on 2025-11-25."""

    @functools.wraps(capabilities)
    def fixed(*args: Any, **kwargs: Any) -> ServerCapabilities:
        found = capabilities(*args, **kwargs)
        fixed_lists = {
            name: listed.model_copy(update={"list_changed": False})
            for name in ("tools", "prompts")
            if (listed := getattr(found, name)) is not None
        }
        return found.model_copy(update=fixed_lists)

    return fixed


def package_version() -> str:
    """The installed scratchpad-mcp's version (serverInfo.version); a tree run without installing has none."""
    try:
        return importlib.metadata.version("scratchpad-mcp")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


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
        lowlevel = self._lowlevel_server
        lowlevel.get_capabilities = unchanging_lists(lowlevel.get_capabilities)  # type: ignore[method-assign]
        self._runner = runner
        self._bounds = dict(bounds or {})
        self._arguments: dict[str, list[str]] = {}  # each tool's argument names, in order
        self._direct: dict[str, DirectTool] = {}  # the tools a call may reach without the SDK's pipeline

    @property
    def direct_tools(self) -> Mapping[str, DirectTool]:
        """The tools that are not slow, for calls answered without the SDK's pipeline (direct_calls)."""
        return self._direct

    @property
    def lowlevel(self) -> Server[Any]:
        """The SDK's low-level server under this one, for request handlers of our own (resources, subscriptions)."""
        return self._lowlevel_server

    def tool(  # type: ignore[override]
        self, *, annotations: ToolAnnotations, payload: Sequence[str] = (), slow: bool = False
    ) -> Callable[[Builder], Builder]:
        """Register a tool from a function that takes its arguments and returns its use case (`-> UseCase[R]`).

        The tool the SDK sees has the function's name and arguments and replies with R; its docstring, folded to
        one line with {bounds} filled in, is its description. A call hands the use case to the runner, with
        whether the tool only reads (from its annotations: read-only keys may call it), the size of its payload
        (the arguments named in `payload`: bytes_in in the call log) and whether it is slow.
        """

        def register(build: Builder) -> Builder:
            description = " ".join((build.__doc__ or "").split()).format(**self._bounds)
            runs = self._tool_function(build, bool(annotations.read_only_hint), tuple(payload), slow)
            super(ScratchpadServer, self).tool(description=description, annotations=annotations)(runs)
            tool = self._tool_manager.get_tool(build.__name__)
            assert tool is not None
            tool.parameters = lean(self._described(tool.parameters), closed=True)
            if tool.fn_metadata.output_schema is not None:
                tool.fn_metadata.output_schema = unchecked_rows(lean(tool.fn_metadata.output_schema))
            self._arguments[tool.name] = property_names(tool.parameters)
            if not slow:
                self._direct[tool.name] = DirectTool(tool.fn_metadata, frozenset(self._arguments[tool.name]), tool.fn)
            return build

        return register

    def _tool_function(
        self, build: Builder, read_only: bool, payload: tuple[str, ...], slow: bool
    ) -> Callable[..., Awaitable[CallToolResult]]:
        """What the SDK registers for `build`: its name and arguments, replying with what its use case returns."""
        name, signature = build.__name__, inspect.signature(build)
        assert {"agent_id", *payload} <= set(signature.parameters), f"{name}: unknown payload {payload}"
        result = typing.get_args(signature.return_annotation)[-1]  # R of UseCase[R], i.e. Callable[[str], R]

        async def call(**arguments: Any) -> CallToolResult:
            size = payload_bytes(*(arguments[argument] for argument in payload))
            use_case = build(**arguments)
            return await self._runner.call(
                name, arguments["agent_id"], use_case, read_only=read_only, bytes_in=size, slow=slow
            )

        function: Any = call
        function.__name__ = function.__qualname__ = name
        function.__signature__ = signature.replace(return_annotation=Annotated[CallToolResult, result])
        return call

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
        if valid is None:  # a protocol error (-32602), as the specification lists unknown tools, not a tool result
            message = unknown_tool(name, list(self._arguments))
            self._runner.rejected(name, arguments.get("agent_id"), "unknown_tool", known_tool=False, reply=message)
            raise MCPError(code=INVALID_PARAMS, message=message)
        unknown = [key for key in arguments if key not in valid]
        if unknown:
            message = unknown_arguments(name, unknown, valid)
            self._runner.rejected(name, arguments.get("agent_id"), "invalid_arguments", known_tool=True, reply=message)
            raise ToolError(message)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise
        except ToolError as error:
            if isinstance(error.__cause__, ValidationError):
                message = invalid_arguments(name, error.__cause__)
            else:
                message = str(error)
            self._runner.rejected(name, arguments.get("agent_id"), "invalid_arguments", known_tool=True, reply=message)
            raise ToolError(message) from None


def unknown_tool(name: str, valid: list[str]) -> str:
    """One line naming the unknown tool and the valid ones."""
    return f"Unknown tool: {clipped(name)!r}; valid: {', '.join(valid)}. Nothing was run; call one of these."


def unknown_arguments(tool: str, unknown: list[str], valid: list[str]) -> str:
    """One line naming the unknown argument(s) and the valid ones: a misspelled argument is never ignored."""
    names = ", ".join(repr(clipped(key, 64)) for key in unknown[:5]) + (", ..." if len(unknown) > 5 else "")
    noun = "argument" if len(unknown) == 1 else "arguments"
    return f"Unknown {noun} {names} for {tool}; valid: {', '.join(valid)}. Nothing was run; fix the name and retry."
