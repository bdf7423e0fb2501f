"""To the letter of the protocol (issue 25), through real clients over stdio and over HTTP, on both revisions
(2025-11-25 with initialize, 2026-07-28 with server/discover): an unknown tool is a protocol error (-32602) naming
it and the valid tools, while a known tool's failure stays a tool result with isError; the one prompt (`recall`)
is listed and served, an unknown prompt is -32602 naming it, with no traceback in the server's log; the lists of
tools and prompts never change, and both revisions say so (listChanged false)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from tests.deploy.conftest import create_keys, http_client
from tests.mcp.helpers import START_TIMEOUT, console_script, ok, server_env
from tests.servers import Server, running

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

MODES = ("legacy", "auto")  # 2025-11-25 (initialize), 2026-07-28 (server/discover)
TRANSPORTS = ("stdio", "http")
A = {"agent_id": "a"}


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("protocol")
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(folder / "http.db")}
    with running(folder, {"http": env}) as servers:
        yield servers["http"]


@contextlib.asynccontextmanager
async def connected(transport: str, mode: str, tmp_path: Path, server: Server) -> AsyncIterator[Client]:
    with anyio.fail_after(START_TIMEOUT):
        if transport == "stdio":
            params = StdioServerParameters(
                command=console_script(), env=server_env(SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"))
            )
            async with Client(params, mode=mode) as client:
                yield client
        else:
            async with (
                http_client() as http,
                Client(streamable_http_client(server.mcp_url, http_client=http), mode=mode) as client,
            ):
                yield client


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_unknown_tools_and_prompts_are_protocol_errors(
    transport: str, mode: str, tmp_path: Path, http_server: Server
) -> None:
    async with connected(transport, mode, tmp_path, http_server) as client:
        assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
        with pytest.raises(MCPError) as unknown_tool:
            await client.call_tool("rm_rf", A)
        assert unknown_tool.value.error.code == INVALID_PARAMS
        assert unknown_tool.value.error.message.startswith("Unknown tool: 'rm_rf'; valid: write_file, read_file, ")

        failed = await client.call_tool("read_file", {**A, "path": "missing.md"})  # a known tool's failure
        assert failed.is_error and failed.content[0].text.startswith("File not found: missing.md.")  # type: ignore[union-attr]

        prompts = (await client.list_prompts()).prompts
        assert [(p.name, bool(p.description)) for p in prompts] == [("recall", True)]
        with pytest.raises(MCPError) as unknown_prompt:
            await client.get_prompt("x")
        assert unknown_prompt.value.error.code == INVALID_PARAMS
        assert (
            unknown_prompt.value.error.message
            == "Unknown prompt: 'x'; valid: recall. Nothing was run; list the prompts."
        )
        with pytest.raises(MCPError) as bad_argument:
            await client.get_prompt("recall", {**A, "since": "3"})
        assert bad_argument.value.error.code == INVALID_PARAMS
        assert "Unknown argument 'since' for recall; valid: agent_id." in bad_argument.value.error.message

        capabilities = client.server_capabilities
        assert capabilities.tools is not None and capabilities.tools.list_changed is False
        assert capabilities.prompts is not None and capabilities.prompts.list_changed is False
    if transport == "http":
        log = http_server.stderr()
        assert "Traceback" not in log and "Unknown prompt" not in log, log[-2000:]


@pytest.mark.parametrize("mode", MODES)
async def test_recall_gives_the_agents_index_and_how_to_catch_up(
    mode: str, tmp_path: Path, http_server: Server
) -> None:
    async with connected("stdio", mode, tmp_path, http_server) as client:
        empty = await client.get_prompt("recall", A)
        assert empty.messages[0].content.text == "Agent a has stored nothing in scratchpad yet (no files, no logs)."  # type: ignore[union-attr]
        await ok(client, "write_file", {**A, "path": "plans/plan.md", "content": "one\n"})
        await ok(client, "write_file", {**A, "path": "plans/plan.md", "content": "two\n"})
        await ok(client, "append_log", {**A, "path": "runs/today", "entry": "started"})
        recalled = await client.get_prompt("recall", A)
        text = recalled.messages[0].content.text  # type: ignore[union-attr]
        assert recalled.messages[0].role == "user"
        assert "- plans/plan.md v2, 4 B" in text and "- runs/today: 1 entry, last 1" in text
        assert "since_version=N returns only what changed" in text
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("recall", {})
        assert missing.value.error.code == INVALID_PARAMS and "agent_id is required" in missing.value.error.message


async def test_a_keyed_caller_recalls_its_own_agent_and_no_other(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path}/keyed.db"
    env = {"SCRATCHPAD_AUTH": "keys", "SCRATCHPAD_DATABASE_URL": database}
    with running(tmp_path, {"keyed": env}) as servers:
        (key,) = create_keys(database, "alice")
        url = servers["keyed"].mcp_url
        async with http_client(key.secret) as http, Client(streamable_http_client(url, http_client=http)) as client:
            await ok(client, "write_file", {"path": "notes.md", "content": "hi\n"})
            prompt = next(p for p in (await client.list_prompts()).prompts if p.name == "recall")
            assert prompt.arguments is not None and prompt.arguments[0].required is False
            own = await client.get_prompt("recall")
            assert "Agent alice has stored" in own.messages[0].content.text  # type: ignore[union-attr]
            with pytest.raises(MCPError) as other:
                await client.get_prompt("recall", {"agent_id": "bob"})
            assert other.value.error.code == INVALID_PARAMS and "bob" in other.value.error.message
