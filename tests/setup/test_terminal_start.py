"""`uv run scratchpad-mcp` started in a terminal (stdin a TTY) says on stderr that it waits for an MCP client and how
a host starts it, instead of hanging silently; started by a host (stdin a pipe) it says nothing of the kind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAID = "waiting for an MCP client on stdin"


def stderr_until(process: subprocess.Popen[bytes], marker: str, seconds: float = 60) -> str:
    assert process.stderr is not None
    os.set_blocking(process.stderr.fileno(), False)
    seen = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and marker.encode() not in seen:
        seen += process.stderr.read() or b""
        time.sleep(0.05)
    return seen.decode()


def start(tmp_path: Path, stdin: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SCRATCHPAD_DB_PATH": str(tmp_path / "t.db"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-c", "from scratchpad_mcp.launch import entry_point; entry_point()"]
    return subprocess.Popen(command, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=ROOT)


def test_a_terminal_start_says_it_waits_for_a_client_and_how_to_add_it(tmp_path: Path) -> None:
    controller, terminal = os.openpty()
    process = start(tmp_path, terminal)
    try:
        said = stderr_until(process, "docs/getting-started.md")
        assert process.poll() is None, said  # still serving: a client may yet speak
    finally:
        process.kill()
        process.wait()
        os.close(controller)
        os.close(terminal)
    assert f"scratchpad-mcp: {SAID}" in said
    desktop = next(line for line in said.splitlines() if '"mcpServers"' in line)
    entry = json.loads(desktop)["mcpServers"]["scratchpad"]
    assert entry == {"command": "uv", "args": ["run", "--directory", str(ROOT), "scratchpad-mcp"]}
    assert f"claude mcp add --transport stdio scratchpad -- uv run --directory {ROOT} scratchpad-mcp" in said


def test_a_host_start_says_nothing_of_it(tmp_path: Path) -> None:
    process = start(tmp_path, subprocess.PIPE)
    _, err = process.communicate(b"", timeout=60)  # the host went away at once: the server ends
    assert SAID not in err.decode() and "starting scratchpad-mcp over stdio" in err.decode()
