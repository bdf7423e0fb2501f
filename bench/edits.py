"""A writer replaying a document history with edits, against one that rewrites the file each time.

The edit writer turns the diff between consecutive revisions into edit_file / insert_lines calls: nearby
changed lines make one edit, trimmed to the words that change and widened word by word until old_str is
unique; it sends write_file instead whenever that request is the smaller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from mcp import Client

from bench.common import request_bytes
from bench.replay import ReplayError, Totals, Wire
from scratchpad_core.diffing import opcodes
from scratchpad_core.text import split_keepends

EDITOR = "history-editor"
REWRITER = "history-rewriter"

Call = tuple[str, dict[str, Any]]


def plan(agent: str, path: str, old: str, new: str) -> list[Call]:
    """The calls that turn `old` into `new`, bottom up so that the line numbers above stay valid."""
    rewrite: list[Call] = [("write_file", {"agent_id": agent, "path": path, "content": new})]
    if "\r" in old or "\r" in new or not old:  # edits take the file's line endings; an empty file has no old_str
        return rewrite
    a, b = split_keepends(old), split_keepends(new)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    overhead = request_bytes({"agent_id": agent, "path": path, "old_str": "", "new_str": ""})
    calls: list[Call] = []
    content = old
    for i1, i2, j1, j2 in reversed(groups(a, b, overhead)):
        call, content = one_edit(agent, path, content, (starts[i1], starts[i2], i1), "".join(b[j1:j2]))
        calls.append(call)
    if content != new:
        raise ReplayError(f"{path}: the planned edits do not give the revision (a bug in bench/edits.py)")
    if sum(request_bytes(args) for _, args in calls) >= request_bytes(rewrite[0][1]):
        return rewrite
    return calls


def groups(a: Sequence[str], b: Sequence[str], overhead: int) -> list[tuple[int, int, int, int]]:
    """Changed line ranges (i1, i2, j1, j2); two changes closer than a call's overhead make one."""
    out: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in opcodes(a, b):
        if tag == "equal":
            continue
        if out and 2 * sum(len(line.encode()) for line in a[out[-1][1] : i1]) < overhead:
            out[-1] = (out[-1][0], i2, out[-1][2], j2)
        else:
            out.append((i1, i2, j1, j2))
    return out


def one_edit(agent: str, path: str, content: str, region: tuple[int, int, int], new: str) -> tuple[Call, str]:
    """The smaller of edit_file and (for whole new lines) insert_lines replacing content[start:end] with `new`."""
    start, end, line = region
    old = content[start:end]
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    left, right = word_bounds(content, start + head, end - tail)
    changed = new[head : len(new) - tail]
    while not unique_at(content, left, right) and (left, right) != (0, len(content)):
        left, right = widen(content, left, right)
    before, after = content[left : start + head], content[end - tail : right]
    edit: Call = (
        "edit_file",
        {"agent_id": agent, "path": path, "old_str": content[left:right], "new_str": before + changed + after},
    )
    result = content[:left] + before + changed + after + content[right:]
    if start == end and new.endswith("\n") and (start == 0 or content[start - 1] == "\n"):
        at = -1 if start == len(content) and line > 99 else line
        insert: Call = ("insert_lines", {"agent_id": agent, "path": path, "line": at, "text": new})
        if request_bytes(insert[1]) < request_bytes(edit[1]):
            return insert, content[:start] + new + content[start:]
    return edit, result


def word_bounds(content: str, left: int, right: int) -> tuple[int, int]:
    """The range grown to whole words (runs of non-whitespace), as an agent would quote them."""
    while 0 < left < len(content) and not content[left - 1].isspace() and not content[left].isspace():
        left -= 1
    while 0 < right < len(content) and not content[right - 1].isspace() and not content[right].isspace():
        right += 1
    return left, right


def unique_at(content: str, left: int, right: int) -> bool:
    old = content[left:right]
    return bool(old) and content.find(old) == left and content.find(old, left + 1) == -1


def widen(content: str, left: int, right: int) -> tuple[int, int]:
    """One more word (and the whitespace before it) on the side where it is shorter."""
    new_left = left
    while new_left > 0 and content[new_left - 1].isspace():
        new_left -= 1
    while new_left > 0 and not content[new_left - 1].isspace():
        new_left -= 1
    new_right = right
    while new_right < len(content) and content[new_right].isspace():
        new_right += 1
    while new_right < len(content) and not content[new_right].isspace():
        new_right += 1
    if new_left < left and (new_right == right or left - new_left <= new_right - right):
        return new_left, right
    return left, new_right


@dataclass
class Writing(Totals):
    """Requests and replies of the two writers, from the second revision on (both create the file alike)."""

    revisions: int = 0
    edit_requests: int = 0
    edit_replies: int = 0
    rewrite_requests: int = 0
    rewrite_replies: int = 0
    tools: Counter[str] = field(default_factory=Counter)


async def replay_writer(wire: Wire, client: Client, path: str, texts: Sequence[str]) -> Writing:
    totals = Writing()
    for index, text in enumerate(texts):
        request, reply, _ = await wire.call(
            client, "write_file", "write_file", {"agent_id": REWRITER, "path": path, "content": text}
        )
        if index == 0:
            await wire.call(client, "write_file", "write_file", {"agent_id": EDITOR, "path": path, "content": text})
            continue
        totals.revisions += 1
        totals.rewrite_requests += request
        totals.rewrite_replies += reply
        try:
            for tool, arguments in plan(EDITOR, path, texts[index - 1], text):
                request, reply, _ = await wire.call(client, tool, tool, arguments)
                totals.edit_requests += request
                totals.edit_replies += reply
                totals.tools[tool] += 1
        except ReplayError as error:
            wire.failures.append(f"{path} revision {index + 1}, edit writer: {error}")
            await client.call_tool("write_file", {"agent_id": EDITOR, "path": path, "content": text})
        check = await client.call_tool("read_file", {"agent_id": EDITOR, "path": path})  # not counted
        content = (check.structured_content or {}).get("content")
        if not wire.check(f"{path} revision {index + 1}, edit writer", str(content), text):
            await client.call_tool("write_file", {"agent_id": EDITOR, "path": path, "content": text})
    return totals
