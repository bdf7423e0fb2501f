"""Fuzzing over stdio: a server process fed raw bytes on stdin (its stdout read line by line with timeouts), and
the runs the tests and bench/fuzz.py share: generated tool calls as raw lines, malformed JSON-RPC envelopes."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from collections import Counter
from typing import IO, Any

from bench.fuzz_cases import call_message, calls, compact
from bench.fuzz_checks import Commits, assert_answer, assert_call_answer
from bench.fuzz_raw import raw_messages


class RawStdio:
    def __init__(self, command: list[str], env: dict[str, str], stderr: IO[bytes]) -> None:
        self.process = subprocess.Popen(command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr)
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def reply(self, timeout: float) -> dict[str, Any]:
        """The next line the server writes, parsed; fails on a timeout (a hang) or the end of stdout (a death)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no reply within {timeout} s") from None
        assert line is not None, f"the server closed stdout (exit code {self.process.poll()})"
        assert line.endswith(b"\n")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def close(self, timeout: float) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# Kinds the server takes as they are (a CR as JSON whitespace, any string or integer id); all others are refused.
ANSWERED_AS_SENT = ("valid_", "cr_", "id_string", "id_huge", "id_negative", "id_empty_string", "id_long_string")


def handshake(server: RawStdio, timeout: float) -> dict[str, dict[str, Any]]:
    """initialize (2025-11-25) and tools/list; each tool's input schema by name."""
    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}
    server.send(compact({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": initialize}))
    assert "result" in server.reply(timeout)
    server.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
    server.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    return {tool["name"]: tool["inputSchema"] for tool in server.reply(timeout)["result"]["tools"]}


def call_lines(
    server: RawStdio, commits: Commits, schemas: dict[str, dict[str, Any]], seed: int, count: int, timeout: float
) -> Counter[str]:
    """Generated tool calls as raw lines, one at a time: each answered with its id, a refusal committing nothing."""
    outcomes: Counter[str] = Counter()
    for n, generated in enumerate(calls(schemas, seed, count)):
        before = commits.version()
        server.send(call_message(n, generated))
        outcomes[assert_call_answer(server.reply(timeout), n, generated, commits, before)] += 1
    return outcomes


def envelopes(server: RawStdio, commits: Commits, seed: int, count: int, bound: int, timeout: float) -> Counter[str]:
    """Malformed JSON-RPC lines: every id answered once (a batch: each of its ids; none to be found: id null),
    nothing else written, and the server still answering a ping after each line it must not answer."""
    kinds: Counter[str] = Counter()
    for n, raw in enumerate(raw_messages(seed, count, line_bound=bound)):
        before = commits.version()
        server.send(raw.data)
        answered = []
        for _ in raw.answer_ids:
            reply = server.reply(timeout)
            assert_answer(reply, commits, before, raw.kind, must_refuse=not raw.kind.startswith(ANSWERED_AS_SENT))
            answered.append(reply["id"])
        assert sorted(map(repr, answered)) == sorted(map(repr, raw.answer_ids)), (raw.kind, raw.data[:200])
        if not raw.answer_ids:
            server.send(b'{"jsonrpc":"2.0","id":"ping-%d","method":"ping"}' % n)
            assert server.reply(timeout) == {"jsonrpc": "2.0", "id": f"ping-{n}", "result": {}}, raw.kind
        kinds[raw.kind] += 1
    return kinds
