"""The same generated memory commands through the SDK's reference backend (a temporary folder) and through
ScratchpadMemoryTool (every backend): every result, error text and raised exception must agree.

One normalization stands for the one difference that cannot go (see scratchpad_adapters.memory_tool):
after each command, the reference folder's empty folders are removed, since scratchpad has none.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from functools import partial
from pathlib import Path
from typing import Any

from anthropic.lib.tools import ToolError
from anthropic.tools import BetaLocalFilesystemMemoryTool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scratchpad_adapters.memory_tool import ScratchpadMemoryTool
from scratchpad_core.service import Scratchpad

Command = dict[str, Any]

NAMES = ["a", "b", "n.md", ".h"]  # a hidden name too: views leave it out
ODD_PATHS = [
    "/memories", "/memories/", "/memories/..", "/memories/../x", "/etc/passwd", "/memoriesa", "/memories//a",
    "/memories/a/../b", "/memories/./a/", "/memories/a/", "/memories/../memories/b",
]  # fmt: skip

paths = st.one_of(
    st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map(lambda parts: "/memories/" + "/".join(parts)),
    st.sampled_from(ODD_PATHS),
)
texts = st.text(alphabet="ab \n\ré", max_size=12)
fragments = st.one_of(st.sampled_from(["a", "b", "\n", "", "ab", "é", "a\nb"]), texts)
view_ranges = st.one_of(st.none(), st.lists(st.integers(min_value=-2, max_value=5), min_size=1, max_size=3))


def _view(path: str, view_range: list[int] | None) -> Command:
    return {"command": "view", "path": path} | ({} if view_range is None else {"view_range": view_range})


commands = st.one_of(
    st.builds(_view, paths, view_ranges),
    st.fixed_dictionaries({"command": st.just("create"), "path": paths, "file_text": texts}),
    st.fixed_dictionaries({"command": st.just("str_replace"), "path": paths, "old_str": fragments, "new_str": texts}),
    st.fixed_dictionaries(
        {"command": st.just("insert"), "path": paths, "insert_line": st.integers(-1, 4), "insert_text": texts}
    ),
    st.fixed_dictionaries({"command": st.just("delete"), "path": paths}),
    st.fixed_dictionaries({"command": st.just("rename"), "old_path": paths, "new_path": paths}),
)
# Creates first, so that most sequences have files and folders to work on.
sequences = st.tuples(
    st.lists(st.fixed_dictionaries({"command": st.just("create"), "path": paths, "file_text": texts}), max_size=6),
    st.lists(commands, max_size=20),
).map(lambda parts: [*parts[0], *parts[1], _view("/memories", None)])


def outcome(run: Any) -> tuple[str, Any]:
    """What the tool runner would send back: the result, a ToolError's text, or another exception's repr."""
    try:
        return "result", run()
    except ToolError as error:
        return "error", error.content
    except Exception as error:
        return "raised", repr(error)


def remove_empty_folders(root: Path) -> None:
    for folder, _, _ in sorted(os.walk(root), key=lambda walked: -len(walked[0])):
        if Path(folder) != root and not os.listdir(folder):
            os.rmdir(folder)


def run_both(store: Scratchpad, sequence: list[Command]) -> None:
    base = tempfile.mkdtemp(prefix="memory-reference-")
    try:
        reference = BetaLocalFilesystemMemoryTool(base_path=base)
        ours = ScratchpadMemoryTool(store, f"diff-{uuid.uuid4().hex[:12]}")  # a fresh agent: empty memory
        for step, command in enumerate(sequence):
            expected = outcome(partial(reference.call, command))
            remove_empty_folders(reference.memory_root)
            actual = outcome(partial(ours.call, command))
            assert actual == expected, f"step {step}: {command}"
        assert ours.clear_all_memory() == reference.clear_all_memory() == "All memory cleared"
        root = _view("/memories", None)
        assert outcome(partial(ours.call, root)) == outcome(partial(reference.call, root))
    finally:
        shutil.rmtree(base, ignore_errors=True)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=sequences)
def test_generated_commands_answer_as_the_reference_does(store: Scratchpad, sequence: list[Command]) -> None:
    run_both(store, sequence)


def test_a_known_sequence_with_every_refusal(store: Scratchpad) -> None:
    """Cases the generator reaches only now and then: a folder into itself, a folder of a path being a file."""
    sequence: list[Command] = [
        {"command": "create", "path": "/memories/d/n.md", "file_text": "one\ntwo\none\n"},
        {"command": "create", "path": "/memories/f", "file_text": ""},
        {"command": "create", "path": "/memories/f/x", "file_text": "under a file"},
        {"command": "create", "path": "/memories/d", "file_text": "a folder is there"},
        {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/d/e/d"},
        {"command": "rename", "old_path": "/memories/f", "new_path": "/memories/f/g"},
        {"command": "rename", "old_path": "/memories/f/g", "new_path": "/memories/h"},
        {"command": "rename", "old_path": "/memories/nope", "new_path": "/memories/f/g"},
        {"command": "rename", "old_path": "/memories/nope/x", "new_path": "/memories/f/g"},
        {"command": "rename", "old_path": "/memories/missing", "new_path": "/memories/missing/x"},
        {"command": "rename", "old_path": "/memories", "new_path": "/memories/x"},
        {"command": "rename", "old_path": "/memories/d", "new_path": "/memories"},
        {"command": "str_replace", "path": "/memories/d/n.md", "old_str": "one", "new_str": "1"},
        {"command": "str_replace", "path": "/memories/d", "old_str": "one", "new_str": "1"},
        {"command": "insert", "path": "/memories/d/n.md", "insert_line": 4, "insert_text": "x"},
        {"command": "insert", "path": "/memories/d/n.md", "insert_line": 3, "insert_text": "three\n"},
        {"command": "view", "path": "/memories/d/n.md", "view_range": [2, -1]},
        {"command": "rename", "old_path": "/memories/d", "new_path": "/memories/e/f"},
        {"command": "view", "path": "/memories"},
        {"command": "delete", "path": "/memories/e"},
        {"command": "delete", "path": "/memories"},
        {"command": "delete", "path": "/memories/e"},
    ]
    run_both(store, sequence)


def test_views_of_long_and_large_files_answer_as_the_reference_does(store: Scratchpad) -> None:
    """Ranges the generator seldom reaches (a start past 3, a negative start, reversed), a long snippet
    after str_replace, and sizes of a megabyte and more in a folder view."""
    lines = "".join(f"line {n}\n" for n in range(1, 13))
    big = "x" * (1024 * 1024 - 1) + "\n"  # exactly scratchpad's 1 MiB file limit: a size in M
    sequence: list[Command] = [
        {"command": "create", "path": "/memories/long.md", "file_text": lines},
        *(
            {"command": "view", "path": "/memories/long.md", "view_range": view_range}
            for view_range in ([4, 6], [7, -1], [-3, 2], [0, 5], [9, 3], [12, 12], [11, 40], [5, 5])
        ),
        {"command": "str_replace", "path": "/memories/long.md", "old_str": "line 7\n", "new_str": "seven\n"},
        {"command": "create", "path": "/memories/big/a.md", "file_text": big},
        {"command": "create", "path": "/memories/big/b.md", "file_text": "small\n"},
        {"command": "view", "path": "/memories"},
        {"command": "view", "path": "/memories/big"},
    ]
    run_both(store, sequence)
