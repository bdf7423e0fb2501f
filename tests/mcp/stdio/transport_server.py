"""A tiny MCP server served by scratchpad_mcp.stdio.transport, whose tool sends the client notifications before it
answers and prints to stdout (which must not reach the wire). Run: python -m tests.mcp.stdio.transport_server"""

from __future__ import annotations

import logging
import sys
import warnings

from mcp.server.mcpserver import Context, MCPServer

from scratchpad_mcp.stdio import transport

# Plain log lines on stderr, as the tests read them: without this the SDK logs through rich when it is installed
# (import-linter brings it into the dev group), wrapping lines to a console's width.
logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
server = MCPServer("transport-test")


@server.tool()
async def shout(text: str, ctx: Context) -> str:
    """Upper-cases text, reporting progress first."""
    print("a stray print that must miss the wire")
    await ctx.report_progress(1, 2, "half way")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # logging is deprecated in 2026-07-28, still sent on 2025-11-25
        await ctx.info(f"shouting {len(text)} characters")
    return text.upper()


if __name__ == "__main__":
    transport.serve(server, int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20)
