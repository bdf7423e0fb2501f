"""`scratchpad-mcp` server processes serving HTTP on loopback, for the tests that drive them from outside."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

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
