"""Target (issue 28): any regex=true pattern answers or is refused in one line, within the search's time budget, and
one call's memory stays within 64 MiB of the server's idle size.

    uv run python -m bench.regex_limits

One server process over HTTP (SQLite, SCRATCHPAD_AUTH=none), a real MCP client. An agent holds a 1 MiB line of
`a` ending in `!`, a 1 MiB line of mixed text and a log entry; after a few warm searches the server's RSS is its
idle size, and its peak (VmHWM) is started again from there (5 > /proc/PID/clear_refs). Each hostile pattern is
then searched once: its time, what came back (an answer, or the refusal's first words), and the server's RSS
after it; at the end, the peak since idle. Figures only, no asserts; they go to the docs (docs/).
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

from bench.common import markdown_table, start_replica

LONG = "a" * 1_000_000 + "!"
MIXED = ("abcdefghij klmnopqrstuvwxyz0123456789 " * 27_000)[:1_000_000]
PATTERNS = {
    "recursion, 30 characters": r"(?(DEFINE)(?<a>(?&a)))(?&a)",
    "nested 10,000 deep": "(" * 10_000 + "a" + ")" * 10_000,
    "nested 499 deep": "(" * 499 + "a" + ")" * 499,
    "(a+)+$ on a 1 MiB line": "(a+)+$",
    "(x{1000}){1000}": r"(x{1000}){1000}",
    "a backreference": r"(a)\1",
    "a lookahead": r"a(?=!)",
    "wide classes, 5 x 300": r"\pL{300}" * 5,
    "off RE2's fast path": r"(?:.{999}x|y)" * 5,
}


def status(pid: int, field: str) -> float:
    """A /proc/<pid>/status figure, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


async def measure(url: str, pid: int) -> tuple[float, float, list[list[str]]]:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    agent = {"agent_id": "bench"}
    rows: list[list[str]] = []
    async with (
        httpx2.AsyncClient(timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):

        async def call(tool: str, arguments: dict[str, Any]) -> tuple[bool, str]:
            result = await client.call_tool(tool, {**agent, **arguments})
            return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]

        for path, content in (("long.txt", LONG), ("mixed.txt", MIXED), ("notes.md", "a short line")):
            await call("write_file", {"path": path, "content": content + "\n"})
        await call("append_log", {"path": "run.log", "entry": "aaaa!"})
        for _ in range(3):
            await call("search_files", {"query": "^a sh.rt", "regex": True})
        idle = status(pid, "VmRSS")
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        for name, pattern in PATTERNS.items():
            started = time.monotonic()
            refused, text = await call("search_files", {"query": pattern, "regex": True})
            took = time.monotonic() - started
            said = (text if len(text) <= 70 else text[:70] + "…") if refused else f"{json.loads(text)['count']} matches"
            rows.append([name, f"{took * 1000:,.0f} ms", said, f"{status(pid, 'VmRSS'):.1f}"])
        return idle, status(pid, "VmHWM"), rows


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        database = f"sqlite:///{Path(folder) / 'regex.db'}"
        server = start_replica("regex", database, Path(folder), {"SCRATCHPAD_AUTH": "none"})
        try:
            server.wait_healthy(60)
            idle, peak, rows = anyio.run(measure, server.mcp_url, server.process.pid)
        finally:
            server.stop()
    print(markdown_table(["pattern", "time", "reply", "RSS after, MiB"], rows, right=(1, 3)))
    print(f"\nidle {idle:.1f} MiB; peak (VmHWM) since idle {peak:.1f} MiB: {peak - idle:+.1f} MiB (target ≤ +64)")


if __name__ == "__main__":
    main()
