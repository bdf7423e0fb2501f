"""Subscriptions to files: a subscriber is told when a file it subscribed to changes (and, on a listen stream that
asked, when its agent's list of files changes), whichever process made the change: PostgreSQL tells every
replica, SQLite and the in-memory store tell this process. A subscriber hears only of its own agent's files,
and of the files it names of agents its key may read (scratchpad_core.access.grants), whichever key changed them.

Two forms: `subscriptions/listen` (protocol 2026-07-28: one stream per request, on stdio and streamable HTTP),
and resources/subscribe (2025-11-25), which needs a session and so is offered over stdio only. A caller (a key,
a stdio client, or every caller of an HTTP server without keys together) watches at most MAX_SUBSCRIPTIONS files
and holds at most MAX_LISTEN_STREAMS streams on one server process; a key's stream ends once the key is revoked,
or no longer may read an agent the stream hears of (within RECHECK_KEY_S and one check).
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.subscriptions import ListenHandler, ResourcesListChanged, ResourceUpdated, ServerEvent
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    EmptyResult,
    SubscribeRequestParams,
    SubscriptionsListenRequestParams,
    SubscriptionsListenResult,
    UnsubscribeRequestParams,
)

from scratchpad_core.access.grants import refusal
from scratchpad_core.changes import ChangeFeed, FileChange
from scratchpad_core.errors import ScratchpadError

from .calls import CallRunner
from .change_hub import SharedFeed
from .resources import FileUris, InvalidUri, shown
from .tokens import token_key

MAX_SUBSCRIPTIONS = 100  # files one caller may watch at once, over all its streams and subscriptions
MAX_LISTEN_STREAMS = 8  # subscriptions/listen streams one caller may hold open at once
RECHECK_KEY_S = 2.0  # how often a key's open stream checks that the key (and its grants) still holds
ANONYMOUS = "anonymous"  # every caller of an HTTP server without keys: nothing tells them apart

StreamListener = Callable[[ServerEvent], None]
Verify = Callable[[str], Awaitable[AccessToken | None]]


class FileSubscriptions:
    """The subscribers of one server, hearing of the store's changes through one shared feed."""

    def __init__(
        self,
        open_feed: Callable[[], ChangeFeed],
        uris: FileUris,
        runner: CallRunner,
        *,
        sessions: bool,
        verify: Verify | None = None,
    ) -> None:
        self._uris = uris
        self._runner = runner
        self._sessions = sessions  # resources/subscribe too (stdio); streamable HTTP is stateless
        self._verify = verify  # a key's check, repeated while its streams are open
        self._feed = SharedFeed(open_feed, self._tell)
        # each stream: the caller's own agent (None: the store's owner), the agents it hears of (None: any)
        self._streams: dict[object, tuple[str | None, frozenset[str] | None, StreamListener]] = {}
        self._open_streams: collections.Counter[object] = collections.Counter()  # by caller
        self._watched: collections.Counter[object] = collections.Counter()  # files, by caller
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
        uris = set(params.notifications.resource_subscriptions or [])
        agent, caller = await self._caller(ctx)
        named = {named for uri in uris if (named := self._check(uri)[0]) is not None and named != agent}
        for other in sorted(named):  # a granted agent's files: the key must be able to read it
            try:
                await self._runner.access("subscriptions/listen", other, lambda a: a)
            except ScratchpadError as error:
                raise MCPError(INVALID_PARAMS, error.message) from None
        agents = None if agent is None else frozenset({agent, *named})
        if self._watched[caller] + len(uris) > MAX_SUBSCRIPTIONS:
            watching = f"{self._watched[caller]} files already, " if self._watched[caller] else ""
            raise too_many(f"{watching}{len(uris)} in this request", advice="close a listen stream, or ask for fewer")
        if self._open_streams[caller] >= MAX_LISTEN_STREAMS:
            held = f"this caller already holds {MAX_LISTEN_STREAMS} listen streams, the most it may"
            raise too_many(held, advice="close one of them first")
        self._open_streams[caller] += 1
        self._watched[caller] += len(uris)
        try:
            await self._feed.acquire()
            try:
                return await self._serve(ctx, params, agent, agents)
            finally:
                with anyio.CancelScope(shield=True):
                    await self._feed.release()
        finally:
            self._open_streams[caller] -= 1
            self._watched[caller] -= len(uris)
            self._open_streams += collections.Counter()  # drop the callers at 0
            self._watched += collections.Counter()

    async def subscribe(self, ctx: ServerRequestContext[Any], params: SubscribeRequestParams) -> EmptyResult:
        _, caller = await self._caller(ctx)
        uri = str(params.uri)
        self._check(uri)
        subscribed = self._subscribed.setdefault(connection_of(ctx), set())
        if uri in subscribed:
            return EmptyResult()
        if self._watched[caller] >= MAX_SUBSCRIPTIONS:
            watched = f"this client already watches {MAX_SUBSCRIPTIONS} files, the most it may"
            raise too_many(watched, advice="unsubscribe from some first")
        if not subscribed:
            await self._feed.acquire()
        subscribed.add(uri)
        self._watched[caller] += 1
        return EmptyResult()

    async def unsubscribe(self, ctx: ServerRequestContext[Any], params: UnsubscribeRequestParams) -> EmptyResult:
        _, caller = await self._caller(ctx)
        subscribed = self._subscribed.get(connection_of(ctx), set())
        if str(params.uri) in subscribed:
            subscribed.discard(str(params.uri))
            self._watched[caller] -= 1
            if not subscribed:
                await self._feed.release()
        return EmptyResult()

    async def _serve(
        self,
        ctx: ServerRequestContext[Any],
        params: SubscriptionsListenRequestParams,
        agent: str | None,
        agents: frozenset[str] | None,
    ) -> SubscriptionsListenResult:
        """The stream, until the client leaves (or, for a key, until the key no longer holds)."""
        token = get_access_token()
        bus = _StreamBus(self, agent, agents)
        if self._verify is None or token is None:
            return await ListenHandler(bus)(ctx, params)
        result: SubscriptionsListenResult | None = None
        async with anyio.create_task_group() as group:

            async def stream() -> None:
                nonlocal result
                result = await ListenHandler(bus)(ctx, params)
                group.cancel_scope.cancel()

            group.start_soon(stream)
            group.start_soon(self._end_when_revoked, token, agents or frozenset(), group.cancel_scope)
        if result is None:
            raise MCPError(
                INVALID_REQUEST,
                "This API key was revoked or expired, or lost its grant on an agent this stream heard of: "
                "the subscription ended.",
            )
        return result

    async def _end_when_revoked(self, token: AccessToken, agents: frozenset[str], scope: anyio.CancelScope) -> None:
        assert self._verify is not None
        while True:
            await anyio.sleep(RECHECK_KEY_S)
            current = await self._verify(token.token)
            if current is None or current.subject != token.subject or (current.claims or {}).get("error"):
                scope.cancel()
                return
            key = token_key(current)
            if any(refusal(key, agent, writes=False) is not None for agent in agents):
                scope.cancel()
                return

    async def _caller(self, ctx: ServerRequestContext[Any]) -> tuple[str | None, object]:
        """The agent a caller hears of (None: the store's owner hears of any) and who it is, for its bounds."""
        if not self._uris.keyed:
            # stdio: one client, whose every request (a connection of its own on 2026-07-28) shares its outbound
            return None, connection_of(ctx).outbound if self._sessions else ANONYMOUS
        agent = await self._runner.access("subscriptions", None, lambda agent: agent)
        token = get_access_token()
        return agent, (token.client_id if token else agent)

    def _check(self, uri: str) -> tuple[str | None, str]:
        """The (agent_id, path) a URI names (agent_id None: the key's own agent; path "": the agent's changes), or
        the protocol's refusal."""
        changes_agent = self._uris.changes_agent(uri)
        if changes_agent is not None:
            return changes_agent, ""
        try:
            return self._uris.parse(uri)
        except InvalidUri as error:
            raise MCPError(INVALID_PARAMS, str(error), data={"uri": shown(uri)}) from None

    def _tell(self, change: FileChange) -> None:
        """On the event loop: tell each stream and subscription that hears of the change's file."""
        uri = self._uris.of(change.agent_id, change.path)
        changes = self._uris.changes_of(change.agent_id)  # the agent's changes resource hears of every change
        for own, agents, listener in list(self._streams.values()):
            if agents is None or change.agent_id in agents:
                if change.path:
                    listener(ResourceUpdated(uri=self._uris.of(change.agent_id, change.path, own=own)))
                listener(ResourceUpdated(uri=changes))
                if change.lists_change:
                    listener(ResourcesListChanged())
        for connection, uris in list(self._subscribed.items()):
            for told in (uri, changes) if change.path else (changes,):
                if told in uris:  # sent on the connection's own channel; dropped if the client went away
                    task = asyncio.get_running_loop().create_task(connection.send_resource_updated(told))
                    self._sending.add(task)
                    task.add_done_callback(self._sending.discard)

    def add_stream(
        self, agent: str | None, agents: frozenset[str] | None, listener: StreamListener
    ) -> Callable[[], None]:
        token = object()
        self._streams[token] = (agent, agents, listener)

        def unsubscribe() -> None:
            self._streams.pop(token, None)

        return unsubscribe


class _StreamBus:
    """What one listen stream's ListenHandler subscribes to: the changes of the files of the agents it hears of
    (the caller's own, and those it named that its key may read)."""

    def __init__(self, subscriptions: FileSubscriptions, agent: str | None, agents: frozenset[str] | None) -> None:
        self._subscriptions = subscriptions
        self._agent = agent
        self._agents = agents

    async def publish(self, event: ServerEvent) -> None:
        raise NotImplementedError("listen streams hear of the store's changes only")

    def subscribe(self, listener: StreamListener) -> Callable[[], None]:
        return self._subscriptions.add_stream(self._agent, self._agents, listener)


def connection_of(ctx: ServerRequestContext[Any]) -> Connection:
    """The client connection a request came on (each request has a session of its own; the SDK names no public
    way to the connection beneath, which resources/subscribe outlives the request on)."""
    connection: Connection = ctx.session._connection
    return connection


def too_many(what: str, *, advice: str) -> MCPError:
    return MCPError(
        INVALID_PARAMS,
        f"Too many subscriptions: {what}; one caller may watch {MAX_SUBSCRIPTIONS} files and hold "
        f"{MAX_LISTEN_STREAMS} listen streams. Nothing was subscribed; {advice}.",
    )
