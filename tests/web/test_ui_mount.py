"""The view inside the HTTP server: /ui, as the docs name it, leads to /ui/ with keys and without."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from scratchpad_adapters import open_backend
from scratchpad_mcp.app import http_app
from scratchpad_mcp.settings import Settings
from tests.conftest import FakeSummarizer

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("auth", ["keys", "none"])
async def test_ui_without_its_slash_leads_to_the_view(tmp_path: Path, auth: str) -> None:
    settings = Settings.from_env({"MCP_TRANSPORT": "http", "SCRATCHPAD_AUTH": auth})
    backend = open_backend(f"sqlite:///{tmp_path}/ui.db", summarizer=FakeSummarizer())
    try:
        app = http_app(settings, backend)
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1:4321") as http:
            bare = await http.get("/ui")
            assert bare.status_code == 307 and bare.headers["location"] == "ui/"
            assert (await http.get("/ui?after=a")).headers["location"] == "ui/?after=a"
            shown = await http.get("/ui", follow_redirects=True)
            assert (
                str(shown.url) == "http://127.0.0.1:4321/ui/signin" if auth == "keys" else "http://127.0.0.1:4321/ui/"
            )
            assert shown.status_code == 200 and ("Sign in" if auth == "keys" else "Agents") in shown.text
    finally:
        backend.close()
