"""regex=true on untrusted patterns, in a real server process driven by a real MCP client over HTTP: every pattern
answers or is refused in one line naming the construct or the limit (never "failed inside the server"), within
the time budget, and the server's peak memory, read from /proc from outside, stays within 64 MiB of its idle size;
the server keeps serving afterwards."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from tests.deploy.conftest import TEST_TIMEOUT, connect, unique
from tests.mcp.helpers import ok, refused
from tests.servers import running

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

MIB = 1 << 20
ABOVE_IDLE = 64 * MIB
BUDGET_S = 2.0  # the server's regex time budget (scratchpad_adapters.regex_engine)
LONG = "a" * 1_000_000 + "!"  # one line of a file near the 1 MiB limit
MIXED = ("abcdefghij klmnopqrstuvwxyz0123456789 " * 27_000)[:1_000_000]  # off RE2's fast path for SLOW

SLOW = r"(?:.{999}x|y)" * 5  # linear, but about 10 µs a byte: one search of MIXED alone would take over 10 s
# pattern -> what its reply must hold: a refusal naming the construct or the limit, or (None) an answer
PATTERNS: dict[str, str | None] = {
    r"(?(DEFINE)(?<a>(?&a)))(?&a)": "a conditional or recursion",  # 30 characters: ~600 MB under `regex`
    "(" * 10_000 + "a" + ")" * 10_000: "Invalid query: it must be 1..1000 characters",
    "(" * 499 + "a" + ")" * 499: None,  # as deep as a query can nest: answers
    "(a+)+$": None,  # on the 1 MiB line, which ends in '!': no match, at once
    "^(a|aa)+!$": None,
    r"(x{1000}){1000}": "the repetition {1000} passes RE2's limit of 1,000",
    r"(a)\1": "a backreference",
    r"a(?=!)": "lookahead",
    r"(?<=a)!": "lookbehind",
    r"a++!": "a possessive quantifier",
    r"a(*SKIP)b": "the backtracking control verb (*SKIP)",
    r"(?P<>x)": "the named group (?P<> has no name",
    r"a\Kb": "\\K (a reset of the match's start)",
    r"a\hb": "\\h (horizontal whitespace)",
    r"\pL{300}\pL{300}\pL{300}\pL{300}\pL{300}": "more than RE2's memory bound",
    SLOW: f"Regex search stopped after {BUDGET_S:g} seconds (its time budget)",
}


def status(pid: int, field: str) -> int:
    """A /proc/<pid>/status figure (VmRSS, VmHWM), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def reset_peak(pid: int) -> bool:
    """Start the process's VmHWM again from its current RSS (Linux: 5 > clear_refs); False where not allowed."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


async def test_untrusted_patterns_answer_or_are_refused_in_bounded_memory(tmp_path: Path) -> None:
    agent = unique("regex")
    env = {"SCRATCHPAD_AUTH": "none", "SCRATCHPAD_DB_PATH": str(tmp_path / "regex.db")}
    with running(tmp_path, {"server": env}) as servers, anyio.fail_after(TEST_TIMEOUT * 2):
        server = servers["server"]
        pid = server.process.pid
        async with connect(server.mcp_url) as client:
            base = {"agent_id": agent}
            await ok(client, "write_file", {**base, "path": "long.txt", "content": LONG + "\n"})
            await ok(client, "write_file", {**base, "path": "mixed.txt", "content": MIXED + "\n"})
            await ok(client, "write_file", {**base, "path": "notes.md", "content": "a short line\n"})
            await ok(client, "append_log", {**base, "path": "run.log", "entry": "aaaa!"})
            for _ in range(3):  # warm: the search path, RE2 and the database's caches are loaded
                await ok(client, "search_files", {**base, "query": "^a sh.rt", "regex": True})
            idle = status(pid, "VmRSS")
            sampled = reset_peak(pid)
            peak = idle
            for pattern, expected in PATTERNS.items():
                started = time.monotonic()
                reply = await client.call_tool("search_files", {**base, "query": pattern, "regex": True})
                took = time.monotonic() - started
                peak = max(peak, status(pid, "VmRSS"))
                text = reply.content[0].text  # type: ignore[union-attr]
                assert "failed inside the server" not in text, (pattern[:40], text)
                assert took < BUDGET_S + 3, (pattern[:40], took)
                if expected is None:
                    assert reply.is_error is False, (pattern[:40], text)
                else:
                    assert reply.is_error is True and expected in text and "\n" not in text, (pattern[:40], text)
            if sampled:
                peak = max(peak, status(pid, "VmHWM"))
            assert peak - idle <= ABOVE_IDLE, f"peak {peak / MIB:.1f} MiB against {idle / MIB:.1f} MiB idle"
            # still serving, and the searches that should answer do
            found = await ok(client, "search_files", {**base, "query": "^a+!$", "regex": True})
            assert [(m["path"], m.get("line"), m.get("entry")) for m in found["matches"]] == [
                ("long.txt", 1, None), ("run.log", None, 1)
            ]  # fmt: skip
            assert "lookahead" in await refused(client, "search_files", {**base, "query": "a(?!b)", "regex": True})
            await ok(client, "write_file", {**base, "path": "after.md", "content": "still here\n"})
        assert server.process.poll() is None
