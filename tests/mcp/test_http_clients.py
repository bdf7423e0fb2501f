"""What an HTTP client meets first, on the real ASGI app in process: a 401 that says a Bearer API key is needed
and how to get one (no OAuth metadata), the package's version in serverInfo, 405 for GET /mcp, and the
replica recipe of docs/operations.md of allowed hosts, with loopback answered too."""

from __future__ import annotations

import contextlib
import importlib.metadata
import re
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scratchpad_adapters import open_backend
from scratchpad_adapters.factory import Backend
from scratchpad_mcp.app import http_app
from scratchpad_mcp.settings import Settings
from tests.conftest import FakeSummarizer
from tests.mcp.helpers import console_script, ok

pytestmark = pytest.mark.anyio

BASE = "http://127.0.0.1:4321"  # a loopback Host (settings.hosts: DNS-rebinding protection)
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
LIST_FILES = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_files", "arguments": {}}}
OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
HOW_TO_GET_ONE = "with a key an operator makes with `uv run scratchpad-mcp keys create --agent NAME`"


@contextlib.asynccontextmanager
async def served(backend: Backend, base: str = BASE, **variables: str) -> AsyncIterator[httpx2.AsyncClient]:
    app = http_app(Settings.from_env({"MCP_TRANSPORT": "http", **variables}), backend)
    transport = httpx2.ASGITransport(app=app)  # it runs no lifespan: the app's own (the session manager) is entered
    async with app.router.lifespan_context(app), httpx2.AsyncClient(transport=transport, base_url=base) as http:
        yield http


@pytest.fixture
def backend(tmp_path: Path) -> Iterator[Backend]:
    opened = open_backend(f"sqlite:///{tmp_path}/http.db", summarizer=FakeSummarizer())
    yield opened
    opened.close()


async def test_a_401_says_a_bearer_api_key_is_needed_and_advertises_no_oauth(backend: Backend) -> None:
    _, secret = backend.keys.create("alice")
    revoked, revoked_secret = backend.keys.create("alice")
    backend.keys.revoke(revoked.id)
    async with served(backend) as http:
        cases = {
            "This server needs an API key": {},
            "The Authorization header must be `Bearer <key>`": {"Authorization": f"Basic {secret}"},
            "This API key was not accepted (it is unknown or revoked)": {"Authorization": f"Bearer {revoked_secret}"},
        }
        for opening, auth in cases.items():
            for method in ("POST", "GET"):
                response = await http.request(method, "/mcp", json=LIST_FILES, headers={**MCP_HEADERS, **auth})
                assert response.status_code == 401, (method, auth, response.text)
                description = response.json()["error_description"]
                assert description.startswith(f"{opening}: send Authorization: Bearer <key>"), description
                assert HOW_TO_GET_ONE in description
                challenge = response.headers["www-authenticate"]
                assert challenge == (
                    f'Bearer realm="scratchpad", error="invalid_token", error_description="{description}"'
                )
                assert "resource_metadata" not in challenge and "oauth" not in response.text.lower()
        for path in (
            "/.well-known/oauth-protected-resource",
            "/.well-known/oauth-protected-resource/mcp",
            "/.well-known/oauth-authorization-server",
        ):
            assert (await http.get(path)).status_code == 404, path
        good = await http.post("/mcp", json=LIST_FILES, headers={**MCP_HEADERS, "Authorization": f"Bearer {secret}"})
        assert good.status_code == 200 and good.json()["result"]["isError"] is False


async def test_server_info_carries_the_package_version(backend: Backend) -> None:
    version = importlib.metadata.version("scratchpad-mcp")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", version)
    told = subprocess.run([console_script(), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert told.stdout == f"scratchpad-mcp {version}\n"
    async with served(backend, SCRATCHPAD_AUTH="none") as http:
        for mode in ("auto", "legacy"):
            async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http), mode=mode) as client:
                assert client.server_info is not None, mode
                assert (client.server_info.name, client.server_info.version) == ("scratchpad", version), mode


async def test_get_on_mcp_is_405_with_allow_for_a_stateless_server(backend: Backend) -> None:
    _, secret = backend.keys.create("alice")
    stream = {"Accept": "text/event-stream", "Authorization": f"Bearer {secret}"}
    async with served(backend) as http:
        response = await http.get("/mcp", headers=stream)
        assert response.status_code == 405, response.text
        assert response.headers["allow"] == "POST"
        assert "no event stream" in response.json()["error"]["message"]
    async with served(backend, SCRATCHPAD_AUTH="none") as http:
        response = await http.get("/mcp", headers={"Accept": "text/event-stream"})
        assert (response.status_code, response.headers["allow"]) == (405, "POST")
        async with Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client:
            assert (await ok(client, "list_files", {"agent_id": "a"}))["count"] == 0  # clients live without it


def readme_allowed_hosts() -> str:
    """The SCRATCHPAD_ALLOWED_HOSTS value of the replica recipe of docs/operations.md."""
    return str(re.findall(r"SCRATCHPAD_ALLOWED_HOSTS=([^\s`]+)", OPERATIONS.read_text(encoding="utf-8"))[0])


async def test_the_readme_gives_allowed_hosts_that_work_on_loopback_too(backend: Backend) -> None:
    public = readme_allowed_hosts()
    assert public.split(",") == ["scratchpad.example.com"]
    open_to_all = {"SCRATCHPAD_HOST": "0.0.0.0", "SCRATCHPAD_AUTH": "none", "SCRATCHPAD_ALLOW_INSECURE": "1"}
    call = {**LIST_FILES, "params": {"name": "list_files", "arguments": {"agent_id": "a"}}}
    async with served(backend, SCRATCHPAD_ALLOWED_HOSTS=public, **open_to_all) as http:
        for host in ("scratchpad.example.com", "127.0.0.1:4321", "localhost:4321", "[::1]:4321"):  # loopback: always
            response = await http.post("/mcp", json=call, headers={**MCP_HEADERS, "Host": host})
            assert response.status_code == 200, (host, response.status_code)
        for host in ("evil.example", "scratchpad.example.com:4321", "scratchpad.example.com.evil.example"):
            response = await http.post("/mcp", json=call, headers={**MCP_HEADERS, "Host": host})
            assert (response.status_code, response.text) == (421, "Invalid Host header"), host
