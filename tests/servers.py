"""`scratchpad-mcp` server processes serving HTTP on loopback, for the tests that drive them from outside."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from tests.mcp.helpers import START_TIMEOUT, console_script, free_port, server_env


@dataclass
class Server:
    """One `scratchpad-mcp` process serving HTTP on 127.0.0.1:port; its stderr goes to `log`."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path
    env: dict[str, str] = field(repr=False)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"{self.name} exited with {self.process.returncode}: {self.stderr()}")
            try:
                if httpx2.get(f"{self.base}/health", timeout=5).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.2)
        raise AssertionError(f"{self.name}: no /health within {timeout}s: {self.stderr()}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def spawn(folder: Path, name: str, env: Mapping[str, str], *, port: int | None = None) -> Server:
    """Start a server process (without waiting for it); env adds to a clean environment."""
    port = port or free_port()
    full_env = server_env()
    full_env.update({"MCP_TRANSPORT": "http", "PORT": str(port), "SCRATCHPAD_LOG_FORMAT": "json", **env})
    log = folder / f"{name}.stderr"
    with log.open("wb") as errors:
        process = subprocess.Popen(
            [console_script()], env=full_env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
        )
    return Server(name, port, process, log, full_env)


@contextlib.contextmanager
def running(folder: Path, specs: dict[str, dict[str, str]]) -> Iterator[dict[str, Server]]:
    """Start several servers at once, wait until each answers /health, and stop them all afterwards."""
    servers: dict[str, Server] = {}
    try:
        for name, env in specs.items():
            servers[name] = spawn(folder, name, env)
        for server in servers.values():
            server.wait_healthy()
        yield servers
    finally:
        for server in servers.values():
            server.stop()
