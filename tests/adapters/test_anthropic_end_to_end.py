"""summarize_file over stdio with the real summarizer, against the local fake Anthropic API."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from tests.adapters.fake_anthropic import FakeAnthropic
from tests.mcp.helpers import START_TIMEOUT, console_script, long_text, ok, server_env

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

A = {"agent_id": "e2e"}


async def test_summarize_twice_calls_the_api_once(tmp_path: Path, fake_api: FakeAnthropic) -> None:
    env = server_env(
        SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"),
        ANTHROPIC_API_KEY="e2e-key",
        ANTHROPIC_BASE_URL=fake_api.url,
        SCRATCHPAD_SUMMARY_MODEL="claude-test-model",
    )
    text = long_text(9000)
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            await ok(client, "write_file", {**A, "path": "big.md", "content": text})
            first = await ok(client, "summarize_file", {**A, "path": "big.md"})
            second = await ok(client, "summarize_file", {**A, "path": "big.md"})
    expected = {
        "path": "big.md",
        "current_version": 1,
        "summary": "A fake summary.",
        "cached": False,
        "estimated_tokens": 2250,
    }
    assert first == expected
    assert second == {**expected, "cached": True}
    assert len(fake_api.requests) == 1
    seen = fake_api.requests[0]
    assert seen.path == "/v1/messages"
    assert seen.headers["authorization"] == "Bearer e2e-key"
    assert seen.body["model"] == "claude-test-model"
    assert text in seen.body["messages"][0]["content"]


async def test_api_failure_reaches_the_agent_as_a_clean_error(tmp_path: Path, fake_api: FakeAnthropic) -> None:
    fake_api.status = 401
    fake_api.reply = {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
    env = server_env(
        SCRATCHPAD_DB_PATH=str(tmp_path / "s.db"), ANTHROPIC_API_KEY="sk-ant-bad", ANTHROPIC_BASE_URL=fake_api.url
    )
    with anyio.fail_after(START_TIMEOUT):
        async with Client(StdioServerParameters(command=console_script(), env=env)) as client:
            await ok(client, "write_file", {**A, "path": "big.md", "content": long_text(9000)})
            result = await client.call_tool("summarize_file", {**A, "path": "big.md"})
            assert result.is_error is True
            message = result.content[0].text  # type: ignore[union-attr]
            assert message == (
                "The Anthropic API rejected ANTHROPIC_API_KEY (401 Unauthorized). "
                "Check the key in the server's environment."
            )
            assert (await ok(client, "list_files", A))["count"] == 1
    assert len(fake_api.requests) == 1
