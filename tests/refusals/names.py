"""The names a command-line or web refusal must not say: the MCP tools and their arguments as a call spells them."""

from __future__ import annotations

import re
from functools import cache

from scratchpad_adapters.factory import open_store
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller


@cache
def mcp_names() -> re.Pattern[str]:
    """Any tool's name, an argument name with an underscore (agent_id, since_version), any `argument=`, and the
    listing's next_cursor, as whole words."""
    with open_store("memory://") as store:
        tools = build_server(store, CallRunner(TrustedCaller()))._tool_manager.list_tools()
    arguments = {name for tool in tools for name in tool.parameters.get("properties", {})}
    words = {tool.name for tool in tools} | {a for a in arguments if "_" in a} | {"next_cursor"}
    spelled = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    set_to = "|".join(sorted(map(re.escape, arguments), key=len, reverse=True))
    return re.compile(rf"\b(?:{spelled})\b|\b(?:{set_to})=")


def assert_no_mcp_names(text: str) -> None:
    found = mcp_names().search(text)
    assert found is None, f"{found[0]!r} (an MCP name) in: {text}"
