"""Tool calls over streamable HTTP answered directly (stdio.direct_calls, handed over by the composition root),
when the SDK's transport would take the request as it is: a 2025 revision named once in MCP-Protocol-Version, no
session id (the server is stateless), one Content-Type of application/json (in lower case) and an Accept header
with it. Anything else goes on to the SDK, which answers, or refuses, as before. The Host and Origin were checked
before (the walls of settings.hosts, around every route), the key too (the SDK's RequireAuthMiddleware), and the
body by CheckedBody.

Over HTTP the SDK's stateless transport builds a transport, a session, streams and a task group per request:
most of a small call's server time (issue 9)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import mcp_types
from mcp.server.streamable_http import check_accept_headers
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import Receive, Scope

_VERSIONS = frozenset(version.encode() for version in HANDSHAKE_PROTOCOL_VERSIONS)


class DirectAnswers(Protocol):
    """The direct answers to plain tool calls (stdio.direct_calls.DirectCalls), as the composition root hands them."""

    async def answer(self, request_id: Any, method: str, params: Mapping[str, Any] | None) -> bytes | None: ...


class DirectHttp:
    def __init__(self, calls: DirectAnswers) -> None:
        self._calls = calls

    async def answer(self, scope: Scope, receive: Receive, message: mcp_types.JSONRPCRequest) -> bytes | None:
        """The response body for this request, or None when the SDK is to answer it."""
        headers: dict[bytes, list[bytes]] = {}
        for name, value in scope["headers"]:  # lower-case names; a header may come more than once
            headers.setdefault(name, []).append(value)
        versions, types = headers.get(b"mcp-protocol-version", []), headers.get(b"content-type", [])
        if len(versions) != 1 or versions[0] not in _VERSIONS or b"mcp-session-id" in headers:
            return None  # the SDK refuses a repeated version; a session id is the SDK's to answer
        if len(types) != 1 or types[0].split(b";")[0].strip() != b"application/json":
            return None  # the SDK compares the media type as it is written, case and all
        request = Request(scope, receive)
        if not check_accept_headers(request)[0]:
            return None
        return await self._calls.answer(message.id, message.method, message.params)
