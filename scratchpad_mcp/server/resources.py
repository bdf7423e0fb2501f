"""Files as MCP resources: an agent's files are listed (by cursor, metadata only) and read (the current text).

With API keys a caller acts for its key's agent, and scratchpad://files/{path} names a file of that agent;
scratchpad://agents/{agent_id}/files/{path} a file of an agent the key has a grant on (scratchpad_core.access.grants:
listing and reading need read access), and resources/list pages over the key's own agent, then each agent it may
read. Without keys (stdio, or HTTP with SCRATCHPAD_AUTH=none) the caller owns the store, and
scratchpad://agents/{agent_id}/files/{path} names any agent's file.
"""

from __future__ import annotations

import datetime
import mimetypes
from typing import Any, TypeVar

from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    Annotations,
    ListResourcesResult,
    ListResourceTemplatesResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextResourceContents,
)

from scratchpad_core.errors import AccessDenied, InvalidInput, NotFound, ScratchpadError
from scratchpad_core.paths import check_agent_id, check_path
from scratchpad_core.results import FileInfo
from scratchpad_core.service import Scratchpad

from .calls import CallRunner, UseCase

T = TypeVar("T")
Page = tuple[list[tuple[str, FileInfo]], str | None]  # (agent_id, file) pairs, and the next page's cursor

SCHEME = "scratchpad://"
KEYED_PREFIX = f"{SCHEME}files/"  # + path
AGENT_TEMPLATE = f"{SCHEME}agents/{{agent_id}}/files/{{path}}"
CHANGES_TEMPLATE = f"{SCHEME}agents/{{agent_id}}/changes"  # read: the current read_changes cursor (issue 31)
PAGE = 100  # resources per resources/list page
TTL_MS = 0  # a file may change at any moment: a listing or a read is stale at once (cacheScope "private")
MIME_TYPES = {".md": "text/markdown", ".markdown": "text/markdown", ".jsonl": "application/jsonl"}


class FileUris:
    """The resource URI of a file, and the file a URI names, for keyed callers or for the store's owner."""

    def __init__(self, *, keyed: bool) -> None:
        self.keyed = keyed

    @property
    def template(self) -> str:
        return f"{KEYED_PREFIX}{{path}}" if self.keyed else AGENT_TEMPLATE

    @property
    def templates(self) -> str:
        """How a refusal names the URIs this server's files have."""
        return f"{self.template}, or {AGENT_TEMPLATE} for an agent your key has a grant on" if self.keyed else (
            self.template
        )  # fmt: skip

    def of(self, agent_id: str, path: str, *, own: str | None = None) -> str:
        """The URI of an agent's file, for a caller whose key acts for `own` (keyed) or for the store's owner."""
        if self.keyed and agent_id == own:
            return f"{KEYED_PREFIX}{path}"
        return f"{SCHEME}agents/{agent_id}/files/{path}"

    @staticmethod
    def changes_of(agent_id: str) -> str:
        return f"{SCHEME}agents/{agent_id}/changes"

    @staticmethod
    def changes_agent(uri: str) -> str | None:
        """The agent whose changes a URI names (CHANGES_TEMPLATE), or None: it names none."""
        agent_id = uri.removeprefix(f"{SCHEME}agents/").removesuffix("/changes")
        if not uri.startswith(f"{SCHEME}agents/") or not uri.endswith("/changes") or "/" in agent_id:
            return None
        try:
            return check_agent_id(agent_id)
        except ScratchpadError:
            return None

    def parse(self, uri: str) -> tuple[str | None, str]:
        """(agent_id, path) of the file a URI names (agent_id None: the key's own agent); raises InvalidUri."""
        if self.keyed and uri.startswith(KEYED_PREFIX):
            return None, _checked_path(uri[len(KEYED_PREFIX) :], uri, self.templates)
        agent_id, marker, path = uri.removeprefix(f"{SCHEME}agents/").partition("/files/")
        if not uri.startswith(f"{SCHEME}agents/") or not marker:
            raise InvalidUri(uri, self.templates)
        try:
            check_agent_id(agent_id)
        except ScratchpadError:
            raise InvalidUri(uri, self.templates) from None
        return agent_id, _checked_path(path, uri, self.templates)


class InvalidUri(Exception):
    def __init__(self, uri: str, template: str) -> None:
        super().__init__(f"Resource not found: {uri[:300]!r} names no file of this server; files are {template}.")


def shown(uri: str, limit: int = 1024) -> str:
    """A URI as an error's data carries it back: a long one cut (the message names it shorter still)."""
    return uri if len(uri) <= limit else f"{uri[:limit]}…"


def _checked_path(path: str, uri: str, template: str) -> str:
    """The path a URI names: as it stands, since a path's characters need no escapes (a %-escape names no file)."""
    try:
        return check_path(path)
    except ScratchpadError:
        raise InvalidUri(uri, template) from None


def mime_type(path: str) -> str:
    suffix = path[path.rfind(".") :].lower() if "." in path.rsplit("/", 1)[-1] else ""
    return MIME_TYPES.get(suffix) or mimetypes.guess_type(f"x{suffix}")[0] or "text/plain"


def resource(uris: FileUris, agent_id: str, file: FileInfo, own: str | None) -> Resource:
    modified = datetime.datetime.fromtimestamp(file.updated_at / 1000, datetime.UTC)
    return Resource(
        uri=uris.of(agent_id, file.path, own=own),
        name=file.path if uris.keyed and agent_id == own else f"{agent_id}/{file.path}",
        mime_type=mime_type(file.path),
        size=file.bytes,
        annotations=Annotations(last_modified=modified.isoformat(timespec="milliseconds").replace("+00:00", "Z")),
        _meta={"version": file.current_version},
    )


class FileResources:
    """resources/list, resources/templates/list and resources/read over a store's files."""

    def __init__(self, store: Scratchpad, runner: CallRunner, uris: FileUris) -> None:
        self._store = store
        self._runner = runner
        self.uris = uris

    def register(self, server: Server[Any]) -> None:
        server.add_request_handler("resources/list", PaginatedRequestParams, self.list_resources)
        server.add_request_handler("resources/templates/list", PaginatedRequestParams, self.list_templates)
        server.add_request_handler("resources/read", ReadResourceRequestParams, self.read_resource)

    async def list_resources(
        self, _ctx: ServerRequestContext[Any], params: PaginatedRequestParams
    ) -> ListResourcesResult:
        cursor = params.cursor or None
        own = None
        if self.uris.keyed:
            agent, inner = _space_cursor(cursor)
            page = await self._access("resources/list", lambda a: self._space_page(a, inner), agent_id=agent)
            spaces = self._runner.spaces()
            own = spaces[0].agent if spaces else None
        else:
            page = await self._access("resources/list", lambda _: self._store_page(cursor), owner=True)
        records, next_cursor = page
        resources = [resource(self.uris, agent_id, file, own) for agent_id, file in records]
        return ListResourcesResult(resources=resources, next_cursor=next_cursor, ttl_ms=TTL_MS, cache_scope="private")

    async def list_templates(
        self, _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams
    ) -> ListResourceTemplatesResult:
        who = "the file's path" if self.uris.keyed else "the agent's id and the file's path"
        templates = [
            ResourceTemplate(
                uri_template=self.uris.template,
                name="file",
                description=f"A stored file's current text, named by {who}.",
            )
        ]
        if self.uris.keyed:
            templates.append(
                ResourceTemplate(
                    uri_template=AGENT_TEMPLATE,
                    name="granted file",
                    description="The current text of a file of an agent your key has a grant on.",
                )
            )
        templates.append(
            ResourceTemplate(
                uri_template=CHANGES_TEMPLATE,
                name="changes",
                description="The agent's read_changes cursor; subscribe to hear when anything of it changes.",
            )
        )
        return ListResourceTemplatesResult(resource_templates=templates, ttl_ms=3_600_000, cache_scope="private")

    async def read_resource(
        self, _ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        uri = str(params.uri)
        changes_agent = self.uris.changes_agent(uri)
        if changes_agent is not None:
            cursor = await self._access("resources/read", self._store.changes_cursor, agent_id=changes_agent, uri=uri)
            contents = TextResourceContents(uri=uri, text=cursor, mime_type="text/plain")
            return ReadResourceResult(contents=[contents], ttl_ms=TTL_MS, cache_scope="private")
        try:
            agent_id, path = self.uris.parse(uri)
        except InvalidUri as error:
            raise MCPError(INVALID_PARAMS, str(error), data={"uri": shown(uri)}) from None

        def read(agent: str) -> tuple[str, int]:
            result = self._store.read_file(agent, path)
            assert result.content is not None  # a full read: no diff, no bound
            return result.content, result.current_version

        text, version = await self._access("resources/read", read, agent_id=agent_id, uri=uri)
        contents = TextResourceContents(uri=uri, text=text, mime_type=mime_type(path), _meta={"version": version})
        return ReadResourceResult(contents=[contents], ttl_ms=TTL_MS, cache_scope="private")

    def _space_page(self, agent_id: str, cursor: str | None) -> Page:
        """A page of one of the key's agents; the next page's cursor goes on in it, or at the next agent the key
        may read (its spaces, own agent first)."""
        listing = self._store.list_files(agent_id, limit=PAGE, cursor=cursor)
        if listing.next_cursor is not None:
            next_cursor: str | None = f"{agent_id}/{listing.next_cursor}"
        else:
            agents = [space.agent for space in self._runner.spaces() or []]
            later = agents[agents.index(agent_id) + 1 :] if agent_id in agents else []
            next_cursor = f"{later[0]}/" if later else None
        return [(agent_id, file) for file in listing.files], next_cursor

    def _store_page(self, cursor: str | None) -> Page:
        after = None
        if cursor is not None:
            agent_id, _, path = cursor.partition("/")
            try:
                after = (check_agent_id(agent_id), check_path(path))
            except ScratchpadError:
                raise InvalidInput("Invalid cursor: pass the nextCursor of the previous page unchanged.") from None
        page = self._store.list_store_files(limit=PAGE, after=after)
        return page.files, None if page.next_cursor is None else "/".join(page.next_cursor)

    async def _access(
        self, name: str, work: UseCase[T], *, agent_id: str | None = None, uri: str | None = None, owner: bool = False
    ) -> T:
        """Run `work` for the caller's agent (keyed), the URI's agent or the store's owner; errors in the
        protocol's terms (a missing file is resource-not-found: invalid params, with the URI)."""
        data = None if uri is None else {"uri": shown(uri)}
        try:
            return await self._runner.access(name, agent_id, work, owner=owner)
        except NotFound:
            raise MCPError(
                INVALID_PARAMS, f"Resource not found: {uri}. List the resources to see the files.", data=data
            ) from None
        except ScratchpadError as error:
            refused = isinstance(error, (InvalidInput, AccessDenied))
            raise MCPError(INVALID_PARAMS if refused else INTERNAL_ERROR, error.message, data=data) from None


def _space_cursor(cursor: str | None) -> tuple[str | None, str | None]:
    """The agent a keyed listing's page is of (None: the key's own) and the cursor within it."""
    if cursor is None:
        return None, None
    agent_id, marker, inner = cursor.partition("/")
    try:
        check_agent_id(agent_id)
    except ScratchpadError:
        marker = ""
    if not marker:
        raise MCPError(INVALID_PARAMS, "Invalid cursor: pass the nextCursor of the previous page unchanged.")
    return agent_id, inner or None
