"""The pages: each reads what it shows through reading.py in a worker thread and renders one template.

Every route is GET except the POSTs that sign in and out; nothing here writes an agent's data.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

import anyio
from jinja2 import Environment
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from scratchpad_core.bounds import MAX_SEARCH_RESULTS
from scratchpad_core.errors import AccessDenied, InvalidInput, NotFound, ScratchpadError
from scratchpad_core.model import Usage
from scratchpad_core.paths import check_agent_id
from scratchpad_core.results import LogEntryOut, LogPage
from scratchpad_core.service import Scratchpad

from . import reading
from .access import COOKIE, LOCAL, SESSION_MS, Sessions, Viewer
from .highlight import visible
from .marks import marked_lines
from .refusals import said

T = TypeVar("T")
STATUS = {NotFound: 404, AccessDenied: 403, InvalidInput: 400}
HEADINGS = {404: "Not found", 403: "Not yours to see", 400: "Not understood"}
SEARCH_PAGE = 20  # results a search page shows; ten pages reach MAX_SEARCH_RESULTS
RECENT, PAGE_BYTES = 20, 40_000  # an agent page's recent changes: the last 20 change numbers, newest first


class Pages:
    def __init__(
        self,
        store: Scratchpad,
        agents: reading.AgentDirectory,
        templates: Environment,
        sessions: Sessions | None,
        *,
        https: bool = False,
    ) -> None:
        self._store = store
        self._agents = agents
        self._templates = templates
        self._sessions = sessions  # None: the single local user, who sees every agent
        self._https = https  # clients reach it over https (SCRATCHPAD_PUBLIC_URL), whatever the proxy speaks to it

    # -- plumbing -------------------------------------------------------------------------------------------
    def render(self, request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        page = self._templates.get_template(name).render(base=base(request), href=Href(base(request)), **values)
        return HTMLResponse(page, status_code=status)

    async def viewer(self, request: Request) -> Viewer | None:
        if self._sessions is None:
            return LOCAL
        return await anyio.to_thread.run_sync(self._sessions.viewer, request.cookies.get(COOKIE))

    async def page(self, request: Request, name: str, build: Callable[[Viewer], dict[str, Any]]) -> Response:
        """Who looks (else the sign-in form), then the page's values read in a worker thread, then the page."""
        viewer = await self.viewer(request)
        if viewer is None:
            return RedirectResponse(f"{base(request)}/signin", status_code=303)
        try:
            values = await anyio.to_thread.run_sync(build, viewer)
        except ScratchpadError as error:
            status = next((code for kind, code in STATUS.items() if isinstance(error, kind)), 500)
            heading = HEADINGS.get(status, "Not shown")
            return self.render(request, "error.html", status, viewer=viewer, heading=heading, message=said(error))
        status = 400 if values.get("refusal") else 200  # a page that keeps its form and says what it refused
        return self.render(request, name, status, viewer=viewer, **values)

    # -- pages ----------------------------------------------------------------------------------------------
    async def agents(self, request: Request) -> Response:
        after = request.query_params.get("after") or None

        def build(viewer: Viewer) -> dict[str, Any]:
            if viewer.agent_id is not None:  # an agent's key: its own agent, then those it has a grant on
                rows, more = [u for agent in viewer.visible if (u := self._agents.found(agent)) is not None], None
            else:
                found = list(self._agents.agents(after, reading.AGENTS_PAGE + 1))
                more = found[reading.AGENTS_PAGE - 1].agent_id if len(found) > reading.AGENTS_PAGE else None
                rows = found[: reading.AGENTS_PAGE]
            return {"agents": [(u, reading.quota_use(u, self._store)) for u in rows], "more": more}

        return await self.page(request, "agents.html", build)

    async def agent(self, request: Request) -> Response:
        agent_id = request.path_params["agent"]
        cursor = request.query_params.get("cursor") or None

        def build(viewer: Viewer) -> dict[str, Any]:
            usage = self.seen(viewer, agent_id)
            files = self._store.list_files(agent_id, limit=reading.FILES_PAGE, cursor=cursor)
            logs = self._store.list_logs(agent_id)
            recent = self._store.read_changes(
                agent_id, self._store.changes_cursor(agent_id, RECENT), max_bytes=PAGE_BYTES
            )
            return {"agent": agent_id, "rows": reading.tree(files.files), "files": files, "logs": logs.logs,
                    "quotas": reading.quota_use(usage, self._store), "rules": self._store.list_retention(agent_id),
                    "changes": list(reversed(recent.items))}  # fmt: skip

        return await self.page(request, "agent.html", build)

    async def file(self, request: Request) -> Response:
        agent_id, path = request.path_params["agent"], request.path_params["path"]
        q = request.query_params

        def build(viewer: Viewer) -> dict[str, Any]:
            self.seen(viewer, agent_id)
            versions = self._store.list_versions(agent_id, path)
            version = number(q, "version")
            old, new = number(q, "from"), number(q, "to")
            diff = None
            if old is not None or new is not None:
                old = old or max(1, versions.current_version - 1)
                new = new or versions.current_version
                diff = reading.version_diff(self._store, agent_id, path, old, new)
            window = reading.file_window(self._store, agent_id, path, version, number(q, "start") or 1)
            return {
                "agent": agent_id,
                "path": path,
                "versions": [(v, reading.version_by(v)) for v in reversed(versions.versions)],
                "window": window,
                "diff": diff,
                "old": old,
                "new": new,
                "view": "split" if q.get("view") == "split" else "unified",
            }

        return await self.page(request, "file.html", build)

    async def log(self, request: Request) -> Response:
        agent_id, path = request.path_params["agent"], request.path_params["path"]

        def build(viewer: Viewer) -> dict[str, Any]:
            self.seen(viewer, agent_id)
            before = number(request.query_params, "before")
            return {"agent": agent_id, "path": path, "log": reading.log_page(self._store, agent_id, path, before),
                    "live": before is None}  # fmt: skip

        return await self.page(request, "log.html", build)

    async def log_entries(self, request: Request) -> Response:
        """JSON for the live log: the entries after `after`, oldest first (the page puts each on top)."""
        agent_id, path = request.path_params["agent"], request.path_params["path"]
        viewer = await self.viewer(request)
        if viewer is None:
            return JSONResponse({"error": "Sign in again: the session has ended."}, status_code=401)

        def read() -> LogPage:
            self.seen(viewer, agent_id)
            return reading.new_entries(self._store, agent_id, path, number(request.query_params, "after") or 0)

        try:
            page = await anyio.to_thread.run_sync(read)
        except ScratchpadError as error:
            status = next((code for kind, code in STATUS.items() if isinstance(error, kind)), 500)
            return JSONResponse({"error": said(error)}, status_code=status)
        entries = [shown_entry(e) for e in page.entries]
        return JSONResponse({"entries": entries, "last_entry_id": page.last_entry_id, "has_more": page.has_more})

    def seen(self, viewer: Viewer, agent_id: str) -> Usage:
        """An agent the viewer may see (else refused, whether it exists or not) and the store knows: its usage."""
        check_agent_id(agent_id)
        viewer.check(agent_id)
        usage = self._agents.found(agent_id)
        if usage is None:
            raise NotFound(f"No agent {agent_id!r} in this store: it has stored nothing. The agents page lists them.")
        return usage

    async def search(self, request: Request) -> Response:
        agent_id = request.path_params["agent"]
        query = request.query_params.get("q", "")
        exact = request.query_params.get("exact") == "1"
        regex = request.query_params.get("regex") == "1"

        page = min(max(number(request.query_params, "page") or 1, 1), MAX_SEARCH_RESULTS // SEARCH_PAGE)

        def build(viewer: Viewer) -> dict[str, Any]:
            self.seen(viewer, agent_id)
            result, shown, first, refusal = None, [], (page - 1) * SEARCH_PAGE, None
            try:
                if query:  # by words unless exact or regex, as the tool and the command line do; a page: the
                    # results up to its end asked for, those before it left out (the ranking is the same each time)
                    result = self._store.search_files(
                        agent_id, query, max_results=page * SEARCH_PAGE, exact=exact, regex=regex
                    )
                    shown = [(m, marked_lines(m.text, query, exact=exact, regex=regex)) for m in result.matches[first:]]
            except InvalidInput as error:  # the page stays, its box holding the query, and says what to change
                refusal = said(error)
            more = result is not None and result.has_more
            return {"agent": agent_id, "query": query, "exact": exact, "regex": regex, "result": result,
                    "shown": shown, "first": first, "page": page, "page_lines": reading.FILE_PAGE_LINES,
                    "next_page": more and page * SEARCH_PAGE < MAX_SEARCH_RESULTS, "refusal": refusal}  # fmt: skip

        return await self.page(request, "search.html", build)

    # -- signing in -----------------------------------------------------------------------------------------
    async def sign_in_form(self, request: Request) -> Response:
        return self.render(request, "signin.html", viewer=None, message=None)

    async def sign_in(self, request: Request) -> Response:
        if self._sessions is None:
            return RedirectResponse(f"{base(request)}/", status_code=303)
        form = await request.form()
        key = form.get("key")
        outcome = await anyio.to_thread.run_sync(self._sessions.sign_in, key if isinstance(key, str) else "")
        if isinstance(outcome, str):
            return self.render(request, "signin.html", 401, viewer=None, message=outcome)
        _, cookie = outcome
        response = RedirectResponse(f"{base(request)}/", status_code=303)
        response.set_cookie(
            COOKIE, cookie, max_age=SESSION_MS // 1000, path=f"{base(request)}/", httponly=True, samesite="strict",
            secure=self.secure(request),
        )  # fmt: skip
        return response

    def secure(self, request: Request) -> bool:
        """The session cookie goes over https only: the request came over https, or clients use an https URL."""
        return self._https or request.url.scheme == "https"

    async def sign_out_form(self, request: Request) -> Response:
        """A GET signs nothing out (another site could link here): the page offers the button that does."""
        viewer = await self.viewer(request)
        if viewer is None or not viewer.signed_in:
            return RedirectResponse(f"{base(request)}/", status_code=303)
        return self.render(request, "signout.html", viewer=viewer)

    async def sign_out(self, request: Request) -> Response:
        response = RedirectResponse(f"{base(request)}/signin", status_code=303)
        response.delete_cookie(
            COOKIE, path=f"{base(request)}/", httponly=True, samesite="strict", secure=self.secure(request)
        )
        return response


def shown_entry(entry: LogEntryOut) -> dict[str, Any]:
    """An entry as the live log's JSON carries it: as stored, and as a page shows it (control and bidi
    characters as visible marks, the same text a reload shows)."""
    return {
        "id": entry.id, "entry": entry.entry, "by": entry.by, "created_at": entry.created_at,
        "shown": {"entry": visible(entry.entry), "by": visible(entry.by or "—")},
    }  # fmt: skip


def number(query: Any, name: str) -> int | None:
    raw = query.get(name)
    if raw in (None, ""):
        return None
    if not raw.isdigit():
        raise InvalidInput(f"Invalid {name}: use a whole number, as the page's links do.")
    return int(raw)


def base(request: Request) -> str:
    """Where the view is mounted ('' at the root, '/ui' in the HTTP server)."""
    return str(request.scope.get("root_path", "")).rstrip("/")


class Href:
    """Links inside the view: href.agent(a), href.file(a, p, version=3), ..."""

    def __init__(self, root: str) -> None:
        self._root = root

    def __call__(self, *parts: str, **query: object) -> str:
        path = "/".join(quote(p, safe="/") for p in parts)
        shown = {k: v for k, v in query.items() if v is not None and v != ""}
        return f"{self._root}/{path}" + (f"?{urlencode(shown)}" if shown else "")

    def agent(self, agent_id: str, **query: object) -> str:
        return self("a", agent_id, **query)

    def file(self, agent_id: str, path: str, **query: object) -> str:
        return self("a", agent_id, "file", path, **query)

    def log(self, agent_id: str, path: str, **query: object) -> str:
        return self("a", agent_id, "log", path, **query)

    def search(self, agent_id: str, **query: object) -> str:
        return self("a", agent_id, "search", **query)
