"""A server process driven by hand over stdio: one JSON-RPC message per line, with timeouts."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from types import TracebackType
from typing import IO, Any

from tests.mcp.helpers import START_TIMEOUT


class JsonRpcProcess:
    INITIALIZE: dict[str, Any] = {  # noqa: RUF012
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    }

    def __init__(self, command: list[str], env: dict[str, str]) -> None:
        self._process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stdout: list[str] = []
        self._stderr: list[str] = []
        assert self._process.stdout is not None and self._process.stderr is not None
        self._threads = [
            threading.Thread(target=self._pump, args=(self._process.stdout, self._stdout, self._lines), daemon=True),
            threading.Thread(target=self._pump, args=(self._process.stderr, self._stderr, None), daemon=True),
        ]
        for thread in self._threads:
            thread.start()
        self.returncode: int | None = None

    @staticmethod
    def _pump(stream: IO[str], seen: list[str], lines: queue.Queue[str | None] | None) -> None:
        for line in stream:
            seen.append(line)
            if lines is not None:
                lines.put(line)
        if lines is not None:
            lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request(self, request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        reply: dict[str, Any] = json.loads(self.reply_line(request_id, method, params))
        assert reply.get("id") == request_id, reply
        return reply

    def reply_line(self, request_id: int | str, method: str, params: dict[str, Any] | None) -> str:
        """The line answering one request, as the server wrote it."""
        extra = {} if params is None else {"params": params}
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, **extra})
        return self.next_line()

    def next_line(self) -> str:
        """The next line the server writes."""
        line = self._lines.get(timeout=START_TIMEOUT)
        assert line is not None, f"stdout closed; stderr: {''.join(self._stderr)}"
        return line

    def finish(self) -> tuple[str, str]:
        """Close stdin, wait for the exit, and return all of stdout and stderr."""
        assert self._process.stdin is not None
        self._process.stdin.close()
        self.returncode = self._process.wait(timeout=START_TIMEOUT)
        for thread in self._threads:
            thread.join(timeout=START_TIMEOUT)
        return "".join(self._stdout), "".join(self._stderr)

    def __enter__(self) -> JsonRpcProcess:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            if stream is not None and not stream.closed:
                stream.close()
