"""POST /mcp bodies checked before the SDK reads them: the content type, the size, how long the body takes to
arrive, and the JSON-RPC message itself (server.wire). Each refusal is a JSON-RPC error in our own words, with the
request's id where one can be found (else id null), instead of the SDK's parser and validation internals. A leading
UTF-8 byte-order mark is dropped, as over stdio."""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
import mcp_types
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..server import wire, wire_params
from .direct import DirectHttp

log = logging.getLogger("scratchpad.http")

IDLE_SECONDS = 10.0  # the longest wait for the next part of a body
BODY_SECONDS = 60.0  # the longest a whole body may take to arrive


class BodyTooSlow(Exception):
    pass


class CheckedBody:
    """Reads a POST body (bounded in size and time), answers a broken message itself, and hands a good one to the
    SDK's app as if it came straight from the client."""

    idle_seconds = IDLE_SECONDS
    body_seconds = BODY_SECONDS

    def __init__(self, app: ASGIApp, max_bytes: int, direct: DirectHttp | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.direct = direct  # answers the plainest tool calls without the SDK (http.direct)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        content_type = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].strip().lower()
        if content_type != b"application/json":
            shown = content_type.decode("latin-1")[:80] or "none"
            message = f"Unsupported Media Type: Content-Type must be application/json, not {shown}. Nothing was run."
            await refuse(scope, receive, send, 415, [wire.Refusal(wire.NO_ID, wire.INVALID_REQUEST, message)])
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        size = int(declared) if declared.isdigit() else None
        too_large = size is not None and size > self.max_bytes  # refused after its first part (its id)
        body = bytearray()
        try:
            with anyio.fail_after(self.body_seconds):
                more = True
                while more:
                    with anyio.move_on_after(self.idle_seconds) as idle:
                        part = await receive()
                    if idle.cancelled_caught:
                        raise BodyTooSlow
                    if part["type"] != "http.request":
                        return  # the client went away
                    body += part.get("body", b"")
                    more = part.get("more_body", False)
                    if too_large or len(body) > self.max_bytes:
                        if not too_large:  # Content-Length absent or wrong: what arrived tells the size, if all did
                            size = None if more else len(body)
                        await self.too_large(scope, receive, send, bytes(body), size)
                        return
        except (TimeoutError, BodyTooSlow):
            message = (
                f"Request Timeout: the body did not arrive in time (each part within {self.idle_seconds:g} s, "
                f"all of it within {self.body_seconds:g} s). Nothing was run; send the request again."
            )
            head = bytes(body[: wire.KEPT_BYTES])
            await refuse(scope, receive, send, 408, [wire.Refusal(wire.found_id(head, b""), -32000, message)])
            return
        data = bytes(body).removeprefix(wire.BOM)
        checked = wire.check(data, wire.BODY_ADVICE)
        if isinstance(checked, list):
            await refuse(scope, receive, send, 400, checked)
            return
        if isinstance(checked, mcp_types.JSONRPCRequest):
            if self.direct is not None and (reply := await self.direct.answer(scope, receive, checked)) is not None:
                await Response(reply, media_type="application/json")(scope, receive, send)
                return
            send = explaining(send, checked)
        await self.app(scope, replay(data, receive), send)

    async def too_large(self, scope: Scope, receive: Receive, send: Send, body: bytes, size: int | None) -> None:
        """413, with the id if it came ahead of the params (or, when the whole body arrived, as its last key)."""
        tail = body[-wire.KEPT_BYTES :] if size == len(body) else b""
        refusals = wire.oversized(body[: wire.KEPT_BYTES], tail, size, self.max_bytes)
        await refuse(scope, receive, send, 413, refusals)


def replay(body: bytes, receive: Receive) -> Receive:
    """The receive channel of a request whose body was already read: the body once, then the client's own."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def explaining(send: Send, request: mcp_types.JSONRPCRequest) -> Send:
    """The response channel of a request, with the SDK's INVALID_PARAMS error that names nothing replaced by one
    that does (wire_params); the response start waits for the body, whose length may change."""
    held: Message | None = None

    async def explained(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start":
            held = message
            return
        if held is not None and message["type"] == "http.response.body":
            start, held = held, None
            body = message.get("body", b"")
            if not message.get("more_body", False) and wire_params.VAGUE.encode() in body:
                body = wire_params.rewritten(body, request.method, request.params)
                headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
                start = {**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
                message = {**message, "body": body}
            await send(start)
        await send(message)

    return explained


async def refuse(scope: Scope, receive: Receive, send: Send, status: int, refusals: list[wire.Refusal]) -> None:
    """The error(s) as the response: one JSON-RPC error, or one per request of a batch."""
    for refusal in refusals:
        log.info("refused a request: %s", refusal.message, extra={"event": "invalid_message", "status": status})
    payload: Any = [r.payload() for r in refusals] if len(refusals) > 1 else refusals[0].payload()
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=True).encode()
    await Response(body, status_code=status, media_type="application/json")(scope, receive, send)
