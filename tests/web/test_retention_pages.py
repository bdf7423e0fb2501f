"""The web view after a redaction and with expiring files (issue 24), in process, on every backend: the marker
where the text was (a version, a diff across it, a log entry, search), never the text; an expired file is gone."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from scratchpad_adapters.agent_directory import agent_directory
from scratchpad_adapters.factory import Backend, open_backend
from scratchpad_adapters.viewing import viewing_store
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.web.app import build_web_app

SECRET = "sk-live-5e9d0c4b7a21"


@pytest.fixture
def backend(database_url: str) -> Iterator[Backend]:
    opened = open_backend(database_url)
    yield opened
    opened.close()


@pytest.fixture
def local(backend: Backend) -> TestClient:
    return TestClient(build_web_app(viewing_store(backend), agent_directory(backend)))


def test_the_web_view_shows_the_marker_never_the_text(backend: Backend, local: TestClient) -> None:
    store = backend.store
    store.write_file("bot", "notes.md", f"one\nkey {SECRET}\n")
    store.write_file("bot", "notes.md", f"one\nkey {SECRET}\ntwo\n")
    store.append_log("bot", "run.log", f"token {SECRET}")
    store.redact_text("bot", "notes.md", SECRET, by="ops")
    store.redact_entry("bot", "run.log", 1, by="ops")
    pages = [
        local.get("/a/bot/file/notes.md").text,
        local.get("/a/bot/file/notes.md?version=1").text,
        local.get("/a/bot/file/notes.md?from=1&to=3").text,
        local.get("/a/bot/log/run.log").text,
        local.get("/a/bot/entries/run.log?after=0").text,
        local.get("/a/bot/search?q=5e9d0c4b7a21").text,
    ]
    assert [SECRET in page for page in pages] == [False] * len(pages)
    assert "[redacted " in pages[1] and "by ops]" in pages[3]


def test_an_expired_file_is_gone_from_the_web_view(backend: Backend, local: TestClient) -> None:
    store = backend.store
    store.write_file("bot", "tmp/old.md", "scratch\n")
    store.write_file("bot", "kept.md", "kept\n")
    store.set_retention("bot", files="tmp/", max_age=1)
    time.sleep(1.1)  # the web view reads on the wall clock
    assert "tmp/old.md" not in local.get("/a/bot").text and "kept.md" in local.get("/a/bot").text
    assert local.get("/a/bot/file/tmp/old.md").status_code == 404


def test_the_agent_list_counts_what_the_agent_page_lists(backend: Backend, local: TestClient) -> None:
    earlier = time.time_ns() // 1_000_000 - 7_200_000  # two hours ago
    past = Scratchpad(backend.unit_of_work, backend.store.limits, clock=lambda: earlier)
    for name in ("a", "b", "c"):
        past.write_file("bot", f"tmp/{name}.md", "x" * 1000)
    past.write_file("bot", "kept.md", "kept\n")
    backend.store.set_retention("bot", files="tmp/", max_age="1h")
    html = local.get("/").text
    row = re.search(r"<tbody>\s*<tr>(.*?)</tr>", html, re.S)
    assert row is not None
    numbers = re.findall(r'<td class="n">([^<]*)</td>', row[1])
    assert numbers[:4] == ["1", "0", "0", "5 B"]  # files, logs, entries, bytes: kept.md only
    assert re.findall(r'<meter [^>]*value="(\d+)"', row[1]) == ["1", "0", "5"]
    assert "files: 1 of 1,000" in row[1] and "bytes: 5 of" in row[1]
    page = local.get("/a/bot").text
    files = page.split('id="files"')[1].split("</table>")[0]
    assert "kept.md" in files and "tmp/" not in files  # the expired files are gone; the rule stays in view:
    assert "<td>files</td><td>tmp/</td><td>expire 1h after the last write</td>" in page
