"""MCP over stdio on the event loop's own pipes: the same message streams the SDK's stdio_server() gives its
server session (so both protocol revisions and server-to-client notifications work as they do there), without a
worker thread per line read or written, and with every request answered.

Lines are split on "\\n" only and bounded by max_message_bytes (6 x SCRATCHPAD_MAX_FILE_BYTES + 64 KiB, the HTTP
body bound); a leading UTF-8 byte-order mark is dropped. A line the SDK would drop or choke on (see server.wire) is
answered here with a JSON-RPC error naming what was wrong: with its id, or with id null when none can be found
(garbage, an id of the wrong type), as JSON-RPC 2.0 and our HTTP transport have it. The SDK's client logs such an
answer and goes on. Notifications, blank lines and broken responses get no answer (the last with a log line). A
reply that cannot be encoded becomes an internal error for its request, so the writer never stops.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream, create_context_streams
from mcp.shared.message import SessionMessage
from pydantic_core import PydanticSerializationError

from ..server import wire
from . import pipes
from .asked import Asked
from .direct_calls import DirectCalls
from .lines import Oversized, lines
from .pipes import Sink

if TYPE_CHECKING:
    from .warm_start import WarmStart

log = logging.getLogger("scratchpad.stdio")

DRAIN_SECONDS = 30.0  # at the end of stdin, how long the requests still running may take to be answered

Streams = tuple[ContextReceiveStream[SessionMessage | Exception], ContextSendStream[SessionMessage]]


def serve(
    server: MCPServer, max_line_bytes: int, direct: DirectCalls | None = None, warm: WarmStart | None = None
) -> None:
    """Serve `server` over this process's stdin and stdout until stdin ends; `direct` answers the tool calls it
    takes without the SDK's pipeline; `warm` hands over what it read and answered before (stdio.warm_start)."""
    anyio.run(serve_async, server, max_line_bytes, direct, warm)


def exit_past_abandoned_calls(grace: float = 1.0) -> None:
    """End the process now if a call given up on is still running (see calls: a slow call cancelled, or cut off
    at the end of stdin after DRAIN_SECONDS): it runs on a worker thread that Python would wait for at exit, for
    as long as the call takes (a summary: up to its retries' timeouts, minutes), with no one to reply to. What
    it has not committed is rolled back, as after a crash. Idle worker threads end within `grace`."""
    others = [thread for thread in threading.enumerate() if thread is not threading.main_thread() and not thread.daemon]
    deadline = time.monotonic() + grace
    for thread in others:
        thread.join(max(0.0, deadline - time.monotonic()))
    running = sum(thread.is_alive() for thread in others)
    if running:
        log.warning(
            "exiting with %d call(s) still running that no client waits for", running,
            extra={"event": "abandoned_calls", "running": running},
        )  # fmt: skip
        logging.shutdown()
        os._exit(0)


async def serve_async(
    server: MCPServer, max_line_bytes: int, direct: DirectCalls | None = None, warm: WarmStart | None = None
) -> None:
    lowlevel = server._lowlevel_server  # what MCPServer.run_stdio_async serves, given our streams instead
    async with stdio_streams(max_line_bytes, direct, warm) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


@contextlib.asynccontextmanager
async def stdio_streams(
    max_line_bytes: int, direct: DirectCalls | None = None, warm: WarmStart | None = None
) -> AsyncIterator[Streams]:
    """The process's stdin and stdout as the SDK's session streams, while fd 0 reads /dev/null and fd 1 writes to
    stderr (stray reads and prints miss the wire)."""
    unread, answered = warm.handover() if warm is not None else (b"", [])
    sys.stdout.flush()
    with (
        open(os.devnull, "rb") as null,
        pipes.claimed(0, null.fileno()) as stdin_fd,
        pipes.claimed(1, 2) as stdout_fd,
    ):
        out = pipes.Guarded(await pipes.sink(stdout_fd))
        try:
            source = pipes.Prefixed(unread, await pipes.source(stdin_fd))
            asked = Asked(answered, None if warm is None else warm.record)
            async with streams(source, out, max_line_bytes, direct, asked) as pair:
                yield pair
        finally:
            await out.aclose()


@contextlib.asynccontextmanager
async def streams(
    source: pipes.Source,
    out: Sink,
    max_line_bytes: int,
    direct: DirectCalls | None = None,
    asked: Asked | None = None,
) -> AsyncIterator[Streams]:
    """A reader task turning lines into session messages (answering refusals itself, and the tool calls `direct`
    takes once a 2025 handshake is done, in turn: see Asked.direct_ok) and a writer task turning the session's
    messages into lines, for as long as the block runs."""
    read_writer, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_reader = create_context_streams[SessionMessage](0)
    asked = asked or Asked()

    async def reader() -> None:
        async with read_writer:
            async for line in lines(source, max_line_bytes):
                checked = received(line, max_line_bytes)
                if isinstance(checked, list):
                    await answer(out, checked)
                    continue
                if direct is not None and asked.direct_ok() and isinstance(checked, mcp_types.JSONRPCRequest):
                    try:
                        reply = await direct.answer(checked.id, checked.method, checked.params)
                    except UnicodeEncodeError:
                        log.exception("a reply to tools/call could not be encoded as JSON")
                        reply = unencodable(checked.id)
                    if reply is not None:
                        await out.write(reply + b"\n")
                        continue
                asked.received(checked)
                try:
                    await read_writer.send(SessionMessage(checked))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return  # the session has ended
            # The end of stdin ends the session, and the SDK drops what it is still running: first let the
            # requests sent before it be answered (a client that writes its requests and closes stdin).
            with anyio.move_on_after(DRAIN_SECONDS):
                while asked.owed():
                    await anyio.sleep(0.005)

    async def writer() -> None:
        async with write_reader:
            async for session_message in write_reader:
                reply = asked.answered(session_message.message)
                data = None if reply is None else encoded(reply)
                if data is not None:
                    await out.write(data + b"\n")

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        yield read_stream, write_stream  # the tasks end as the SDK does: at the end of stdin and of the session


def received(line: bytes | Oversized, bound: int) -> wire.Checked:
    if isinstance(line, Oversized):
        return wire.oversized(line.head, line.tail, line.size, bound)
    line = line.removeprefix(wire.BOM)
    if not line or line.isspace():
        return []  # a blank line (or a lone CR between messages): nothing to answer
    return wire.check(line, wire.LINE_ADVICE)


async def answer(out: Sink, refusals: list[wire.Refusal]) -> None:
    for refusal in refusals:
        if refusal.answerable:
            log.info("refused a request: %s", refusal.message, extra={"event": "invalid_message"})
            await out.write(refusal.encoded() + b"\n")
        else:
            log.warning("dropped a broken response: %s", refusal.message, extra={"event": "dropped"})


def encoded(message: mcp_types.JSONRPCMessage) -> bytes | None:
    """One message as compact JSON (one serialization, straight to bytes); a reply that cannot be encoded becomes
    an internal error for its request, and any other message that cannot is dropped (None), both logged."""
    try:
        data: bytes = message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_unset=True)
        return data
    except PydanticSerializationError:
        log.exception("a %s could not be encoded as JSON", type(message).__name__)
    request_id: Any = getattr(message, "id", None)
    if not isinstance(message, (mcp_types.JSONRPCResponse, mcp_types.JSONRPCError)) or request_id is None:
        return None
    return unencodable(request_id)


def unencodable(request_id: Any) -> bytes:
    text = "Internal error: the reply could not be encoded as JSON (the call may have run). Check before retrying."
    return wire.Refusal(request_id, wire.INTERNAL_ERROR, text).encoded()
