"""A slow call that no client waits for any more does not keep the stdio server alive (issue 9's audit: a summary
cut off at the end of stdin kept the process running for minutes, until the summarizer's retries timed out)."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.helpers import START_TIMEOUT, console_script, long_text, server_env

INITIALIZE = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}


@pytest.fixture
def silent_api() -> Iterator[tuple[str, threading.Event]]:
    """An Anthropic API address that takes connections and never answers, and an event set when one came."""
    listener = socket.create_server(("127.0.0.1", 0))
    called = threading.Event()
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return
            called.set()

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}", called
    listener.close()
    for connection in held:
        connection.close()


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call(number: int, tool: str, **arguments: Any) -> dict[str, Any]:
    params = {"name": tool, "arguments": {"agent_id": "slow", **arguments}}
    return {"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params}


def test_a_cancelled_summary_does_not_hold_the_server_at_the_end_of_stdin(
    tmp_path: Path, silent_api: tuple[str, threading.Event]
) -> None:
    url, called = silent_api
    env = server_env(
        SCRATCHPAD_DATABASE_URL=f"sqlite:///{tmp_path / 'slow.db'}", ANTHROPIC_API_KEY="sk-ant-test",
        ANTHROPIC_BASE_URL=url,
    )  # fmt: skip
    server = subprocess.Popen(
        [console_script()], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path
    )
    try:
        assert server.stdin is not None
        for message in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            call(2, "write_file", path="long.md", content=long_text()),
            call(3, "summarize_file", path="long.md"),
        ):
            server.stdin.write(line(message))
        server.stdin.flush()
        assert called.wait(START_TIMEOUT), "the summary reached the API"
        cancel = {"method": "notifications/cancelled", "params": {"requestId": 3, "reason": "user"}}
        last = line({"jsonrpc": "2.0", **cancel}) + line(call(4, "read_file", path="long.md"))
        started = time.monotonic()
        out, err = server.communicate(last, timeout=START_TIMEOUT)  # then the end of stdin
        took = time.monotonic() - started
    finally:
        server.kill()
        server.wait()
    assert server.returncode == 0, err.decode()[-2000:]
    assert took < 10, took  # not the summarizer's timeout (60 s a try), nor the 30 s the end of stdin waits at most
    by_id = {m["id"]: m for m in map(json.loads, out.splitlines())}
    assert set(by_id) == {1, 2, 4}, out[-500:]  # a cancelled request gets no reply; the one after it does
    assert json.loads(by_id[4]["result"]["content"][0]["text"])["content"] == long_text()
    assert b"1 call(s) still running that no client waits for" in err, err.decode()[-2000:]
