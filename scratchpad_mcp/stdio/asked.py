"""What the stdio transport keeps of a connection's requests: those still with the SDK (to word its vague errors,
and to keep direct calls in turn), the handshake's revision, and a warm start's answers."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import mcp_types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from ..server import wire_params

log = logging.getLogger("scratchpad.stdio")

STREAMS = frozenset({"subscriptions/listen"})  # requests answered only when the client lets go of them
STREAM_GRACE = 0.25  # seconds in which a refused stream is answered (at the end of stdin, it is waited for)


class Asked:
    """The client's requests in flight (method and params by id), to put words to the SDK's INVALID_PARAMS
    errors that name nothing (wire_params), whether initialize has been answered, and whether it agreed on a 2025
    revision (legacy: the connection keeps the handshake's session). With a warm start: the requests it answered
    already (id, method, result), whose replies are dropped (once each; one unlike the result given is logged),
    and where the replies to a host's first requests are kept."""

    def __init__(
        self,
        answered: Sequence[tuple[Any, str, Any]] = (),
        record: Callable[[str, Any, dict[str, Any]], None] | None = None,
    ) -> None:
        self._pending: dict[Any, tuple[str, Any, float]] = {}  # by id: method, params, when it was asked
        self._answered = list(answered)
        self._record = record
        self.initialized = False
        self.legacy = False
        for _, method, result in self._answered:  # the client has its handshake: as if the server had answered it
            if method == "initialize":
                self.initialized = True
                self.legacy = result.get("protocolVersion") not in MODERN_PROTOCOL_VERSIONS

    def direct_ok(self) -> bool:
        """Whether a request may be answered here and now, without the SDK: on a 2025 connection, and with no
        request before it still with the SDK (it would overtake it: a write, then a read of what it wrote), but
        for the subscription streams, which stay open and change nothing, and the requests a warm start answered
        already (a handshake, a listing: the SDK's replies to them are dropped, and they change nothing)."""
        early = {request_id for request_id, _, _ in self._answered} if self._answered else ()
        return self.legacy and all(
            method in STREAMS or request_id in early for request_id, (method, _, _) in self._pending.items()
        )

    def owed(self) -> bool:
        """Whether a request is still with the SDK, its reply owed: any but a subscription stream, which lasts, and
        that only for its first STREAM_GRACE seconds (when a refused one gets its error)."""
        recent = time.monotonic() - STREAM_GRACE
        return any(method not in STREAMS or asked > recent for method, _, asked in self._pending.values())

    def received(self, message: mcp_types.JSONRPCMessage) -> None:
        if isinstance(message, mcp_types.JSONRPCRequest):
            self._pending[message.id] = (message.method, message.params, time.monotonic())
        elif isinstance(message, mcp_types.JSONRPCNotification) and message.method == "notifications/cancelled":
            cancelled = (message.params or {}).get("requestId")  # its reply may never come: none is owed
            if isinstance(cancelled, int | str) and not isinstance(cancelled, bool):
                self._pending.pop(cancelled, None)

    def answered(self, message: mcp_types.JSONRPCMessage) -> mcp_types.JSONRPCMessage | None:
        """The message to write (None: a reply the warm start gave already)."""
        if not isinstance(message, (mcp_types.JSONRPCResponse, mcp_types.JSONRPCError)):
            return message
        method, params, _ = self._pending.pop(message.id, (None, None, 0.0))
        if isinstance(message, mcp_types.JSONRPCResponse):
            if method == "initialize":
                self.initialized = True
                self.legacy = message.result.get("protocolVersion") not in MODERN_PROTOCOL_VERSIONS
            if method is not None and self._record is not None:
                self._record(method, params, message.result)
        given = next((early for early in self._answered if early[0] == message.id), None)
        if given is not None:
            self._answered.remove(given)
            if not isinstance(message, mcp_types.JSONRPCResponse) or message.result != given[2]:
                log.warning(
                    "the reply given early to %s (request %r) is not the server's own (a result of the server's is "
                    "what the next start recalls; if the package's are out of date: python -m "
                    "scratchpad_mcp.stdio.first_replies --write)",
                    method, message.id, extra={"event": "early_reply_differs", "method": method},
                )  # fmt: skip
            return None
        if isinstance(message, mcp_types.JSONRPCResponse):
            return message
        if method is None or not wire_params.is_vague(message.error.code, message.error.message):
            return message
        text = wire_params.explained(method, params, initialized=self.initialized)
        error = mcp_types.ErrorData(code=message.error.code, message=text)
        return mcp_types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
