"""A server process fed raw bytes on stdin, its stdout read line by line with timeouts."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from typing import IO, Any


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
