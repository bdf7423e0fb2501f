"""The web view in headless Chromium, on SQLite and Postgres: sign-in, every page, a diff between two versions,
the live log picking up an append made over MCP, stored script shown as text and never run, an agent's key
refused another agent's pages, signing out with the header's button, and another site's form refused."""

from __future__ import annotations

import functools
import http.server
import os
import threading
import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from scratchpad_mcp.web.access import COOKIE
from tests.deploy.conftest import connect
from tests.mcp.helpers import ok, refused
from tests.web.conftest import WAIT, Site

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

HOSTILE = (
    "<script>window.pwned = 'script';</script>\n"
    '<img src="x" onerror="window.pwned = \'img\'">\n'
    "</pre></td></tr></table><b>bold?</b>\x1b[31m\x07\n"
)
SCREENSHOT = os.environ.get("SCRATCHPAD_WEB_SCREENSHOT")  # e.g. docs/web-file-diff.png: the README's picture


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def sign_in(browser: Any, site: Site, secret: str) -> None:
    browser.delete_all_cookies()
    browser.get(f"{site.ui}/signin")
    browser.find_element(By.ID, "key").send_keys(secret)
    browser.find_element(By.ID, "signin").click()
    WebDriverWait(browser, WAIT).until(lambda b: b.find_elements(By.ID, "agents") or b.find_elements(By.ID, "error"))


def wait_for(browser: Any, css: str) -> None:
    """Until the page (the next one, after a click) shows an element matching `css`."""
    WebDriverWait(browser, WAIT).until(lambda b: b.find_elements(By.CSS_SELECTOR, css))


def text_of(browser: Any, element_id: str) -> str:
    return str(browser.find_element(By.ID, element_id).text)


def test_sign_in_then_every_page_and_a_diff(site: Site, browser: Any) -> None:
    agent = unique("planner")
    store = site.store
    store.write_file(agent, "docs/plan.md", "# Plan\n\n- gather notes\n- write draft\n")
    store.write_file(agent, "docs/plan.md", "# Plan\n\n- gather notes\n- outline\n- write draft\n")
    store.write_file(agent, "docs/plan.md", "# Plan v3\n\n- gather notes\n- outline\n- write draft\n- review\n")
    code = "def greet(name: str) -> str:\n    return f'hello {name}'\n"
    store.write_file(agent, "src/tool.py", code)
    store.append_log(agent, "runs/today.log", "started")

    browser.delete_all_cookies()
    browser.get(f"{site.ui}/")
    assert browser.current_url.endswith("/ui/signin")  # nothing shown before signing in
    sign_in(browser, site, "spk_not_a_real_key")
    assert "not known" in text_of(browser, "error")
    sign_in(browser, site, site.admin_key)
    cookie = browser.get_cookie("scratchpad_session")
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict"
    assert site.admin_key not in cookie["value"]  # the key itself never leaves the sign-in form

    # agents, with quota bars
    link = browser.find_element(By.LINK_TEXT, agent)
    row = link.find_element(By.XPATH, "./ancestor::tr")
    assert len(row.find_elements(By.TAG_NAME, "meter")) == 3
    link.click()
    wait_for(browser, "#files")

    # the agent's files as a tree, and its logs
    files = text_of(browser, "files")
    assert "docs/" in files and "plan.md" in files and "src/" in files and "tool.py" in files
    assert "runs/today.log" in text_of(browser, "logs")
    browser.find_element(By.LINK_TEXT, "tool.py").click()
    wait_for(browser, "#content")

    # a file: numbered, coloured lines
    content = browser.find_element(By.ID, "content")
    assert content.find_element(By.ID, "L2").text.strip().startswith("2")
    assert "return f'hello {name}'" in content.text
    assert content.find_elements(By.CSS_SELECTOR, "span.k"), "Python keywords are coloured"

    # versions, and a diff between two of them, unified then side by side
    browser.get(f"{site.ui}/a/{agent}/file/docs/plan.md")
    versions = text_of(browser, "versions")
    assert all(str(n) in versions for n in (1, 2, 3))
    browser.find_element(By.CSS_SELECTOR, "input[name=from][value='1']").click()
    browser.find_element(By.CSS_SELECTOR, "input[name=to][value='3']").click()
    browser.find_element(By.ID, "compare").click()
    wait_for(browser, "#diff-title")
    assert "from version 1 to version 3" in text_of(browser, "diff-title")
    removed = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#diff tr.remove")]
    added = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#diff tr.add")]
    assert any("# Plan" in r for r in removed) and any("# Plan v3" in a for a in added)
    assert any("- review" in a for a in added) and any("- outline" in a for a in added)
    browser.find_element(By.ID, "split-view").click()
    wait_for(browser, "#diff tr.change")
    changed = browser.find_elements(By.CSS_SELECTOR, "#diff tr.change")
    assert changed and "# Plan" in changed[0].find_element(By.CSS_SELECTOR, "td.old").text
    assert "# Plan v3" in changed[0].find_element(By.CSS_SELECTOR, "td.new").text
    log_and_searches(site, browser, agent)


def log_and_searches(site: Site, browser: Any, agent: str) -> None:
    """A log, then the searches: words, exact (lines and entries), regex, and the agent page's own search form."""
    store = site.store
    browser.get(f"{site.ui}/a/{agent}/log/runs/today.log")
    assert "started" in text_of(browser, "entries")
    browser.get(f"{site.ui}/a/{agent}/search?q=outline")
    assert "docs/plan.md" in text_of(browser, "matches") and "1 result, best first" in text_of(browser, "summary")
    browser.find_element(By.ID, "exact").click()
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    WebDriverWait(browser, WAIT).until(lambda b: "exact=1" in b.current_url)
    wait_for(browser, "#summary")
    assert "1 matching line in" in text_of(browser, "summary")
    store.append_log(agent, "runs/today.log", "next: outline the review")  # exact and regex find entries too
    browser.get(f"{site.ui}/a/{agent}/search?q=OUTLINE&exact=1")
    assert text_of(browser, "summary") == "1 matching line in 2 files searched; 1 matching log entry."
    rows = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "#matches tr")]
    assert [r.split() for r in rows] == [["docs/plan.md", "4", "-", "outline"],
                                         ["runs/today.log", "#2", "next:", "outline", "the", "review"]]  # fmt: skip
    browser.get(f"{site.ui}/a/{agent}/search?q=^next:+outl&regex=1")
    assert text_of(browser, "summary") == "0 matching lines in 2 files searched; 1 matching log entry."
    browser.find_element(By.LINK_TEXT, "runs/today.log").click()
    WebDriverWait(browser, WAIT).until(lambda b: b.current_url.endswith("/log/runs/today.log#e2"))
    assert "next: outline the review" in text_of(browser, "entries")
    browser.get(f"{site.ui}/a/{agent}")  # the agent page's own form offers both modes too
    browser.find_element(By.CSS_SELECTOR, "form.search input[name=q]").send_keys("outline")
    browser.find_element(By.CSS_SELECTOR, "form.search input[name=exact]").click()
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    WebDriverWait(browser, WAIT).until(lambda b: "exact=1" in b.current_url)
    wait_for(browser, "#summary")
    assert "1 matching line in" in text_of(browser, "summary")


def test_stored_script_is_shown_as_text_and_never_runs(site: Site, browser: Any) -> None:
    agent = unique("hostile")
    site.store.write_file(agent, "page.html", HOSTILE)
    site.store.write_file(agent, "notes.txt", HOSTILE)
    site.store.append_log(agent, "evil.log", HOSTILE)
    sign_in(browser, site, site.admin_key)
    for page in ("file/page.html", "file/notes.txt", "log/evil.log", "search?q=script"):
        browser.get(f"{site.ui}/a/{agent}/{page}")
        assert browser.execute_script("return window.pwned") is None, page
        body = browser.find_element(By.TAG_NAME, "main").text
        assert "<script>window.pwned = 'script';</script>" in body, page
        assert browser.find_elements(By.TAG_NAME, "img") == [], page
        assert browser.find_elements(By.TAG_NAME, "b") == [], page
    browser.get(f"{site.ui}/a/{agent}/file/notes.txt")
    assert "␛[31m␇" in text_of(browser, "content")  # control characters as visible pictures


def test_the_live_log_picks_up_an_append_made_over_mcp(site: Site, browser: Any) -> None:
    agent = unique("worker")
    secret = site.key_for(agent)
    site.store.append_log(agent, "progress.log", "step 1")
    sign_in(browser, site, secret)
    browser.get(f"{site.ui}/a/{agent}/log/progress.log")
    assert text_of(browser, "entries").count("step") == 1

    async def append() -> None:
        async with connect(site.server.mcp_url, secret) as client:
            await ok(client, "append_log", {"path": "progress.log", "entry": "step 2 <i>over MCP</i>"})

    anyio.run(append)
    WebDriverWait(browser, WAIT).until(lambda b: "step 2 <i>over MCP</i>" in b.find_element(By.ID, "entries").text)
    first = browser.find_element(By.CSS_SELECTOR, "#entries li")
    assert "step 2" in first.text  # newest first
    assert browser.find_elements(By.CSS_SELECTOR, "#entries i") == []
    assert first.find_element(By.CSS_SELECTOR, ".by").text == f"key:{secret.split('_')[1]} ({agent}'s key)"

    site.store.append_log(agent, "progress.log", "step 3\x1b[2J line2\u202eRTL", actor="a \u202eman")
    WebDriverWait(browser, WAIT).until(lambda b: "step 3" in b.find_element(By.ID, "entries").text)
    live = browser.find_element(By.CSS_SELECTOR, "#entries li").get_attribute("outerHTML")
    browser.refresh()
    wait_for(browser, "#entries li")
    again = browser.find_element(By.CSS_SELECTOR, "#entries li")
    assert "\x1b" not in again.text and "\u202e" not in again.text and "␛[2J" in again.text
    assert live.replace(' class="new"', "") == again.get_attribute("outerHTML")  # live as a reload shows it


def test_an_agents_key_sees_only_its_agent(site: Site, browser: Any) -> None:
    mine, theirs = unique("alice"), unique("bob")
    site.store.write_file(mine, "a.txt", "mine\n")
    site.store.write_file(theirs, "b.txt", "secret of bob\n")
    site.store.append_log(theirs, "b.log", "bob's log")
    sign_in(browser, site, site.key_for(mine))
    agents = text_of(browser, "agents")
    assert mine in agents and theirs not in agents
    for page in (f"a/{theirs}", f"a/{theirs}/file/b.txt", f"a/{theirs}/log/b.log", f"a/{theirs}/search?q=secret"):
        browser.get(f"{site.ui}/{page}")
        assert "cannot see agent" in text_of(browser, "error"), page
        assert "secret of bob" not in browser.page_source and "bob's log" not in browser.page_source
    cookies = {c["name"]: c["value"] for c in browser.get_cookies()}
    live = httpx2.get(f"{site.ui}/a/{theirs}/entries/b.log?after=0", cookies=cookies, timeout=30)
    assert live.status_code == 403 and "bob's log" not in live.text
    browser.get(f"{site.ui}/a/{mine}/file/a.txt")
    assert "mine" in text_of(browser, "content")


def test_an_admin_key_calls_no_tools(site: Site) -> None:
    async def call() -> str:
        async with connect(site.server.mcp_url, site.admin_key) as client:  # it initializes, and lists the tools
            assert len((await client.list_tools()).tools) == 16
            return await refused(client, "list_files", {"agent_id": "anyone"})  # but every call is refused

    message = anyio.run(call)
    assert "admin key" in message and "calls no tools" in message


def test_pages_are_locked_down(site: Site) -> None:
    response = httpx2.get(f"{site.ui}/signin", timeout=30)
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy and "default-src 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in response.text
    assert httpx2.get(f"{site.ui}/", timeout=30, follow_redirects=False).status_code == 303  # to the sign-in form
    assert httpx2.post(f"{site.ui}/a/x/file/y", timeout=30).status_code == 405  # no page takes a write


def test_the_versions_fit_a_1400_pixel_window(site: Site, browser: Any) -> None:
    agent = unique("wide")
    for n in range(1, 4):
        site.store.write_file(agent, "notes.md", f"v{n}\n", actor=f"key:{uuid.uuid4().hex[:12]} (the nightly planner)")
    sign_in(browser, site, site.admin_key)
    assert browser.execute_script("return window.innerWidth") == 1400
    browser.get(f"{site.ui}/a/{agent}/file/notes.md?from=1&to=3&view=split")
    wait_for(browser, "#versions")
    right, width, scrolled = browser.execute_script(
        "const root = document.documentElement;"
        "return [document.getElementById('versions').getBoundingClientRect().right, root.clientWidth, root.scrollWidth]"
    )
    assert right <= width and scrolled <= width  # every column in the window: no "size" past its edge
    header = browser.find_elements(By.CSS_SELECTOR, "#versions th")
    assert [h.text for h in header] == ["from", "to", "version", "by", "when", "size"]
    assert all(h.is_displayed() and h.rect["x"] + h.rect["width"] <= width for h in header)


def test_ui_without_its_slash_is_the_view(site: Site, browser: Any) -> None:
    sign_in(browser, site, site.admin_key)
    browser.get(site.ui)
    wait_for(browser, "#agents")
    assert browser.current_url == f"{site.ui}/"


def test_signing_out_is_a_button_and_another_site_cannot_sign_in(site: Site, browser: Any, tmp_path: Path) -> None:
    sign_in(browser, site, site.admin_key)  # the view's own form: the browser names this server as its Origin
    assert browser.get_cookie(COOKIE) is not None
    browser.get(f"{site.ui}/signout")  # a GET, as a link or another site's <img> makes it, signs nothing out
    wait_for(browser, "#signout-here")
    assert browser.get_cookie(COOKIE) is not None
    browser.get(f"{site.ui}/")
    browser.find_element(By.ID, "signout").click()  # the header's button posts the sign-out
    WebDriverWait(browser, WAIT).until(lambda b: b.current_url.endswith("/ui/signin"))
    assert browser.get_cookie(COOKIE) is None
    browser.get(f"{site.ui}/")
    assert browser.current_url.endswith("/ui/signin")

    # a page on another origin (localhost, not 127.0.0.1) posting a key to the sign-in form: login CSRF
    (tmp_path / "evil.html").write_text(
        f'<form method="post" action="{site.ui}/signin"><input type="hidden" name="key" value="{site.admin_key}">'
        '<button id="go">win a prize</button></form>'
    )
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://localhost:{evil.server_address[1]}/evil.html")
        browser.find_element(By.ID, "go").click()
        WebDriverWait(browser, WAIT).until(lambda b: b.current_url.startswith(site.ui))
        assert "Cross-site request refused" in browser.find_element(By.TAG_NAME, "body").text
        assert browser.get_cookie(COOKIE) is None  # not signed in as the attacker's key
    finally:
        evil.shutdown()
        evil.server_close()


AGENT_V1 = '''"""Research notes kept by the agent between sessions."""

SOURCES = ["arxiv", "github"]


def next_step(notes: list[str]) -> str:
    if not notes:
        return "collect sources"
    return "summarize " + notes[-1]
'''
AGENT_V3 = '''"""Research notes kept by the agent between sessions."""

SOURCES = ["arxiv", "github", "semantic-scholar"]
MAX_NOTES = 50


def next_step(notes: list[str]) -> str:
    if not notes:
        return "collect sources"
    if len(notes) >= MAX_NOTES:
        return "write the report"
    return "summarize " + notes[-1]
'''


def test_the_file_page_with_a_diff_as_the_readme_shows_it(site: Site, browser: Any, tmp_path: Path) -> None:
    """The docs' picture (Web view, docs/operations.md): SCRATCHPAD_WEB_SCREENSHOT=docs/web-file-diff.png writes it."""
    agent = "research-bot" if site.backend_name == "sqlite" else unique("research-bot")
    site.store.write_file(agent, "plan/research.py", AGENT_V1)
    site.store.write_file(agent, "plan/research.py", AGENT_V1.replace('"github"]', '"github", "semantic-scholar"]'))
    site.store.write_file(agent, "plan/research.py", AGENT_V3)
    sign_in(browser, site, site.admin_key)
    browser.get(f"{site.ui}/a/{agent}/file/plan/research.py?from=1&to=3&view=split")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#diff tr.add, #diff tr.change")) == 4
    browser.set_window_size(1280, 640)
    try:
        browser.save_screenshot(str(tmp_path / "web-file-diff.png"))
        if SCREENSHOT and site.backend_name == "sqlite":
            browser.save_screenshot(SCREENSHOT)
    finally:
        browser.set_window_size(1400, 1000)


def test_a_refused_search_keeps_its_box_and_says_what_to_change(site: Site, browser: Any) -> None:
    """The refusal names the page's own controls (tick exact, untick regex), and the form still holds the query
    and the ticked box, so the person changes what it says and searches again from there."""
    agent = unique("seeker")
    site.store.write_file(agent, "notes.txt", "a then b\n")
    sign_in(browser, site, site.admin_key)
    browser.get(f"{site.ui}/a/{agent}/search?q=a(%3F%3Db)&regex=1")
    refusal = text_of(browser, "error")
    assert "lookahead" in refusal and "a search with regex ticked runs RE2" in refusal
    assert "tick exact and untick regex" in refusal and "regex=" not in refusal and "exact=" not in refusal
    box = browser.find_element(By.CSS_SELECTOR, "form.search input[name=q]")
    assert box.get_attribute("value") == "a(?=b)" and browser.find_element(By.ID, "regex").is_selected()
    box.clear()
    box.send_keys("a then")
    browser.find_element(By.ID, "regex").click()  # untick
    browser.find_element(By.ID, "exact").click()
    browser.find_element(By.CSS_SELECTOR, "form.search button").click()
    WebDriverWait(browser, WAIT).until(lambda b: "exact=1" in b.current_url)
    wait_for(browser, "#summary")
    assert "1 matching line in" in text_of(browser, "summary") and not browser.find_elements(By.ID, "error")


def test_an_agent_page_shows_recent_changes_and_links_them(site: Site, browser: Any) -> None:
    agent = unique("changes")
    site.store.write_file(agent, "plan.md", "one\n")
    site.store.append_log(agent, "findings", "slow query")
    site.store.edit_file(agent, "plan.md", "one", "two")
    sign_in(browser, site, site.admin_key)
    browser.get(f"{site.ui}/a/{agent}")
    wait_for(browser, "#changes")
    lines = text_of(browser, "changes").splitlines()
    assert lines == ["plan.md: created, version 2", "findings: 1 new entry"]  # newest first
    browser.find_element(By.CSS_SELECTOR, "#changes a").click()
    wait_for(browser, "#content")
    assert "two" in text_of(browser, "content")
