"""The walls from outside (issue 28): real `scratchpad-mcp` processes in both serving modes (the HTTP server, with
/mcp and the view at /ui; and `scratchpad-mcp web`), with API keys and with SCRATCHPAD_AUTH=none, on loopback and
on 0.0.0.0. Every route refuses a foreign Host with the 421 /mcp gave before, before any data is read: the answer
holds no stored text, no cookie, and a key sent with it is never looked up (its last use stays unset). Loopback
names and SCRATCHPAD_ALLOWED_HOSTS are still served. A POST to the view from another site is refused with 403 and
sets no cookie; signing in and out from the view's own pages works."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx2
import pytest

from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_mcp.web.access import COOKIE
from tests.conftest import create_postgres_database, drop_postgres_database
from tests.deploy.conftest import MCP_HEADERS, rpc_body
from tests.servers import Server, WebProcess, running

pytestmark = pytest.mark.slow

SECRET = "the launch code is 0451"  # stored text that no refused answer may carry
AGENT = "vault-bot"
FOREIGN = "evil.example"  # a name a rebinding page points at 127.0.0.1
LISTED = "scratchpad.example.com"
REFUSED_HOST = (421, b"Invalid Host header")  # what /mcp answered a foreign Host before the walls


@dataclass
class Site:
    """A server (or `web` process) on a store holding SECRET, with an admin key and a key used nowhere else."""

    base: str
    backend: Backend
    admin: str
    unused_id: str
    unused: str  # a key sent only with refused requests: if it were looked up, its last use would be set
    keys: bool

    def send(self, method: str, path: str, host: str | None = None, **headers: str) -> httpx2.Response:
        body = rpc_body("read_file", {"path": "plan.md"} if self.keys else {"agent_id": AGENT, "path": "plan.md"})
        head = dict(headers)
        if host is not None:
            head["Host"] = host
        if path.endswith("/mcp") and method == "POST":
            head = {**MCP_HEADERS, **head}
            return httpx2.post(self.base + path, json=body, headers=head, timeout=30)
        if method == "POST":
            return httpx2.post(self.base + path, data={"key": self.unused}, headers=head, timeout=30)
        return httpx2.request(method, self.base + path, headers=head, timeout=30)

    def session(self) -> str:
        """A signed-in session of the admin key (a same-origin sign-in, as the browser makes it)."""
        signed = httpx2.post(
            f"{self.base}/ui/signin", data={"key": self.admin}, headers={"Origin": self.base}, timeout=30
        )
        assert signed.status_code == 303, signed.text
        return signed.cookies[COOKIE]

    def last_used(self) -> int | None:
        return next(key.last_used_at for key in self.backend.keys.list() if key.id == self.unused_id)


def prepare(url: str) -> tuple[Backend, str, str, str]:
    backend = open_backend(url)
    backend.store.write_file(AGENT, "plan.md", SECRET)
    backend.store.append_log(AGENT, "trail", SECRET)
    _, admin = backend.keys.create(None, label="the operator")
    unused, unused_secret = backend.keys.create(AGENT, label="sent only with refused requests")
    return backend, admin, unused.id, unused_secret


HTTP_ROUTES = [
    ("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp"), ("GET", "/ui"), ("GET", "/ui/"), ("GET", "/ui/signin"),
    ("GET", f"/ui/a/{AGENT}"), ("GET", f"/ui/a/{AGENT}/file/plan.md"), ("GET", f"/ui/a/{AGENT}/log/trail"),
    ("GET", f"/ui/a/{AGENT}/entries/trail?after=0"), ("GET", f"/ui/a/{AGENT}/search?q=launch"),
    ("POST", "/ui/signin"), ("POST", "/ui/signout"), ("GET", "/ui/signout"), ("GET", "/ui/static/style.css"),
    ("GET", "/health"), ("GET", "/ready"), ("GET", "/metrics"), ("GET", "/nowhere"), ("POST", "/nowhere"),
    ("GET", "/.well-known/oauth-protected-resource/mcp"),
]  # fmt: skip
WEB_ROUTES = [
    ("GET", "/"), ("GET", "/signin"), ("POST", "/signin"), ("POST", "/signout"), ("GET", "/signout"),
    ("GET", f"/a/{AGENT}"), ("GET", f"/a/{AGENT}/file/plan.md"), ("GET", f"/a/{AGENT}/log/trail"),
    ("GET", f"/a/{AGENT}/entries/trail?after=0"), ("GET", f"/a/{AGENT}/search?q=launch"),
    ("GET", "/static/style.css"), ("GET", "/colours.css"), ("GET", "/nowhere"),
]  # fmt: skip


def assert_walled(site: Site, routes: list[tuple[str, str]], host: str, cookie: str | None = None) -> None:
    """Each route, sent `host` with a key, a session and stored names in its path, gets the bare 421."""
    extra = {"Authorization": f"Bearer {site.unused}"} if site.keys else {}
    if cookie is not None:
        extra["Cookie"] = f"{COOKIE}={cookie}"
    for method, path in routes:
        answer = site.send(method, path, host, **extra)
        assert (answer.status_code, answer.content) == REFUSED_HOST, (method, path, answer.status_code, answer.text)
        assert "set-cookie" not in answer.headers, (method, path)
    assert site.last_used() is None  # the key was never looked up: nothing was read


@dataclass
class Servers:
    sites: dict[str, Site]
    processes: dict[str, Server]


SPECS = {  # name: (environment, on Postgres)
    "keys": ({}, False),
    "open": ({"SCRATCHPAD_AUTH": "none"}, False),
    "listed": ({"SCRATCHPAD_HOST": "0.0.0.0", "SCRATCHPAD_ALLOWED_HOSTS": f"{LISTED},10.1.2.3:*"}, True),
    "proxied": ({"SCRATCHPAD_HOST": "0.0.0.0", "SCRATCHPAD_ALLOWED_HOSTS": "*"}, False),  # behind a proxy that checks
    "exposed": (
        {
            "SCRATCHPAD_HOST": "0.0.0.0",
            "SCRATCHPAD_AUTH": "none",
            "SCRATCHPAD_ALLOW_INSECURE": "1",
            "SCRATCHPAD_ALLOWED_HOSTS": "10.1.2.3:*",
        },
        False,
    ),
}


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    folder = tmp_path_factory.mktemp("walls")
    urls = {
        name: create_postgres_database("scratchpad_walls") if postgres else f"sqlite:///{folder / name}.db"
        for name, (_, postgres) in SPECS.items()
    }
    prepared = {name: prepare(url) for name, url in urls.items()}
    specs = {name: {**env, "SCRATCHPAD_DATABASE_URL": urls[name]} for name, (env, _) in SPECS.items()}
    try:
        with running(folder, specs) as processes:
            sites = {
                name: Site(processes[name].base, *prepared[name], keys=specs[name].get("SCRATCHPAD_AUTH") != "none")
                for name in SPECS
            }
            yield Servers(sites, processes)
    finally:
        for backend, *_ in prepared.values():
            backend.close()
        for name, (_, postgres) in SPECS.items():
            if postgres:
                drop_postgres_database(urls[name])


@pytest.mark.parametrize("name", ["keys", "open", "listed", "exposed"])
def test_every_route_refuses_a_foreign_host_before_reading_anything(servers: Servers, name: str) -> None:
    site = servers.sites[name]
    port = site.base.rsplit(":", 1)[1]
    cookie = site.session() if site.keys else None
    for host in (FOREIGN, f"{FOREIGN}:{port}", f"localhost.{FOREIGN}:{port}", f"127.0.0.1.{FOREIGN}"):
        assert_walled(site, HTTP_ROUTES, host, cookie)
    assert "host_refused" in servers.processes[name].stderr()  # the operator sees why


@pytest.mark.parametrize("name", ["keys", "open", "listed", "exposed"])
def test_loopback_names_are_served(servers: Servers, name: str) -> None:
    site = servers.sites[name]
    port = site.base.rsplit(":", 1)[1]
    auth = {"Authorization": f"Bearer {site.admin}"} if site.keys else {}
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", "127.0.0.1", f"[::1]:{port}"):
        assert site.send("GET", "/health", host).json() == {"status": "ok"}, host
        assert site.send("GET", "/ui", host).status_code == 307, host
        view = site.send("GET", "/ui/", host)
        assert view.status_code == (303 if site.keys else 200), host
        assert site.send("GET", "/nowhere", host).status_code == 404, host
        assert site.send("GET", "/mcp", host, **auth).status_code == 405, host
    if not site.keys:  # the local user's view and tools: the stored text itself, through the same Host
        assert SECRET in site.send("GET", f"/ui/a/{AGENT}/file/plan.md", f"localhost:{port}").text
        reply = site.send("POST", "/mcp", f"localhost:{port}").json()
        assert reply["result"]["structuredContent"]["content"] == SECRET


def test_listed_hosts_are_served_and_a_key_is_looked_up_there(servers: Servers) -> None:
    site = servers.sites["listed"]
    for host in (LISTED, "Scratchpad.Example.com", "10.1.2.3:4321"):
        assert site.send("GET", "/health", host).status_code == 200, host
        assert site.send("GET", "/ui/signin", host).status_code == 200, host
    assert site.send("GET", "/health", f"{LISTED}:8443").status_code == 421  # a bare name is that name, no port
    assert site.last_used() is None
    reply = site.send("POST", "/mcp", LISTED, Authorization=f"Bearer {site.unused}").json()
    assert reply["result"]["structuredContent"]["content"] == SECRET
    assert site.last_used() is not None  # the check the refusals above rely on does see a key in use


def test_allowed_hosts_star_answers_any_host(servers: Servers) -> None:
    site = servers.sites["proxied"]  # behind a proxy that checks Host: the keys guard the data
    assert site.send("GET", "/health", FOREIGN).status_code == 200
    assert site.send("GET", "/ui/", FOREIGN).status_code == 303  # to sign in: no data without a key
    assert site.send("POST", "/mcp", FOREIGN).status_code == 401
    assert SECRET not in site.send("GET", f"/ui/a/{AGENT}/file/plan.md", FOREIGN).text


FOREIGN_POSTS = [
    {"Origin": f"http://{FOREIGN}"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site", "Origin": f"http://view.{FOREIGN}"},
    {"Referer": f"http://{FOREIGN}/rebind.html"},
]


@pytest.mark.parametrize("name", ["keys", "open"])
def test_a_post_to_the_view_from_another_site_is_refused_and_changes_nothing(servers: Servers, name: str) -> None:
    site = servers.sites[name]
    cookie = {"Cookie": f"{COOKIE}={site.session()}"} if site.keys else {}
    for headers in FOREIGN_POSTS:
        for path in ("/ui/signin", "/ui/signout", "/mcp"):
            answer = site.send("POST", path, None, **cookie, **headers, Authorization=f"Bearer {site.unused}")
            assert answer.status_code == 403, (path, headers, answer.status_code)
            assert answer.text.startswith("Cross-site request refused: ") and "\n" not in answer.text, answer.text
            assert "set-cookie" not in answer.headers and SECRET not in answer.text
    assert site.last_used() is None  # the key in the form, and the bearer, were never looked up
    if site.keys:  # the refused sign-outs ended nothing
        assert site.send("GET", "/ui/", None, **cookie).status_code == 200


def test_signing_in_and_out_from_the_views_own_pages(servers: Servers) -> None:
    site = servers.sites["keys"]
    ours = {"Origin": site.base, "Sec-Fetch-Site": "same-origin", "Referer": f"{site.base}/ui/signin"}
    signed = httpx2.post(f"{site.base}/ui/signin", data={"key": site.admin}, headers=ours, timeout=30)
    assert signed.status_code == 303 and signed.headers["location"] == "/ui/"
    set_cookie = signed.headers["set-cookie"]
    assert "HttpOnly" in set_cookie and "SameSite=strict" in set_cookie and "Path=/ui/" in set_cookie
    session = {"Cookie": f"{COOKIE}={signed.cookies[COOKIE]}"}
    page = site.send("GET", "/ui/signout", None, **session)  # a GET (a link, another site's img) signs nothing out
    assert page.status_code == 200 and "set-cookie" not in page.headers
    assert '<form method="post" action="/ui/signout">' in page.text and 'id="signout-here"' in page.text
    assert site.send("GET", "/ui/", None, **session).status_code == 200
    out = site.send("POST", "/ui/signout", None, **session, Origin=site.base)
    assert out.status_code == 303 and out.headers["location"] == "/ui/signin"
    assert out.headers["set-cookie"].startswith(f'{COOKIE}="";') and "Max-Age=0" in out.headers["set-cookie"]
    assert httpx2.post(f"{site.base}/ui/signout", timeout=30).status_code == 303  # curl: no browser's headers


# --------------------------------------------------------------------------- the standalone `web` command


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Backend, str, str, str]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('walls-web') / 'web.db'}"
    backend, admin, unused_id, unused = prepare(url)
    yield url, backend, admin, unused_id, unused
    backend.close()


def web_site(process: WebProcess, store: tuple[str, Backend, str, str, str], keys: bool) -> Site:
    _, backend, admin, unused_id, unused = store
    process.url()  # started: it printed its address (before it listens: the first request waits for that)
    process.get("/static/style.css")
    return Site(process.base, backend, admin, unused_id, unused, keys=keys)


def test_web_on_loopback_refuses_a_foreign_host_and_a_foreign_post(store: tuple[str, Backend, str, str, str]) -> None:
    process = WebProcess(store[0])
    try:
        site = web_site(process, store, keys=False)
        for host in (FOREIGN, f"{FOREIGN}:{process.port}", LISTED):
            assert_walled(site, WEB_ROUTES, host)
        for host in (f"127.0.0.1:{process.port}", f"localhost:{process.port}", f"[::1]:{process.port}"):
            assert SECRET in site.send("GET", f"/a/{AGENT}/file/plan.md", host).text, host
        refused = site.send("POST", "/signin", None, Origin=f"http://{FOREIGN}")
        assert refused.status_code == 403 and refused.text.startswith("Cross-site request refused: ")
    finally:
        process.stop()


def test_web_on_another_address_with_keys_and_allowed_hosts(store: tuple[str, Backend, str, str, str]) -> None:
    process = WebProcess(store[0], "--host", "0.0.0.0", SCRATCHPAD_ALLOWED_HOSTS=LISTED)
    try:
        site = web_site(process, store, keys=True)
        signed = httpx2.post(f"{site.base}/signin", data={"key": site.admin}, headers={"Origin": site.base}, timeout=30)
        assert signed.status_code == 303 and "SameSite=strict" in signed.headers["set-cookie"]
        cookie = signed.cookies[COOKIE]
        assert_walled(site, WEB_ROUTES, FOREIGN, cookie)
        for host in (LISTED, f"127.0.0.1:{process.port}"):
            shown = site.send("GET", f"/a/{AGENT}/file/plan.md", host, Cookie=f"{COOKIE}={cookie}")
            assert shown.status_code == 200 and SECRET in shown.text, host
        for headers in FOREIGN_POSTS:
            for path in ("/signin", "/signout"):
                answer = site.send("POST", path, None, **headers, Cookie=f"{COOKIE}={cookie}")
                assert answer.status_code == 403 and "set-cookie" not in answer.headers, (path, headers)
        assert site.last_used() is None
        said = process.stderr()  # the operator sees why
        assert f"refused a request for Host '{FOREIGN}'" in said and "refused a cross-site request: its Origin" in said
    finally:
        process.stop()
