"""Over stdio, tools run inline, except the slow ones: a summary or a search must not hold up other requests."""

from __future__ import annotations

import threading

import anyio
import pytest
from mcp import Client

from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from tests.conftest import FakeSummarizer, StoreFactory
from tests.mcp.helpers import long_text, ok

pytestmark = pytest.mark.anyio

A = {"agent_id": "a"}


class GatedSummarizer(FakeSummarizer):
    """Holds each summary until the test opens the gate (or 30 s pass, so a broken server fails, not hangs)."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.released_by_test = False

    def summarize(self, path: str, content: str) -> str:
        self.entered.set()
        self.released_by_test = self.gate.wait(timeout=30)
        return super().summarize(path, content)


async def test_other_calls_are_answered_while_a_summary_is_being_made(make_store: StoreFactory) -> None:
    summarizer = GatedSummarizer()
    store = make_store(summarizer=summarizer)
    server = build_server(store, CallRunner(TrustedCaller(), inline=True))  # as over stdio
    async with Client(server) as client:
        await ok(client, "write_file", {**A, "path": "long.md", "content": long_text(9000)})
        summary: dict[str, object] = {}

        async def summarize() -> None:
            summary.update(await ok(client, "summarize_file", {**A, "path": "long.md"}))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(summarize)
            await anyio.to_thread.run_sync(summarizer.entered.wait, 30)
            # The summary is still being made: these are answered meanwhile.
            assert (await ok(client, "write_file", {**A, "path": "other.md", "content": "x"}))["version"] == 1
            assert (await ok(client, "list_files", A))["count"] == 2
            assert not summary
            summarizer.gate.set()
        assert summarizer.released_by_test, "the other calls waited for the summary"
        assert summary["cached"] is False
