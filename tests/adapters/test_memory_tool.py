"""ScratchpadMemoryTool where scratchpad adds to the reference: versions, stricter rules, one call per change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from anthropic.lib.tools import ToolError

from scratchpad_adapters.memory_tool import AsyncScratchpadMemoryTool, ScratchpadMemoryTool
from scratchpad_core.errors import InvalidAgentId, InvalidInput
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from tests.conftest import StoreFactory

AGENT = "research-bot"
CHANGES = ("write_file", "delete_file", "delete_prefix", "rename_file", "rename_prefix")


def create(path: str, text: str = "x\n") -> dict[str, Any]:
    return {"command": "create", "path": path, "file_text": text}


def run(tool: ScratchpadMemoryTool, command: dict[str, Any]) -> str:
    result = tool.call(command)
    assert isinstance(result, str)
    return result


def refusal(run: Callable[[], object]) -> str:
    with pytest.raises(ToolError) as refused:
        run()
    assert isinstance(refused.value.content, str)
    return refused.value.content


@pytest.fixture
def memory(store: Scratchpad) -> ScratchpadMemoryTool:
    return ScratchpadMemoryTool(store, AGENT)


def test_every_change_is_a_version_to_list_diff_and_restore(store: Scratchpad, memory: ScratchpadMemoryTool) -> None:
    memory.call(create("/memories/plan.md", "one\ntwo\n"))
    memory.call({"command": "str_replace", "path": "/memories/plan.md", "old_str": "two", "new_str": "2"})
    memory.call({"command": "insert", "path": "/memories/plan.md", "insert_line": 0, "insert_text": "zero"})

    assert [v.version for v in store.list_versions(AGENT, "plan.md").versions] == [1, 2, 3]
    assert store.read_file(AGENT, "plan.md", since_version=2, format="unified").diff == (
        "--- plan.md@2\n+++ plan.md@3\n@@ -1,2 +1,3 @@\n+zero\n one\n 2\n"
    )
    store.restore_version(AGENT, "plan.md", 1)
    shown = run(memory, {"command": "view", "path": "/memories/plan.md"})
    assert shown == "Here's the content of /memories/plan.md with line numbers:\n     1\tone\n     2\ttwo\n     3\t"


def test_files_written_through_the_library_are_memories(store: Scratchpad, memory: ScratchpadMemoryTool) -> None:
    store.write_file(AGENT, "notes/from-mcp.md", "hello")
    store.write_file("someone-else", "secret.md", "not yours")
    assert run(memory, {"command": "view", "path": "/memories"}) == (
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"
        "4K\t/memories\n4K\t/memories/notes/\n5B\t/memories/notes/from-mcp.md"
    )


def test_a_folder_moves_and_goes_in_one_call_each(store: Scratchpad, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = ScratchpadMemoryTool(store, AGENT)
    for name in ("a", "b", "c"):
        memory.call(create(f"/memories/d/{name}.md"))
    memory.call({"command": "str_replace", "path": "/memories/d/a.md", "old_str": "x", "new_str": "y"})
    called: list[str] = []

    def recorded(name: str) -> Callable[..., object]:
        method = getattr(store, name)

        def call(*args: object, **options: object) -> object:
            called.append(name)
            return method(*args, **options)

        return call

    for name in CHANGES:
        monkeypatch.setattr(store, name, recorded(name))

    memory.call({"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e"})
    assert called == ["rename_prefix"]
    assert [v.version for v in store.list_versions(AGENT, "e/a.md").versions] == [1, 2]
    called.clear()
    memory.call({"command": "delete", "path": "/memories/e"})
    assert called == ["delete_file", "delete_prefix"]  # e is no file: the first call finds nothing to delete
    assert store.list_files(AGENT).files == []


@pytest.mark.parametrize(
    ("path", "rule"),
    [
        ("/memories/my notes.md", "only the characters [a-zA-Z0-9/_.-] are allowed (no spaces)."),
        ("/memories/" + "x" * 256, "at most 255 characters are allowed (got 256)."),
        ("/memories/a..b", "'..' sequences are not allowed."),
    ],
)
def test_paths_scratchpad_cannot_hold_are_refused_naming_the_rule(
    memory: ScratchpadMemoryTool, path: str, rule: str
) -> None:
    assert refusal(lambda: memory.call(create(path))) == f"Cannot create {path}: scratchpad's path rule: {rule}"
    assert refusal(lambda: memory.call({"command": "view", "path": path})) == (
        f"The path {path} does not exist. Please provide a valid path."
    )
    memory.call(create("/memories/ok.md"))
    assert refusal(lambda: memory.call({"command": "rename", "old_path": "/memories/ok.md", "new_path": path})) == (
        f"Cannot rename /memories/ok.md: scratchpad's path rule: {rule}"
    )
    assert run(memory, {"command": "view", "path": "/memories/ok.md"}).endswith("1\tx\n     2\t")


def test_sizes_and_quotas_are_refused_naming_the_limit(make_store: StoreFactory) -> None:
    store = make_store(limits=Limits(max_file_bytes=10, quota_files=1))
    memory = ScratchpadMemoryTool(store, AGENT)
    assert refusal(lambda: memory.call(create("/memories/big.md", "x" * 11))) == (
        "Cannot create /memories/big.md: Content too large: 11 bytes (UTF-8) exceeds the 10-byte limit per file. "
        "Nothing was changed; split the content into several files."
    )
    memory.call(create("/memories/a.md", "0123456789"))
    edit = {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "more"}
    assert refusal(lambda: memory.call(edit)).startswith("Cannot edit /memories/a.md: Content too large: 16 bytes")
    assert refusal(lambda: memory.call(create("/memories/b.md"))).startswith("Cannot create /memories/b.md: ")
    quota = refusal(lambda: memory.call(create("/memories/b.md")))
    assert "quota" in quota.lower()
    assert quota.endswith("free space with the delete command, then retry.")  # a command Claude has here
    assert "delete_file" not in quota
    assert refusal(lambda: memory.call(create("/memories/nul.md", "\x00"))).startswith(
        "Cannot create /memories/nul.md: Invalid content: NUL characters"
    )
    assert [f.path for f in store.list_files(AGENT).files] == ["a.md"]


def test_creating_an_existing_file_is_refused_even_with_the_same_text(store: Scratchpad) -> None:
    memory = ScratchpadMemoryTool(store, AGENT)
    memory.call(create("/memories/a.md", "same"))
    assert refusal(lambda: memory.call(create("/memories/a.md", "same"))) == "File /memories/a.md already exists"
    assert store.list_versions(AGENT, "a.md").current_version == 1


def test_agents_do_not_share_memory(store: Scratchpad) -> None:
    ScratchpadMemoryTool(store, "one").call(create("/memories/a.md"))
    other = ScratchpadMemoryTool(store, "two")
    assert run(other, {"command": "view", "path": "/memories"}).endswith("\n4K\t/memories")
    assert other.clear_all_memory() == "All memory cleared"
    assert store.read_file("one", "a.md").content == "x\n"
    with pytest.raises(InvalidAgentId):
        ScratchpadMemoryTool(store, "no spaces allowed")


def test_the_tool_definition_is_the_memory_tools() -> None:
    from scratchpad_adapters import open_store

    with open_store("memory://") as store:
        tool = ScratchpadMemoryTool(store, AGENT, cache_control={"type": "ephemeral"})
        assert tool.to_dict() == {"type": "memory_20250818", "name": "memory", "cache_control": {"type": "ephemeral"}}
        assert AsyncScratchpadMemoryTool(store, AGENT).to_dict() == {"type": "memory_20250818", "name": "memory"}


def test_the_async_tool_answers_as_the_sync_one(store: Scratchpad) -> None:
    commands: list[dict[str, Any]] = [
        create("/memories/a/b.md", "one\none\n"),
        {"command": "str_replace", "path": "/memories/a/b.md", "old_str": "one", "new_str": "1"},
        {"command": "insert", "path": "/memories/a/b.md", "insert_line": 9, "insert_text": "x"},
        {"command": "rename", "old_path": "/memories/a", "new_path": "/memories/c"},
        {"command": "view", "path": "/memories", "view_range": None},
        {"command": "view", "path": "/memories/c/b.md", "view_range": [2, -1]},
        {"command": "delete", "path": "/memories/c/b.md"},
        {"command": "delete", "path": "/memories/c"},
    ]
    sync = ScratchpadMemoryTool(store, "sync-agent")
    expected = []
    for command in commands:
        try:
            expected.append(run(sync, command))
        except ToolError as error:
            expected.append(f"error: {error.content}")
    expected.append(sync.clear_all_memory())

    async def run_async() -> list[str]:
        tool = AsyncScratchpadMemoryTool(store, "async-agent")
        answers = []
        for command in commands:
            try:
                result = await tool.call(command)
                assert isinstance(result, str)
                answers.append(result)
            except ToolError as error:
                answers.append(f"error: {error.content}")
        answers.append(await tool.clear_all_memory())
        return answers

    assert anyio.run(run_async) == expected
    assert "error: No replacement was performed. Multiple occurrences" in expected[1]
    assert store.list_files("async-agent").files == []


def test_versions_record_the_actor_the_program_names(store: Scratchpad) -> None:
    memory = ScratchpadMemoryTool(store, AGENT, actor="memory-tool:worker-3")
    memory.call(create("/memories/a.md", "one\n"))
    memory.call({"command": "str_replace", "path": "/memories/a.md", "old_str": "one", "new_str": "two"})
    ScratchpadMemoryTool(store, AGENT).call(
        {"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "zero"}
    )
    assert [v.by for v in store.list_versions(AGENT, "a.md").versions] == [
        "memory-tool:worker-3", "memory-tool:worker-3", "library",
    ]  # fmt: skip
    with pytest.raises(InvalidInput):
        ScratchpadMemoryTool(store, AGENT, actor="")
