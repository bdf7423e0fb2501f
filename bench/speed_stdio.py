"""The stdio rows of bench.speed: one MCP client session per server, the same calls on each, and start-up times."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client

from bench.common import markdown_file, markdown_lines
from bench.speed_procs import Sample, Server, children, cpu_seconds, tree

KIB = 1024
FILL_FILE = 1_000_000  # the original refuses a write over 1 MiB
BODY = "\n".join(markdown_lines(40, seed=11)[1:])
ENTRY_WORDS = " ".join(markdown_lines(8, seed=17)[1:])

# row label -> the share of --calls it makes (the slow rows make fewer calls)
ROWS = {
    "ping": 1.0,
    "write_file 1 KiB": 1.0,
    "read_file 1 KiB": 1.0,
    "read_file since_version (1 line changed in 1,000)": 1.0,
    "append_log 200 B": 1.0,
    "read_log, a page of 100": 1.0,
    "list_files, 1,000 files in one call": 0.1,
    "write_file 1 KiB with 50 MiB stored": 0.1,
}


def kib_file(counter: int) -> str:
    return (f"# revision {counter}\n" + BODY)[:KIB]


def log_entry(counter: int) -> str:
    return f"[{counter:06d}] {ENTRY_WORDS}"[:200].ljust(200, ".")


def text_of(result: Any) -> dict[str, Any]:
    """The reply as JSON (both servers put their result as JSON in the text content); raises on a tool error."""
    text = result.content[0].text
    if result.is_error:
        raise RuntimeError(f"tool error: {text[:300]}")
    parsed: dict[str, Any] = json.loads(text)
    return parsed


@dataclass
class Connected:
    """A server over stdio with its client session, its process tree, and what the rows need set up."""

    server: Server
    session: ClientSession
    pids: list[int]
    agent: str = "speed"
    counter: int = 0
    since: int = 0  # the version of the 1,000-line file the diff reads from

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        return text_of(await self.session.call_tool(tool, arguments))

    async def set_up(self) -> None:
        """The files and log the rows read: a 1 KiB file, a 1,000-line file changed on one line, 200 log entries,
        1,000 files of another agent, 50 MiB stored by a third."""
        await self.call("write_file", agent_id=self.agent, path="notes/small.md", content=kib_file(0))
        lines = markdown_file(1000).split("\n")
        first = await self.call("write_file", agent_id=self.agent, path="notes/big.md", content="\n".join(lines))
        lines[500] = lines[500][:40] + " (changed)"
        await self.call("write_file", agent_id=self.agent, path="notes/big.md", content="\n".join(lines))
        self.since = int(first["version"])
        for n in range(200):
            await self.call("append_log", agent_id=self.agent, path="logs/actions", entry=log_entry(n))
        for n in range(1000):
            await self.call("write_file", agent_id="speed-list", path=f"files/{n:04d}.md", content=f"file {n}\n")
        base = markdown_file(25_000, seed=3)
        for n in range(50):
            offset = n * 7919 % len(base)
            content = (f"# fill {n}\n" + base[offset:] + base)[:FILL_FILE]
            await self.call("write_file", agent_id="speed-full", path=f"fill/{n:02d}.md", content=content)

    def operation(self, row: str) -> Callable[[], Awaitable[Any]]:
        """One call of the row's operation."""
        agent = self.agent

        def write(who: str) -> Callable[[], Awaitable[Any]]:
            async def run() -> Any:
                self.counter += 1
                return await self.call(
                    "write_file", agent_id=who, path="notes/small.md", content=kib_file(self.counter)
                )

            return run

        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "ping": self.session.send_ping,
            "write_file 1 KiB": write(agent),
            "read_file 1 KiB": lambda: self.call("read_file", agent_id=agent, path="notes/small.md"),
            "read_file since_version (1 line changed in 1,000)": lambda: self.call(
                "read_file", agent_id=agent, path="notes/big.md", since_version=self.since
            ),
            "append_log 200 B": self._append,
            "read_log, a page of 100": lambda: self.call(
                "read_log", agent_id=agent, path="logs/actions", since_entry=0
            ),
            "list_files, 1,000 files in one call": lambda: self.call("list_files", agent_id="speed-list"),
            "write_file 1 KiB with 50 MiB stored": write("speed-full"),
        }
        return calls[row]

    async def _append(self) -> Any:
        self.counter += 1
        return await self.call("append_log", agent_id=self.agent, path="logs/actions", entry=log_entry(self.counter))

    async def measure(self, row: str, calls: int, warmup: int) -> Sample:
        run = self.operation(row)
        for _ in range(warmup):
            await run()
        sample = Sample()
        before = cpu_seconds(self.pids)
        for _ in range(calls):
            started = time.perf_counter()
            await run()
            sample.seconds.append(time.perf_counter() - started)
        sample.cpu = cpu_seconds(self.pids) - before
        return sample


@contextlib.asynccontextmanager
async def session_of(server: Server, db_path: Path, stderr: Path, **env: str) -> Any:
    """A server started over stdio, initialized (protocol 2025-11-25, as most hosts speak it) and its tools listed."""
    params = StdioServerParameters(
        command=server.command[0], args=list(server.command[1:]), env=server.env(db_path, **env), cwd=server.cwd
    )
    with stderr.open("a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            yield session


@contextlib.asynccontextmanager
async def connect(server: Server, db_path: Path, stderr: Path) -> Any:
    """A server over stdio with its process tree found."""
    before = set(children(os.getpid()))
    async with session_of(server, db_path, stderr) as session:
        started = [pid for pid in children(os.getpid()) if pid not in before]
        yield Connected(server, session, [p for pid in started for p in tree(pid)])


async def start_up(server: Server, db_path: Path, stderr: Path, **env: str) -> tuple[float, float]:
    """Seconds from starting the process to the first tools/list answer, and to the answer of a first tool call
    sent right after it (a listing of an agent's files)."""
    started = time.perf_counter()
    async with session_of(server, db_path, stderr, **env) as session:
        listed = time.perf_counter() - started
        text_of(await session.call_tool("list_files", {"agent_id": "speed"}))
        return listed, time.perf_counter() - started
