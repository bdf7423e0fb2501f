"""The web view's pages in process (Starlette's test client) on every backend: paging, windows, diffs, sessions.
The browser tests (test_browser.py) check the same pages as a person sees them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from scratchpad_adapters.agent_directory import agent_directory
from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.access.grants import parse_grant
from scratchpad_core.limits import Limits
from scratchpad_core.usecases.base import wall_clock_ms
from scratchpad_mcp.settings import Settings
from scratchpad_mcp.web.access import COOKIE, Sessions
from scratchpad_mcp.web.app import build_web_app
from scratchpad_mcp.web.reading import FILE_PAGE_LINES, LOG_PAGE
from scratchpad_mcp.web.serve import web_app
from tests.conftest import FakeSummarizer


@pytest.fixture
def backend(database_url: str) -> Iterator[Backend]:
    opened = open_backend(database_url, limits=Limits(max_versions=4), summarizer=FakeSummarizer())
    yield opened
    opened.close()


@pytest.fixture
def local(backend: Backend) -> TestClient:
    return TestClient(build_web_app(viewing_store(backend), agent_directory(backend)))


def ids(html: str, pattern: str) -> list[int]:
    return [int(n) for n in re.findall(pattern, html)]


def test_a_log_pages_newest_first_and_each_older_page_follows_on(backend: Backend, local: TestClient) -> None:
    for n in range(1, 2 * LOG_PAGE + 21):
        backend.store.append_log("bot", "run.log", f"entry {n}")
    seen: list[int] = []
    url: str | None = "/a/bot/log/run.log"
    while url is not None:
        page = local.get(url)
        assert page.status_code == 200
        seen += ids(page.text, r'<li id="e(\d+)"')
        older = re.search(r'id="older" href="([^"]+)"', page.text)
        url = older.group(1).replace("&amp;", "&") if older else None
    assert seen == list(range(2 * LOG_PAGE + 20, 0, -1))  # every entry once, newest first
    first = local.get("/a/bot/log/run.log").text
    assert 'data-live="1"' in first and "live-log.js" in first
    assert "live-log.js" not in local.get(f"/a/bot/log/run.log?before={LOG_PAGE}").text  # an older page stays put


def test_the_live_endpoint_returns_what_came_after(backend: Backend, local: TestClient) -> None:
    for n in range(1, 6):
        backend.store.append_log("bot", "run.log", f"<b>{n}</b>")
    reply = local.get("/a/bot/entries/run.log?after=3").json()
    assert [e["entry"] for e in reply["entries"]] == ["<b>4</b>", "<b>5</b>"]
    assert reply["last_entry_id"] == 5 and reply["has_more"] is False
    assert local.get("/a/bot/entries/run.log?after=5").json()["entries"] == []
    assert local.get("/a/bot/entries/run.log?after=-1").status_code == 400


def test_a_long_file_shows_in_windows_of_numbered_lines(backend: Backend, local: TestClient) -> None:
    total = 2 * FILE_PAGE_LINES + 500
    backend.store.write_file("bot", "big.py", "".join(f"x_{n} = {n}\n" for n in range(1, total + 1)))
    first = local.get("/a/bot/file/big.py").text
    assert ids(first, r'<tr id="L(\d+)"') == list(range(1, FILE_PAGE_LINES + 1))
    assert f"start={FILE_PAGE_LINES + 1}" in first
    last = local.get(f"/a/bot/file/big.py?start={2 * FILE_PAGE_LINES + 1}").text
    assert ids(last, r'<tr id="L(\d+)"') == list(range(2 * FILE_PAGE_LINES + 1, total + 1))
    assert 'id="next-lines"' not in last and f"of {total:,}" in last
    assert f'<span class="n">x_{total}</span>' in last  # coloured as Python
    found = local.get(f"/a/bot/search?q=x_{total} ").text  # a search leads to the window holding its passage
    assert f'href="/a/bot/file/big.py?start={2 * FILE_PAGE_LINES + 1}#L{total - 1}"' in found
    exact = local.get(f"/a/bot/search?q=x_{total} &exact=1").text  # the line itself
    assert f'href="/a/bot/file/big.py?start={2 * FILE_PAGE_LINES + 1}#L{total}"' in exact


def test_a_diff_between_any_two_retained_versions(backend: Backend, local: TestClient) -> None:
    for text in ("a\nb\n", "a\nB\n", "a\nB\nc\n", "A\nB\nc\n", "A\nB\nc\nd\n"):
        backend.store.write_file("bot", "f.txt", text)  # five versions; four are kept
    forward = local.get("/a/bot/file/f.txt?from=2&to=5").text
    assert "Changes from version 2 to version 5" in forward
    assert re.findall(r'<tr class="add">.*?<pre>(.*?)</pre>', forward, re.S) == ["A", "c", "d"]
    backward = local.get("/a/bot/file/f.txt?from=5&to=2&view=split").text
    assert '<tr class="change">' in backward and "Changes from version 5 to version 2" in backward
    assert "The two versions are the same" in local.get("/a/bot/file/f.txt?from=3&to=3").text
    gone = local.get("/a/bot/file/f.txt?from=1&to=5")
    assert gone.status_code == 404 and "no longer retained" in gone.text
    assert local.get("/a/bot/file/f.txt?from=x").status_code == 400


def test_files_show_as_a_tree(backend: Backend, local: TestClient) -> None:
    for path in ("a/b/c.txt", "a/b/d.txt", "a/e.txt", "z.txt"):
        backend.store.write_file("bot", path, path)
    page = local.get("/a/bot").text
    rows = re.findall(r'<td class="depth(\d)"[^>]*>(?:<a [^>]+>)?([^<]+)<', page)
    assert rows == [("0", "a/"), ("1", "b/"), ("2", "c.txt"), ("2", "d.txt"), ("1", "e.txt"), ("0", "z.txt")]


@pytest.fixture
def keyed(backend: Backend) -> TestClient:
    sessions = Sessions(backend.keys, wall_clock_ms)
    return TestClient(build_web_app(viewing_store(backend), agent_directory(backend), sessions))


def test_signing_in_sets_a_strict_cookie_without_the_key(backend: Backend, keyed: TestClient) -> None:
    backend.store.write_file("alice", "a.txt", "hers")
    backend.store.write_file("bob", "b.txt", "content of bob")
    key, secret = backend.keys.create("alice")
    assert keyed.get("/", follow_redirects=False).headers["location"] == "/signin"
    refused = keyed.post("/signin", data={"key": "spk_nope"}, follow_redirects=False)
    assert (
        refused.status_code == 401
        and "not known" in refused.text
        and COOKIE not in refused.headers.get("set-cookie", "")
    )
    signed = keyed.post("/signin", data={"key": secret}, follow_redirects=False)
    cookie = signed.headers["set-cookie"]
    assert signed.status_code == 303 and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert secret not in cookie and secret.split("_", 2)[2] not in cookie  # spk_<id>_<secret part>
    agents = keyed.get("/").text
    assert ">alice<" in agents and "bob" not in agents
    other = keyed.get("/a/bob/file/b.txt")
    assert other.status_code == 403 and "content of bob" not in other.text
    assert keyed.get("/a/alice/file/a.txt").status_code == 200

    value = keyed.cookies[COOKIE]
    keyed.cookies.clear()
    keyed.cookies.set(COOKIE, value[:-1] + ("0" if value[-1] != "0" else "1"))  # a forged signature
    assert keyed.get("/", follow_redirects=False).status_code == 303
    keyed.cookies.clear()
    keyed.cookies.set(COOKIE, value)
    assert keyed.get("/", follow_redirects=False).status_code == 200
    backend.keys.revoke(key.id)  # a revoked key's session ends on its next request
    assert keyed.get("/", follow_redirects=False).status_code == 303


def test_an_admin_key_sees_every_agent(backend: Backend, keyed: TestClient) -> None:
    for agent in ("alice", "bob"):
        backend.store.write_file(agent, "x.txt", agent)
    _, secret = backend.keys.create(None, label="ops")
    keyed.post("/signin", data={"key": secret})
    agents = keyed.get("/").text
    assert ">alice<" in agents and ">bob<" in agents and "admin key" in agents
    assert keyed.get("/a/bob/file/x.txt").status_code == 200


def test_looking_changes_nothing_the_agent_counts(backend: Backend, local: TestClient) -> None:
    backend.store.write_file("bot", "f.md", "one\n")
    backend.store.write_file("bot", "f.md", "two\n")
    backend.store.append_log("bot", "run.log", "entry")
    directory = agent_directory(backend)
    before = directory.agent("bot")
    for page in ("/", "/a/bot", "/a/bot/file/f.md", "/a/bot/file/f.md?from=1&to=2", "/a/bot/log/run.log",
                 "/a/bot/entries/run.log?after=0", "/a/bot/search?q=two"):  # fmt: skip
        assert local.get(page).status_code == 200, page
    assert directory.agent("bot") == before  # not one operation, nor a byte saved, counted
    assert before.operations == 3


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_bidi_controls_show_as_marks_and_never_reorder_the_page(backend: Backend, keyed: TestClient) -> None:
    text = "line1\nline2\u202eRTL\x1b\n" + BIDI + "\n"
    backend.store.write_file("bot", "f.txt", text, actor="key:k1 (\u202eevil)")
    backend.store.append_log("bot", "run.log", text, actor="key:k1 (\u202eevil)")
    _, secret = backend.keys.create(None, label="ops \u202eadmin")
    keyed.post("/signin", data={"key": secret})
    pages = ("/a/bot/file/f.txt", "/a/bot/log/run.log", "/a/bot/search?q=RTL", "/")
    for url in pages:
        page = keyed.get(url)
        assert page.status_code == 200, url
        assert not any(c in page.text for c in BIDI), url  # nor in the header's key label, a version's or entry's by
    live = keyed.get("/a/bot/entries/run.log?after=0").json()["entries"][0]
    assert live["entry"] == text and live["by"] == "key:k1 (\u202eevil)"  # as stored, for scripts
    log = keyed.get("/a/bot/log/run.log").text
    shown = re.search(r"<pre>(.*?)</pre>", log, re.S)
    assert shown is not None and live["shown"]["entry"] == shown.group(1)  # live as a reload shows it
    assert not any(c in live["shown"]["entry"] + live["shown"]["by"] for c in BIDI + "\x1b")


def test_a_log_page_and_its_live_entries_say_who_appended_each(backend: Backend, local: TestClient) -> None:
    backend.store.append_log("bot", "run.log", "by the library")
    backend.store.append_log("bot", "run.log", "over a key", actor="key:k9 (planner)")
    page = local.get("/a/bot/log/run.log").text
    assert re.findall(r'<span class="by">([^<]*)</span>', page) == ["key:k9 (planner)", "library"]
    live = local.get("/a/bot/entries/run.log?after=0").json()["entries"]
    assert [(e["by"], e["shown"]["by"]) for e in live] == [("library", "library"), ("key:k9 (planner)",) * 2]


def test_a_missing_agent_is_a_404_that_names_it(backend: Backend, local: TestClient, keyed: TestClient) -> None:
    for url in ("/a/nobody", "/a/nobody/file/x.txt", "/a/nobody/log/x.log", "/a/nobody/search?q=x"):
        page = local.get(url)
        assert page.status_code == 404 and "No agent &#39;nobody&#39;" in page.text and "Not found" in page.text, url
    live = local.get("/a/nobody/entries/x.log?after=0")
    assert live.status_code == 404 and "No agent 'nobody'" in live.json()["error"]
    _, secret = backend.keys.create("newcomer")  # an agent's key before it stored anything: no row to follow
    keyed.post("/signin", data={"key": secret})
    assert 'href="/a/newcomer"' not in keyed.get("/").text
    assert keyed.get("/a/nobody").status_code == 403  # another agent's: refused before saying whether it exists


def test_an_agents_key_sees_its_agent_and_the_agents_it_has_a_grant_on(backend: Backend, keyed: TestClient) -> None:
    for agent in ("worker-1", "team-plan", "handbook", "worker-2"):
        backend.store.write_file(agent, "f.txt", f"content of {agent}")
    key, secret = backend.keys.create("worker-1", grants=[parse_grant("team-plan:write"), parse_grant("handbook:read")])
    keyed.post("/signin", data={"key": secret})
    agents = keyed.get("/").text
    assert ">worker-1<" in agents and ">team-plan<" in agents and ">handbook<" in agents and "worker-2" not in agents
    for agent in ("worker-1", "team-plan", "handbook"):
        assert f"content of {agent}" in keyed.get(f"/a/{agent}/file/f.txt").text
    other = keyed.get("/a/worker-2/file/f.txt")
    assert other.status_code == 403 and "content of worker-2" not in other.text
    assert "cannot see agent &#39;worker-2&#39; (it has no grant on it)" in other.text
    backend.keys.ungrant(key.id, "handbook")  # at once: the next request
    assert keyed.get("/a/handbook/file/f.txt").status_code == 403
    assert "handbook" not in keyed.get("/").text


def test_marked_search_results_stay_escaped(backend: Backend, local: TestClient) -> None:
    backend.store.write_file("bot", "x.html", "<b>deploy</b> \x1b[31m deploy\n")
    page = local.get("/a/bot/search?q=deploy").text
    assert "&lt;b&gt;<mark>deploy</mark>&lt;/b&gt; ␛[31m <mark>deploy</mark>" in page


def test_a_refused_search_keeps_its_page_and_names_the_controls(backend: Backend, local: TestClient) -> None:
    backend.store.write_file("bot", "a.txt", "hello\n")
    page = local.get("/a/bot/search", params={"q": "!!!", "exact": ""})
    assert page.status_code == 400 and 'value="!!!"' in page.text and 'id="summary"' not in page.text
    assert re.search(r'id="error">Invalid search: it has no word .*; tick exact to find punctuation', page.text)
    page = local.get("/a/bot/search", params={"q": "(x", "regex": "1"})
    assert page.status_code == 400 and 'value="(x"' in page.text and 'id="regex" checked' in page.text
    assert "search literally: tick exact and untick regex." in page.text and "regex=false" not in page.text
    missing = local.get("/a/bot/file/gone.txt")
    assert (
        missing.status_code == 404 and "File not found: gone.txt. The agent&#39;s page lists its files." in missing.text
    )


@pytest.mark.parametrize(
    ("public_url", "base_url", "secure"),
    [("", "http://testserver", False), ("", "https://testserver", True),
     ("https://scratchpad.example.com", "http://testserver", True),
     ("http://scratchpad.example.com", "http://testserver", False)],
)  # fmt: skip
def test_the_session_cookie_is_secure_over_https(
    backend: Backend, public_url: str, base_url: str, secure: bool
) -> None:
    """Secure when the request came over https, or SCRATCHPAD_PUBLIC_URL is https (a proxy speaking http to the
    server); HttpOnly and SameSite=Strict always. Signing out clears it with the same attributes."""
    settings = Settings.from_env({"SCRATCHPAD_PUBLIC_URL": public_url} if public_url else {})
    client = TestClient(web_app(settings, backend, signed_in=True), base_url=base_url)
    _, secret = backend.keys.create("alice")
    signed = client.post("/signin", data={"key": secret}, follow_redirects=False)
    attributes = [part.strip().lower() for part in signed.headers["set-cookie"].split(";")]
    assert signed.status_code == 303 and "httponly" in attributes and "samesite=strict" in attributes
    assert ("secure" in attributes) is secure
    out = client.post("/signout", follow_redirects=False)
    assert ("secure" in [p.strip().lower() for p in out.headers["set-cookie"].split(";")]) is secure


def recent_changes(local: TestClient, agent: str) -> list[str]:
    """The agent page's recent changes, as text."""
    listed = re.search(r'<ul class="changes" id="changes">(.*?)</ul>', local.get(f"/a/{agent}").text, re.S)
    assert listed is not None
    return [" ".join(re.sub(r"<[^>]+>", "", li).split()) for li in re.findall(r"<li>(.*?)</li>", listed[1], re.S)]


def test_an_agent_page_shows_its_recent_changes_newest_first(backend: Backend, local: TestClient) -> None:
    store = backend.store
    store.write_file("bot", "plan.md", "one\n")
    store.append_log("bot", "run.log", "started")
    store.write_file("bot", "plan.md", "two\n")
    store.write_file("bot", "gone.md", "x")
    store.delete_file("bot", "gone.md")
    # the last 20 changes: all of them, from the start (a file made and deleted in them is not news)
    assert recent_changes(local, "bot") == ["plan.md: created, version 2", "run.log: 1 new entry"]
    for n in range(25):
        store.append_log("bot", "run.log", f"entry {n}")
    store.edit_file("bot", "plan.md", "two", "three")
    assert recent_changes(local, "bot") == ["plan.md: changed, version 2 to 3", "run.log: 19 new entries"]
