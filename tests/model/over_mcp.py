"""The model-based test's calls sent over MCP: one stdio server process (a real client over its pipes) for a
whole run, driven from the state machine's synchronous rules through a blocking portal."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

from anyio.from_thread import start_blocking_portal
from mcp import Client, StdioServerParameters

from scratchpad_core.limits import Limits
from tests.mcp.helpers import console_script, server_env

# (agent, tool, arguments, request_id) -> the reply's structured content; raises Refused for a tool error
Remote = Callable[[str, str, dict[str, Any], "str | None"], dict[str, Any]]


class Refused(Exception):
    """The server answered with a tool error (its text carries no kind to compare)."""


def limit_variables(limits: Limits) -> dict[str, str]:
    """The SCRATCHPAD_* variables that give a server these limits."""
    return {f"SCRATCHPAD_{f.name.upper()}": str(getattr(limits, f.name)) for f in dataclasses.fields(limits)}


@contextlib.contextmanager
def stdio_remote(url: str, limits: Limits) -> Iterator[Remote]:
    env = {**server_env(SCRATCHPAD_DATABASE_URL=url, SCRATCHPAD_LOG_LEVEL="warning"), **limit_variables(limits)}
    params = StdioServerParameters(command=console_script(), env=env)
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(params)) as client:

        def call(agent: str, tool: str, arguments: dict[str, Any], request_id: str | None) -> dict[str, Any]:
            sent = {"agent_id": agent, **arguments, **({"request_id": request_id} if request_id else {})}
            result = portal.call(client.call_tool, tool, sent)
            if result.is_error:
                raise Refused(result.content[0].text if result.content else "")
            assert isinstance(result.structured_content, dict), result
            return result.structured_content

        yield call
