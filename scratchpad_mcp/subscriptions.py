"""Subscriptions to files: a subscriber is told when a file it subscribed to changes (and, on a listen stream that
asked, when its agent's list of files changes), whichever process made the change: PostgreSQL tells every
replica, SQLite and the in-memory store tell this process. A subscriber hears only of its own agent's files.

Two forms: `subscriptions/listen` (protocol 2026-07-28: one stream per request, on stdio and streamable HTTP),
and resources/subscribe (2025-11-25), which needs a session and so is offered over stdio only.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.subscriptions import ListenHandler, ResourcesListChanged, ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    UnsubscribeRequestParams,
)

from scratchpad_core.changes import ChangeFeed, FileChange

from .calls import CallRunner
from .resources import FileUris, InvalidUri

MAX_SUBSCRIPTIONS = 100  # files one caller (a key, or a stdio client) may be subscribed to at once
MAX_LISTEN_STREAMS = 8  # subscriptions/listen streams one caller may hold open at once

log = logging.getLogger("scratchpad")

StreamListener = Callable[[ServerEvent], None]


class FileSubscriptions:
    """The subscribers of one server, and the store's change feed that they hear from (opened at the first)."""

    def __init__(
        self, open_feed: Callable[[], ChangeFeed], uris: FileUris, runner: CallRunner, *, sessions: bool
    ) -> None:
        self._open_feed = open_feed
        self._uris = uris
        self._runner = runner
        self._sessions = sessions  # resources/subscribe too (stdio); streamable HTTP is stateless
        self._loop: asyncio.AbstractEventLoop | None = None
        self._starting = anyio.Lock()
        self._streams: dict[object, tuple[str | None, StreamListener]] = {}  # the agent a stream hears of (None: any)
        self._open_streams: collections.Counter[object] = collections.Counter()  # by caller
        self._subscribed: dict[Connection, set[str]] = {}  # resources/subscribe: URIs by client connection
        self._sending: set[asyncio.Task[None]] = set()

    def register(self, server: Server[Any]) -> None:
        server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, self.listen)
        if self._sessions:
            server.add_request_handler("resources/subscribe", SubscribeRequestParams, self.subscribe)
            server.add_request_handler("resources/unsubscribe", UnsubscribeRequestParams, self.unsubscribe)

    async def listen(
        self, ctx: ServerRequestContext[Any], params: SubscriptionsListenRequestParams
    ) -> SubscriptionsListenResult:
        uris = list(params.notifications.resource_subscriptions or [])
        agent, caller = await self._caller(ctx)
        for uri in uris:
            self._check(uri)
        if len(uris) > MAX_SUBSCRIPTIONS:
            raise too_many(f"{len(uris)} files in one listen request, over the {MAX_SUBSCRIPTIONS} one caller may")
        if self._open_streams[caller] >= MAX_LISTEN_STREAMS:
            held = f"this caller already holds {MAX_LISTEN_STREAMS} listen streams, the most it may"
            raise too_many(held, streams=True)
        await self._start()
        self._open_streams[caller] += 1
        try:
            return await ListenHandler(_StreamBus(self, agent))(ctx, params)
        finally:
            self._open_streams[caller] -= 1
            if not self._open_streams[caller]:
                del self._open_streams[caller]

    async def subscribe(self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        await self._caller(ctx)
        uri = self._check(str(params.uri))
        subscribed = self._subscribed.setdefault(connection_of(ctx), set())
        if uri not in subscribed and len(subscribed) >= MAX_SUBSCRIPTIONS:
            raise too_many(f"this client is already subscribed to {MAX_SUBSCRIPTIONS} files, the most it may")
        await self._start()
        subscribed.add(uri)
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        self._subscribed.get(connection_of(ctx), set()).discard(str(params.uri))
        return EmptyResult()

    async def _caller(self, ctx: ServerRequestContext[Any]) -> tuple[str | None, object]:
        """The agent a caller hears of (None: the store's owner hears of any) and who it is, for its bounds."""
        if not self._uris.keyed:
            return None, ctx.session
        agent = await self._runner.access("subscriptions", None, lambda agent: agent)
        token = get_access_token()
        return agent, (token.client_id if token else agent)

    def _check(self, uri: str) -> str:
        try:
            self._uris.parse(uri)
        except InvalidUri as error:
            raise MCPError(INVALID_PARAMS, str(error), data={"uri": uri}) from None
        return uri

    async def _start(self) -> None:
        """Hear the store's changes from the first subscription on (opening a feed may wait on the database)."""
        async with self._starting:
            if self._loop is None:
                feed = await anyio.to_thread.run_sync(self._open_feed)
                self._loop = asyncio.get_running_loop()
                feed.subscribe(self._heard)

    def _heard(self, change: FileChange) -> None:
        """From the feed, on any thread: handled on the server's event loop."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server is stopping
                loop.call_soon_threadsafe(self._tell, change)

    def _tell(self, change: FileChange) -> None:
        uri = self._uris.of(change.agent_id, change.path)
        for agent, listener in list(self._streams.values()):
            if agent is None or agent == change.agent_id:
                listener(ResourceUpdated(uri=uri))
                if change.lists_change:
                    listener(ResourcesListChanged())
        for connection, uris in list(self._subscribed.items()):
            if uri in uris:  # sent on the connection's own channel; dropped if the client went away
                task = asyncio.get_running_loop().create_task(connection.send_resource_updated(uri))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)

    def add_stream(self, agent: str | None, listener: StreamListener) -> Callable[[], None]:
        token = object()
        self._streams[token] = (agent, listener)

        def unsubscribe() -> None:
            self._streams.pop(token, None)

        return unsubscribe


class _StreamBus:
    """What one listen stream's ListenHandler subscribes to: the changes of the caller's agent's files only."""

    def __init__(self, subscriptions: FileSubscriptions, agent: str | None) -> None:
        self._subscriptions = subscriptions
        self._agent = agent

    async def publish(self, event: ServerEvent) -> None:
        raise NotImplementedError("listen streams hear of the store's changes only")

    def subscribe(self, listener: StreamListener) -> Callable[[], None]:
        return self._subscriptions.add_stream(self._agent, listener)


def connection_of(ctx: ServerRequestContext[Any]) -> Connection:
    """The client connection a request came on (each request has a session of its own; the SDK names no public
    way to the connection beneath, which resources/subscribe outlives the request on)."""
    connection: Connection = ctx.session._connection
    return connection


def too_many(what: str, *, streams: bool = False) -> MCPError:
    advice = "close one of them first" if streams else "unsubscribe from some first, or subscribe to fewer"
    return MCPError(INVALID_PARAMS, f"Too many subscriptions: {what}. Nothing was subscribed; {advice}.")
