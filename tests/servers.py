"""`scratchpad-mcp` server processes serving HTTP on loopback (MCP, or the `web` command), for the tests that drive
them from outside."""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from bench.common import ServerProcess, free_port
from tests.mcp.helpers import START_TIMEOUT, console_script, server_env


@dataclass
class Server(ServerProcess):
    """A server process with the environment it was started with."""

    env: dict[str, str] = field(repr=False)

    def wait_healthy(self, timeout: float = START_TIMEOUT) -> None:
        super().wait_healthy(timeout)


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


class WebProcess:
    """`scratchpad-mcp --database URL web --port P ARGS...` with env added to a clean environment."""

    def __init__(self, database: str, *args: str, **env: str) -> None:
        self.port = free_port()
        command = [console_script(), "--database", database, "web", "--port", str(self.port), *args]
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115  (closed by stop); not a pipe, which could fill up
        self.process = subprocess.Popen(
            command, env={**server_env(), **env}, stdout=subprocess.PIPE, stderr=self.errors, text=True
        )

    def url(self) -> str:
        assert self.process.stdout is not None
        line = str(self.process.stdout.readline())
        assert line.startswith("scratchpad web view: http://"), line
        return line.split(": ", 1)[1].strip()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, **options: object) -> httpx2.Response:
        return self.request("GET", path, **options)

    def request(self, method: str, path: str, **options: object) -> httpx2.Response:
        """`method` on `path`, retried until the server answers (it may still be starting)."""
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                return httpx2.request(method, f"{self.base}{path}", timeout=30, **options)  # type: ignore[arg-type]
            except httpx2.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stderr(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", errors="replace")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)
        self.errors.close()
