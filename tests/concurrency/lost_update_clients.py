"""The client processes of the lost-update test: each drives a real MCP client (over stdio, with a server process
of its own, or over HTTP) through read-increment-write cycles and a lock, and reports what it was told.

A process runs two stages, each on files of its own (`paths`); each stage has three phases, which the processes
start together (a barrier before each):
- write_file: read counter.md ("n" at version v), write "n+1" with expected_version v; on a conflict read again.
- edit_file: the same on edited.md, with old_str "n" and new_str "n+1".
- lock: read lock.md (version v) and claim round v: delete_file with expected_version v. The claim that succeeds
  holds the lock: it adds 1 to guard.md with a blind read and write (kept exact only by the lock), then makes
  the lock again (write_file, expected_version 0: version v + 1, the next round).

Stage "plain" sends no request_id, and a lost answer fails the test. Stage "faults" gives every writing attempt
a request_id of its own and breaks connections at random moments: over stdio the process SIGKILLs its server
at once, 0-1 or 0-10 ms into chosen writing attempts (`kills` of them) and starts another; over HTTP the CuttingProxy
between the clients and the server, which cuts only requests that carry a request_id, does it. A call whose
answer was lost is sent again, unchanged, on a new connection, until an answer comes.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx2
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.mcp.helpers import killable_stdio

AGENT = "lost"
STAGES = ("plain", "faults")
COUNTED = ("write_file", "edit_file")  # the tools that make the increments, one phase each
CALL_TIMEOUT = 30.0
BARRIER_TIMEOUT = 120.0
MAX_BROKEN = 20  # connections in a row that break before an answer: the server is unreachable, the test fails
HELD_POLL, LONG_HELD_POLL = 0.005, 0.05  # seconds between reads of a held lock; after 10, of a long-held one
KILL_DELAYS = (0.0, 0.01, 0.001, 0.01)  # by process: seconds after an attempt went out, at most, that its server
# is killed: one before the request is written (surely lost and resent, however loaded the machine), one early in
# the call, two anywhere (before, during, after the commit)
FIRST = {"write_file": "0", "edit_file": "0", "lock": "round 1", "guard": "0"}  # each file's version 1, by name


def paths(stage: str) -> dict[str, str]:
    """The stage's files: the counter each counting tool increments, the lock, and what the lock guards."""
    return {"write_file": f"{stage}/counter.md", "edit_file": f"{stage}/edited.md",
            "lock": f"{stage}/lock.md", "guard": f"{stage}/guard.md"}  # fmt: skip


@dataclass(frozen=True)
class Plan:
    """What one client process does (picklable, for the pool)."""

    worker: int
    transport: str  # "stdio" or "http"
    target: str  # the database URL (stdio: the process starts its own server) or the MCP URL (http)
    folder: str  # where a stdio server's pid and stderr go
    cycles: int  # acknowledged increments, per counting tool and stage
    rounds: int  # lock rounds a stage, in all
    kills: int  # stdio, stage "faults": in how many of its writing attempts this process kills its server
    seed: int


@dataclass
class Tally:
    """What one client process was told in one stage: the (version, value) each acknowledged increment made, the
    lock rounds it won, and how often it met a conflict, lost an answer, killed its server or connected."""

    acks: dict[str, list[tuple[int, int]]] = field(default_factory=lambda: {tool: [] for tool in COUNTED})
    wins: list[int] = field(default_factory=list)
    conflicts: Counter[str] = field(default_factory=Counter)
    broken_lock: list[str] = field(default_factory=list)  # a claim that won without deleting, or a lock not remade
    resent: Counter[str] = field(default_factory=Counter)  # writing attempts resent, by what the resend then got
    seconds: dict[str, float] = field(default_factory=dict)  # by phase
    calls: int = 0
    kills: int = 0
    connections: int = 0


def run_client(plan: Plan, barrier: Barrier) -> dict[str, Tally]:
    """The body of one client process: what it was told, by stage."""
    return anyio.run(_run, plan, barrier)


async def _run(plan: Plan, barrier: Barrier) -> dict[str, Tally]:
    tallies = {stage: Tally() for stage in STAGES}
    link = Link(plan, tallies["plain"])
    async with anyio.create_task_group() as group:
        group.start_soon(link.serve)
        await link.call("read_file", {"path": paths("plain")["lock"]})  # connected (a server started) first
        for stage, tally in tallies.items():
            link.tally, link.faults = tally, stage == "faults"
            for phase in (*COUNTED, "lock"):
                await anyio.to_thread.run_sync(barrier.wait, BARRIER_TIMEOUT)
                started = time.monotonic()
                if phase == "lock":
                    await _lock(link, paths(stage), plan.rounds)
                else:
                    await _increments(link, paths(stage)[phase], phase, plan.cycles)
                tally.seconds[phase] = time.monotonic() - started
        link.close()
    return tallies


async def _increments(link: Link, path: str, tool: str, cycles: int) -> None:
    acks = link.tally.acks[tool]
    while len(acks) < cycles:
        version, value = await _read(link, path)
        new = str(value + 1)
        change = {"content": new} if tool == "write_file" else {"old_str": str(value), "new_str": new}
        reply = await link.write(tool, {"path": path, **change, "expected_version": version})
        if reply is None:
            link.tally.conflicts[tool] += 1
        else:
            acks.append((reply["version"], value + 1))


async def _lock(link: Link, files: dict[str, str], rounds: int) -> None:
    tally, lock, waited = link.tally, files["lock"], 0
    while True:
        try:
            version, _ = await _read(link, lock, number=False)
        except FileNotFoundError:  # held: deleted by its holder, not made again yet
            waited += 1  # (a holder whose server is restarting holds it for seconds: read less often then)
            await anyio.sleep(HELD_POLL if waited < 10 else LONG_HELD_POLL)
            continue
        waited = 0
        if version > rounds:
            return
        claim = await link.write("delete_file", {"path": lock, "expected_version": version})
        if claim is None:
            tally.conflicts["lock"] += 1
            continue
        tally.wins.append(version)  # a claim that succeeded holds the lock, as any client takes it
        if claim["deleted"] is not True:
            tally.broken_lock.append(f"round {version} was won with {claim}")
        _, guarded = await _read(link, files["guard"])
        await link.write("write_file", {"path": files["guard"], "content": str(guarded + 1)})
        made = await link.write("write_file", {"path": lock, "content": f"round {version + 1}", "expected_version": 0})
        if made is None or made["version"] != version + 1:
            tally.broken_lock.append(f"round {version}: making the lock again got {made}")


async def _read(link: Link, path: str, *, number: bool = True) -> tuple[int, int]:
    """The file's current version and, when it holds a number, that number."""
    result = await link.call("read_file", {"path": path})
    text = _text(result)
    if result.is_error and text.startswith("File not found"):
        raise FileNotFoundError(path)
    assert not result.is_error, text
    reply = result.structured_content
    assert isinstance(reply, dict)
    return reply["current_version"], int(reply["content"]) if number else 0


def _text(result: CallToolResult) -> str:
    return str(getattr(result.content[0], "text", ""))


@dataclass
class _Pending:
    tool: str
    arguments: dict[str, Any]
    answer: CallToolResult | None = None
    attempt: int = 0  # a writing attempt's number in the stage "faults" (it names its request_id)
    lost: bool = False  # an answer to it was lost (it was then sent again)
    done: anyio.Event = field(default_factory=anyio.Event)


class Link:
    """The process's connection to a server, remade when it breaks. Its own task (serve) makes the calls, so a
    broken connection cancels that task's work (the SDK cancels what runs inside a client whose connection
    broke), never the caller's. With `faults`, a call whose answer was lost is sent again unchanged on the next
    connection, and a writing attempt carries a request_id; without, a lost answer fails the test."""

    def __init__(self, plan: Plan, tally: Tally) -> None:
        self.plan, self.tally, self.faults = plan, tally, False
        self._rng = random.Random(f"{plan.seed}-{plan.worker}")
        self._kill_at = set(self._rng.sample(range(1, 2 * plan.cycles + 1), plan.kills))  # attempts, by number
        self._send, self._receive = anyio.create_memory_object_stream[_Pending](1)
        self._attempts = 0

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        pending = await self._exchange(tool, arguments)
        assert pending.answer is not None
        return pending.answer

    async def write(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """A writing call's reply, or None for a version conflict (nothing was changed)."""
        attempt = 0
        if self.faults:
            self._attempts = attempt = self._attempts + 1
            arguments = {**arguments, "request_id": f"w{self.plan.worker}-{attempt}"}
        pending = await self._exchange(tool, arguments, attempt)
        result = pending.answer
        assert result is not None
        conflict = result.is_error and _text(result).startswith("Version conflict on ")
        assert conflict or not result.is_error, f"{tool} {arguments}: {_text(result)}"
        if pending.lost:
            self.tally.resent["conflict" if conflict else "acknowledged"] += 1
        if conflict:
            return None
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    async def _exchange(self, tool: str, arguments: dict[str, Any], attempt: int = 0) -> _Pending:
        pending = _Pending(tool, {"agent_id": AGENT, **arguments}, attempt=attempt)
        await self._send.send(pending)
        await pending.done.wait()
        return pending

    def close(self) -> None:
        self._send.close()

    async def serve(self) -> None:
        """Make the calls handed over, one at a time; reconnect when the connection breaks."""
        pending: _Pending | None = None
        broken = 0  # connections in a row that broke before an answer came
        while True:
            try:
                async with self._connect() as (client, pid):
                    self.tally.connections += 1
                    while True:
                        if pending is None:
                            try:
                                pending = await self._receive.receive()
                            except anyio.EndOfStream:
                                return
                        self._maybe_kill(pid, pending)
                        with anyio.fail_after(CALL_TIMEOUT):
                            pending.answer = await client.call_tool(pending.tool, pending.arguments)
                        pending.done.set()
                        pending, broken = None, 0
            except Exception as error:  # the connection broke, or could not be made: no answer
                broken += 1
                if not self.faults or broken == MAX_BROKEN:
                    raise AssertionError(f"worker {self.plan.worker}: {broken} connection(s) broke") from error
                if pending is not None:
                    pending.lost = True

    def _maybe_kill(self, pid: int | None, pending: _Pending) -> None:
        """Over stdio, in the chosen writing attempts (first sends): SIGKILL the server a moment after it went out."""
        self.tally.calls += 1
        if pid is None or pending.lost or pending.attempt not in self._kill_at:
            return
        self.tally.kills += 1
        delay = self._rng.uniform(0, KILL_DELAYS[self.plan.worker % len(KILL_DELAYS)])
        if not delay:
            _kill(pid)
            return
        timer = threading.Timer(delay, _kill, (pid,))
        timer.daemon = True
        timer.start()

    @contextlib.asynccontextmanager
    async def _connect(self) -> AsyncIterator[tuple[Client, int | None]]:
        plan = self.plan
        mode = "legacy" if plan.worker // 2 % 2 else "auto"  # half speak 2025-11-25, half 2026-07-28
        if plan.transport == "http":
            async with (
                httpx2.AsyncClient(timeout=CALL_TIMEOUT) as http,
                Client(streamable_http_client(plan.target, http_client=http), mode=mode) as client,
            ):
                yield client, None
            return
        stem = Path(plan.folder) / f"w{plan.worker}-{self.tally.kills}"
        env = {"SCRATCHPAD_DATABASE_URL": plan.target, "SCRATCHPAD_LOG_LEVEL": "warning"}
        params, pidfile = killable_stdio(env, stem)
        with stem.with_suffix(".stderr").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                yield client, int(pidfile.read_text())


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
