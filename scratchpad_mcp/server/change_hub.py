"""The store's change feed as a server's subscribers share it: opened when the first subscriber comes, closed
when the last one goes (on PostgreSQL an open feed makes every writer send notices), each change handed to the
server's event loop whichever thread the feed told it on."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import anyio

from scratchpad_core.changes import ChangeFeed, FileChange


class SharedFeed:
    def __init__(self, open_feed: Callable[[], ChangeFeed], on_change: Callable[[FileChange], None]) -> None:
        self._open_feed = open_feed
        self._on_change = on_change
        self._lock = anyio.Lock()
        self._feed: ChangeFeed | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._holders = 0

    async def acquire(self) -> None:
        """One more subscriber: the feed opens with the first (opening may wait on the database)."""
        async with self._lock:
            if self._feed is None:
                self._loop = asyncio.get_running_loop()
                feed = await anyio.to_thread.run_sync(self._open_feed)
                feed.subscribe(self._heard)
                self._feed = feed
            self._holders += 1

    async def release(self) -> None:
        """One subscriber fewer: the feed closes with the last."""
        async with self._lock:
            self._holders -= 1
            if self._holders == 0 and self._feed is not None:
                feed, self._feed = self._feed, None
                await anyio.to_thread.run_sync(feed.close)

    def _heard(self, change: FileChange) -> None:
        """From the feed, on any thread: handled on the server's event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server is stopping
                loop.call_soon_threadsafe(self._on_change, change)
