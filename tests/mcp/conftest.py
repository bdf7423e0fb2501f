"""MCP-layer fixtures: a SQLite store per test, the server built on it, and an in-process client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer

from scratchpad_adapters import open_store
from scratchpad_core.limits import Limits
from scratchpad_core.service import Scratchpad
from scratchpad_mcp.server import build_server
from scratchpad_mcp.server.calls import CallRunner, TrustedCaller
from tests.conftest import FakeSummarizer, StoreFactory


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[StoreFactory]:
    """Open SQLite stores in tmp_path (a new file per call); all are closed after the test."""
    opened: list[Scratchpad] = []

    def factory(limits: Limits | None = None, summarizer: Any = None, name: str = "x.db") -> Scratchpad:
        store = open_store(f"sqlite:///{tmp_path}/{name}", limits=limits, summarizer=summarizer or FakeSummarizer())
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


def serve(store: Scratchpad) -> MCPServer:
    return build_server(store, CallRunner(TrustedCaller()))


@pytest.fixture
def store(make_store: StoreFactory) -> Scratchpad:
    return make_store()


@pytest.fixture
def server(store: Scratchpad) -> MCPServer:
    return serve(store)


@pytest.fixture
async def client(server: MCPServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        yield connected
