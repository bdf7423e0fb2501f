"""scratchpad over MCP: the entry points (launch, __main__) and the composition root (app) wiring the rooms.

The rooms, each a subpackage saying in its __init__ what lives there and what it may use: server (the MCP server
and its tools), settings, stdio (our stdio transport and the other speed-only paths), http, cli and web. Layers
point down (pyproject's import-linter contracts): server and settings <- stdio, http, cli, web (none imports
another) <- app and launch.
"""
