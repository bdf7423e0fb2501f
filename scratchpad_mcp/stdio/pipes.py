"""The process's stdin and stdout as byte sources and sinks on the event loop: pipes and sockets through the loop's
own transports (no worker thread per line), anything else (a file, a TTY, /dev/null) through plain reads in a worker
thread and plain writes."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import stat
from collections.abc import Iterator
from typing import Protocol

import anyio

CHUNK = 1 << 20
log = logging.getLogger("scratchpad.stdio")


class Source(Protocol):
    async def read(self) -> bytes:
        """The next bytes available (b"" at the end)."""


class Sink(Protocol):
    async def write(self, data: bytes) -> None:
        """Write all of data, waiting while the reader falls behind."""

    async def aclose(self) -> None:
        """Flush what is buffered and let go of the pipe."""


def is_pipe(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class PipeSource:
    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def read(self) -> bytes:
        return await self._reader.read(CHUNK)


class Prefixed:
    """A source whose first bytes were read before it (by a warm start)."""

    def __init__(self, first: bytes, rest: Source) -> None:
        self._first = first
        self._rest = rest

    async def read(self) -> bytes:
        if self._first:
            first, self._first = self._first, b""
            return first
        return await self._rest.read()


class ThreadSource:
    """Blocking reads in a worker thread: what a regular file or a terminal needs (the loop cannot poll them)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read(self) -> bytes:
        return await anyio.to_thread.run_sync(os.read, self._fd, CHUNK, abandon_on_cancel=True)


class Outlet(asyncio.Protocol):
    """The write side's flow control: writable until the pipe's buffer is full, closed once the pipe is gone."""

    def __init__(self) -> None:
        self.writable = asyncio.Event()
        self.writable.set()
        self.closed = asyncio.get_running_loop().create_future()

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.writable.set()
        if not self.closed.done():
            self.closed.set_result(None)


class PipeSink:
    def __init__(self, transport: asyncio.WriteTransport, outlet: Outlet) -> None:
        self._transport = transport
        self._outlet = outlet

    async def write(self, data: bytes) -> None:
        if self._transport.is_closing():
            raise BrokenPipeError("the client closed stdout")
        self._transport.write(data)
        await self._outlet.writable.wait()

    async def aclose(self) -> None:
        self._transport.close()  # sends what is still buffered first
        await self._outlet.closed


class BlockingSink:
    """Plain writes: a file or a terminal takes them at once."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def aclose(self) -> None:
        pass


class Guarded:
    """A sink whose client may be gone: the first failed write is logged, later ones are dropped, so that the
    session keeps draining its messages and ends at the end of stdin instead of dying on a broken pipe."""

    def __init__(self, sink: Sink) -> None:
        self._sink = sink
        self.broken = False

    async def write(self, data: bytes) -> None:
        if self.broken:
            return
        try:
            await self._sink.write(data)
        except OSError as error:  # BrokenPipeError, ConnectionResetError
            self.broken = True
            log.warning("stdout is closed (%s); replies are dropped until stdin ends", type(error).__name__)

    async def aclose(self) -> None:
        with contextlib.suppress(OSError):
            await self._sink.aclose()


async def source(fd: int) -> Source:
    if not is_pipe(fd):
        return ThreadSource(fd)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=CHUNK, loop=loop)
    pipe = os.fdopen(os.dup(fd), "rb", 0)  # the transport closes its own copy
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
    return PipeSource(reader)


async def sink(fd: int) -> Sink:
    if not is_pipe(fd):
        return BlockingSink(fd)
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(os.dup(fd), "wb", 0)
    transport, outlet = await loop.connect_write_pipe(Outlet, pipe)
    return PipeSink(transport, outlet)


@contextlib.contextmanager
def claimed(fd: int, stand_in: int) -> Iterator[int]:
    """A private copy of fd for the transport, while fd itself points at stand_in (/dev/null for stdin, stderr for
    stdout), so that nothing else in the process reads the client's requests or writes into its replies."""
    private = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    os.dup2(stand_in, fd)
    try:
        yield private
    finally:
        os.dup2(private, fd)
        with contextlib.suppress(OSError):
            os.set_blocking(fd, True)
        os.close(private)
