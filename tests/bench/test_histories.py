"""bench.histories on a tiny git repository: the history read back, every catch-up and edit checked."""

from __future__ import annotations

import subprocess
from itertools import pairwise
from pathlib import Path

import pytest
from mcp import Client

from bench.common import markdown_lines
from bench.histories import (
    FORMATS,
    ReplayError,
    Wire,
    added_bytes,
    apply_hunks,
    load,
    main,
    most_revised,
    plan,
    replay_reader,
    replay_writer,
)
from scratchpad_adapters import open_store
from scratchpad_core.limits import Limits
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller

BASE = markdown_lines(40)
REVISIONS = [
    "\n".join(BASE),  # no final newline
    "\n".join(BASE) + "\n",  # the final newline added
    "\n".join(["# Top line", *BASE]) + "\n",  # a line inserted at the top
    "\n".join(["# Top line", *BASE, "- the end"]) + "\n",  # and at the end
    "\n".join(["# Top line", *BASE[:10], *BASE[12:], "- the end"]) + "\n",  # two lines deleted
    "\n".join(["# Top line", *BASE[:10], *BASE[12:], "- the end", "- [ ] x", "- [ ] x"]) + "\n",
    "\n".join(["# Top line", *BASE[:10], *BASE[12:], "- the end", "- [ ] x", "- [x] x"]) + "\n",  # a repeated line
]


def commit(repo: Path, message: str, *args: str) -> None:
    for command in [["add", *args], ["commit", "-q", "-m", message]]:
        subprocess.run(["git", "-C", str(repo), *command], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """notes.md through REVISIONS, renamed to docs/notes.md (no change) after the third."""
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for key, value in [("user.email", "bench@example.com"), ("user.name", "bench"), ("commit.gpgsign", "false")]:
        subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)
    path = repo / "notes.md"
    for number, text in enumerate(REVISIONS, 1):
        path.write_text(text, encoding="utf-8")
        commit(repo, f"revision {number}", str(path.relative_to(repo)))
        if number == 3:
            (repo / "docs").mkdir()
            subprocess.run(["git", "-C", str(repo), "mv", "notes.md", "docs/notes.md"], check=True)
            commit(repo, "rename", "-A")
            path = repo / "docs" / "notes.md"
    (repo / "image.bin").write_bytes(b"\x00\x01" * 10)
    commit(repo, "binary", "image.bin")
    return repo


def test_history_is_read_oldest_first_through_the_rename(repo: Path) -> None:
    document = load(repo, "docs/notes.md", max_bytes=1 << 20)
    assert document.texts == REVISIONS
    assert dict(document.skipped) == {"same text as the revision before": 1}
    assert [d.path for d in most_revised(repo, top=5, min_revisions=2, max_bytes=1 << 20, max_revisions=3)] == [
        "docs/notes.md"
    ]
    capped = load(repo, "docs/notes.md", max_bytes=1 << 20, max_revisions=3)
    assert capped.texts == REVISIONS[:3]
    limit = len(REVISIONS[1].encode())
    small = load(repo, "docs/notes.md", max_bytes=limit)
    fitting = [text for text in REVISIONS if len(text.encode()) <= limit]
    assert small.texts == fitting  # the rename's revision (revision 3 again) is one of those too large
    assert small.skipped == {f"over the {limit:,}-byte file limit": 8 - len(fitting)}


def test_floor_and_compact_hunks_from_the_spec() -> None:
    assert added_bytes("a\nb", "a\nb\n") == 1  # the trailing empty line
    assert added_bytes("a\nb\n", "top\na\nb\nend\n") == len("top\n") + len("end\n")
    assert added_bytes("a\nb\nc\n", "a\nc\n") == 0
    old = "a\nb\nc"
    hunks = [
        {"at": 1, "remove": 0, "add": ["top"]},
        {"at": 2, "remove": 1, "add": []},
        {"at": 4, "remove": 0, "add": ["end"]},
    ]
    assert apply_hunks(old, hunks) == "top\na\nc\nend"
    assert apply_hunks(old, [{"at": 3, "remove": 1, "add": ["c", ""]}]) == "a\nb\nc\n"
    with pytest.raises(ReplayError):
        apply_hunks(old, [{"at": 2, "remove": 1, "add": []}, {"at": 2, "remove": 0, "add": ["x"]}])
    with pytest.raises(ReplayError):
        apply_hunks(old, [{"at": 3, "remove": 2, "add": []}])
    wire = Wire()
    assert wire.check("notes.md", "a\nb", "a\nb\n") is False
    assert wire.failures == [
        "notes.md: reconstruction differs from the revision (2 lines against 3, first different line 3)"
    ]


def test_edit_plans_quote_unique_text() -> None:
    old, new = REVISIONS[5], REVISIONS[6]
    calls = plan("agent", "notes.md", old, new)
    assert [tool for tool, _ in calls] == ["edit_file"]
    quoted = calls[0][1]["old_str"]
    assert old.count(quoted) == 1 and old.replace(quoted, calls[0][1]["new_str"]) == new
    assert plan("agent", "notes.md", REVISIONS[2], REVISIONS[3])[0][0] == "insert_lines"
    assert plan("agent", "notes.md", "a\n", "b\n")[0][0] == "write_file"  # smaller than an edit


@pytest.mark.anyio
@pytest.mark.parametrize("kept", [10, 3])
async def test_replay_checks_out_and_adds_up(repo: Path, tmp_path: Path, kept: int) -> None:
    """With 3 versions kept, the every-5th catch-up from version 1 gets version_too_old and the whole file."""
    texts = load(repo, "docs/notes.md", max_bytes=1 << 20).texts
    wire = Wire()
    with open_store(f"sqlite:///{tmp_path / 'bench.db'}", limits=Limits(max_versions=kept)) as store:
        async with Client(build_server(store, CallRunner(TrustedCaller(), []))) as client:
            every, fifth = await replay_reader(wire, client, "docs/notes.md", texts)
            writing = await replay_writer(wire, client, "docs/notes.md", texts)
    assert wire.failures == []
    assert every.reads == len(texts) - 1 and fifth.reads == 2  # after revision 6, and at the last (7)
    sizes = sum(len(text.encode()) for text in texts[1:])
    assert sizes < every.full < sizes + 200 * every.reads  # the content plus a little JSON each time
    assert every.floor == sum(added_bytes(a, b) for a, b in pairwise(texts)) > 0
    assert set(every.replies) == set(FORMATS)
    assert all(every.floor <= every.replies[f] < every.full for f in FORMATS)
    assert all(fifth.floor <= fifth.replies[f] for f in FORMATS)
    assert every.too_old == 0 and fifth.too_old == (len(FORMATS) if kept < 5 else 0)
    assert writing.revisions == len(texts) - 1
    assert {"edit_file", "insert_lines"} <= set(writing.tools)
    assert writing.edit_requests < writing.rewrite_requests


def test_command_line_prints_the_tables(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["--repo", str(repo), "--path", "docs/notes.md", "--path", "image.bin"])
    out = capsys.readouterr().out
    assert "bench.histories --repo" in out and "image.bin: left out" in out
    assert "| docs/notes.md (7 rev.)" in out and "compact ÷ floor" in out
