"""tools/call answered without the SDK's request pipeline, when the SDK would run the call exactly the same way.

The SDK takes a tool call through a task of its own, two middleware layers, three validations of the request and
two of the result (its output schema, then the protocol revision's result type) and three serializations; for a
small call that was about half the server's time (issue 9: taking it away, a 1 KiB read_file over stdio went from
0.41 to 0.22 ms of server CPU a call, bench.speed). A call
answered here goes through what decides its outcome, and only that: the SDK's own argument check
(`FuncMetadata.validate_arguments`), the tool's function (the call runner, its gates and its log line) and one
encoding of the reply, in the SDK's wire form (replies.encoded_response).

Only the plainest call is taken: a request on a connection that shook hands in a 2025 revision, carrying no
`_meta` (no progress token, no 2026-07-28 envelope), for a tool of ours that is not slow, with arguments that
pass the check. Anything else returns None and goes to the SDK as before, so every refusal (unknown tool or
argument, invalid arguments, a bad envelope) keeps its words and its log line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..server import DirectTool
from ..server.replies import encoded_response


class DirectCalls:
    """Answers the plainest tools/call requests for the tools given (see the module's docstring)."""

    def __init__(self, tools: Mapping[str, DirectTool]) -> None:
        self._tools = dict(tools)

    async def answer(self, request_id: Any, method: str, params: Mapping[str, Any] | None) -> bytes | None:
        """The reply to a request, as one line's JSON, or None when the SDK is to answer it."""
        if method == "ping" and not params:
            return encoded_response(request_id, None)  # the SDK's reply to a ping, whatever it carried, is {}
        if method != "tools/call" or params is None or not params.keys() <= {"name", "arguments"}:
            return None
        name, arguments = params.get("name"), params.get("arguments")
        tool = self._tools.get(name) if isinstance(name, str) else None
        if arguments is None:
            arguments = {}
        if tool is None or not isinstance(arguments, dict) or not arguments.keys() <= tool.names:
            return None
        try:
            validated = tool.metadata.validate_arguments(arguments)
        except Exception:
            return None
        return encoded_response(request_id, await tool.run(**validated))
