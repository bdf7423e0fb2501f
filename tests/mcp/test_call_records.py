"""What the runner records of each call (the call log and the metrics read it): bytes_in is the UTF-8 size of the
arguments a tool declares as its payload, and nothing else."""

from __future__ import annotations

import pytest
from mcp import Client

from scratchpad_core.errors import RateLimited
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRecord, CallRunner, TrustedCaller
from tests.mcp.helpers import ok, refused

pytestmark = pytest.mark.anyio

A = {"agent_id": "recorded"}


class Recorder:
    def __init__(self) -> None:
        self.records: list[CallRecord] = []

    def after(self, record: CallRecord) -> None:
        self.records.append(record)


async def test_bytes_in_counts_each_tools_payload_in_utf8(store: Scratchpad) -> None:
    recorder = Recorder()
    async with Client(build_server(store, CallRunner(TrustedCaller(), [recorder]))) as client:
        await ok(client, "write_file", {**A, "path": "n.md", "content": "héllo\nwörld\n"})
        await ok(client, "edit_file", {**A, "path": "n.md", "old_str": "wörld", "new_str": "€uro"})
        await ok(client, "insert_lines", {**A, "path": "n.md", "line": 0, "text": "ünder\n"})
        await ok(client, "append_log", {**A, "path": "j", "entry": "día"})
        await ok(client, "read_file", {**A, "path": "n.md"})
        await ok(client, "search_files", {**A, "query": "héllo"})
        await ok(client, "restore_version", {**A, "path": "n.md", "version": 1})
        await refused(client, "edit_file", {**A, "path": "n.md", "old_str": "absent", "new_str": "x"})
    sizes = [(record.tool, record.outcome, record.bytes_in) for record in recorder.records]
    assert sizes == [
        ("write_file", "ok", 14),
        ("edit_file", "ok", 6 + 6),
        ("insert_lines", "ok", 7),
        ("append_log", "ok", 4),
        ("read_file", "ok", 0),
        ("search_files", "ok", 0),  # a query is not stored: no payload
        ("restore_version", "ok", 0),
        ("edit_file", "edit_mismatch", 6 + 1),  # counted when refused too: it crossed the wire
    ]


async def test_calls_refused_before_their_tool_carry_no_payload(store: Scratchpad) -> None:
    recorder = Recorder()
    async with Client(build_server(store, CallRunner(TrustedCaller(), [recorder]))) as client:
        await refused(client, "write_file", {**A, "path": "n.md", "content": "x" * 100, "typo": 1})
        await refused(client, "write_file", {**A, "path": "n.md", "content": 5})
    assert [(r.tool, r.outcome, r.bytes_in) for r in recorder.records] == [
        ("write_file", "invalid_arguments", 0),
        ("write_file", "invalid_arguments", 0),
    ]


class ClosedGate:
    """A gate that refuses every call, as a rate limit does once the budget is spent."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def admit(self, agent_id: str, tool: str) -> None:
        self.asked.append((agent_id, tool))
        raise RateLimited(2.5)


async def test_a_gate_refuses_before_the_use_case_runs_and_the_observers_see_the_refusal(store: Scratchpad) -> None:
    recorder, gate = Recorder(), ClosedGate()
    async with Client(build_server(store, CallRunner(TrustedCaller(), [recorder], gates=[gate]))) as client:
        message = await refused(client, "write_file", {**A, "path": "n.md", "content": "x"})
        await refused(client, "write_file", {"agent_id": "../bad", "path": "n.md", "content": "x"})
    assert message == "Rate limit exceeded for this agent: nothing was changed. Retry in 2.50 seconds."
    assert gate.asked == [("recorded", "write_file")]  # only callers the policy has checked reach a gate
    assert [(r.tool, r.outcome, r.bytes_in) for r in recorder.records] == [
        ("write_file", "rate_limited", 1),
        ("write_file", "invalid_agent_id", 1),
    ]
    assert store.list_files("recorded").count == 0
