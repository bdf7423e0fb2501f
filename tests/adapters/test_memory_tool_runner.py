"""The SDK's tool runner with ScratchpadMemoryTool against the local fake Messages API (real HTTP):
what the runner sends back, and what the store keeps."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from anthropic import Anthropic, AsyncAnthropic
from anthropic.types.beta import BetaMessage

from scratchpad_adapters.memory_tool import AsyncScratchpadMemoryTool, ScratchpadMemoryTool
from scratchpad_core.service import Scratchpad
from tests.adapters.fake_anthropic import FakeAnthropic, message_body

AGENT = "research-bot"
CALLS: list[dict[str, Any]] = [
    {"command": "view", "path": "/memories"},
    {"command": "create", "path": "/memories/prefs.md", "file_text": "- likes coffee\n"},
    {"command": "str_replace", "path": "/memories/prefs.md", "old_str": "coffee", "new_str": "tea"},
    {"command": "create", "path": "/memories/prefs.md", "file_text": "again"},
    {"command": "rename", "old_path": "/memories/prefs.md", "new_path": "/memories/people/me.md"},
]
REQUEST: dict[str, Any] = {
    "model": "claude-sonnet-4-6",
    "max_tokens": 256,
    "messages": [{"role": "user", "content": "Remember that I like tea, not coffee."}],
}
ROOT_VIEW = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories"
EXPECTED = [
    (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n4K\t/memories",
        False,
    ),
    ("File created successfully at: /memories/prefs.md", False),
    (
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n"
        "     1\t- likes tea\n     2\t",
        False,
    ),
    ("File /memories/prefs.md already exists", True),
    ("Successfully renamed /memories/prefs.md to /memories/people/me.md", False),
]


def tool_use_turn(index: int, command: dict[str, Any]) -> dict[str, Any]:
    body = message_body("")
    block = {"type": "tool_use", "id": f"toolu_{index}", "name": "memory", "input": command}
    return {**body, "content": [block], "stop_reason": "tool_use"}


@pytest.fixture
def scripted(fake_api: FakeAnthropic) -> FakeAnthropic:
    """Claude's turns: one memory call each, then a last answer."""
    fake_api.replies = [tool_use_turn(i, call) for i, call in enumerate(CALLS)]
    fake_api.reply = message_body("Noted: you like tea.")
    return fake_api


def check_exchange(fake: FakeAnthropic, store: Scratchpad) -> None:
    assert len(fake.requests) == len(CALLS) + 1
    first = fake.requests[0]
    assert first.headers["authorization"] == "Bearer test-key"
    assert first.body["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    sent = []
    for i, request in enumerate(fake.requests[1:]):
        (result,) = request.body["messages"][-1]["content"]
        assert (result["type"], result["tool_use_id"]) == ("tool_result", f"toolu_{i}")
        sent.append((result["content"], result.get("is_error", False)))
    assert sent == EXPECTED
    assert [f.path for f in store.list_files(AGENT).files] == ["people/me.md"]
    history = store.list_versions(AGENT, "people/me.md")  # the versions moved with the file
    assert [v.version for v in history.versions] == [1, 2]
    assert store.read_file(AGENT, "people/me.md", version=1).content == "- likes coffee\n"
    assert store.read_file(AGENT, "people/me.md").content == "- likes tea\n"


def test_the_tool_runner_keeps_claudes_memory_in_the_store(store: Scratchpad, scripted: FakeAnthropic) -> None:
    client = Anthropic(api_key="test-key", base_url=scripted.url, max_retries=0)
    final = client.beta.messages.tool_runner(tools=[ScratchpadMemoryTool(store, AGENT)], **REQUEST).until_done()
    assert final.content[0].type == "text"
    assert final.content[0].text == "Noted: you like tea."
    check_exchange(scripted, store)


def test_the_async_tool_runner_does_the_same(store: Scratchpad, scripted: FakeAnthropic) -> None:
    async def main() -> str:
        client = AsyncAnthropic(api_key="test-key", base_url=scripted.url, max_retries=0)
        runner = client.beta.messages.tool_runner(tools=[AsyncScratchpadMemoryTool(store, AGENT)], **REQUEST)
        final: BetaMessage = await runner.until_done()
        block = final.content[0]
        assert block.type == "text"
        return block.text

    assert anyio.run(main) == "Noted: you like tea."
    check_exchange(scripted, store)
