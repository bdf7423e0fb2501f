"""Our stdio transport, the direct answers to plain tool calls and the warm start."""
