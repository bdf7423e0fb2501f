"""Shared by the MCP-layer tests: checked tool calls, leak checks, server processes."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

# Text that must never reach an agent in an error message.
LEAKS = ("Traceback", 'File "', "/work/", "sqlite", "SELECT", "INSERT", "sk-ant")

# Server start takes a few seconds here; be generous.
START_TIMEOUT = 60.0


def compact(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)


def check_reply(result: CallToolResult) -> dict[str, Any]:
    """A successful reply: structured content mirrored exactly as compact JSON text."""
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error is False, text
    assert len(result.content) == 1
    structured = result.structured_content
    assert isinstance(structured, dict)
    assert json.loads(text) == structured
    assert text == compact(structured)
    return structured


def check_error(result: CallToolResult) -> str:
    """A refused call: is_error and a message with nothing internal in it."""
    assert result.is_error is True
    text: str = result.content[0].text  # type: ignore[union-attr]
    for leak in LEAKS:
        assert leak not in text, f"{leak!r} leaked into: {text}"
    return text


async def ok(client: Client, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return check_reply(await client.call_tool(tool, args))


async def refused(client: Client, tool: str, args: dict[str, Any]) -> str:
    return check_error(await client.call_tool(tool, args))


def now_ms() -> float:
    return time.time() * 1000


def assert_recent_ms(value: object) -> None:
    """An integer timestamp in ms since the epoch, within a minute of now."""
    assert type(value) is int
    assert abs(value - now_ms()) < 60_000


def console_script() -> str:
    """The installed scratchpad-mcp command, next to the interpreter running the tests."""
    path = Path(sys.executable).parent / "scratchpad-mcp"
    assert path.exists(), path
    return str(path)


def server_env(*, drop: tuple[str, ...] = (), **values: str) -> dict[str, str]:
    """This process's environment with the scratchpad and Anthropic variables cleared, then `values` set.

    PYTHONDONTWRITEBYTECODE goes too: the first process the tests start caches the bytecode of what it
    imports, so the many after it start without compiling it again (nothing else depends on it). The servers'
    warm-start records go to a folder of the system's temporary directory, not the user's cache."""
    cleared = ("MCP_TRANSPORT", "PORT", "PYTHONDONTWRITEBYTECODE", *drop)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCRATCHPAD_", "ANTHROPIC_")) and k not in cleared}
    env["XDG_CACHE_HOME"] = str(Path(tempfile.gettempdir()) / "scratchpad-tests-cache")  # warm starts: not in ~
    env.update(values)
    return env


def long_text(chars: int = 9000) -> str:
    """Text of exactly `chars` characters, in lines."""
    line = "the quick brown fox jumps over the lazy dog 0123456789\n"
    text = line * (chars // len(line) + 1)
    return text[:chars]


def killable_stdio(env: dict[str, str], stem: Path) -> tuple[StdioServerParameters, Path]:
    """How to start a stdio server (env adds to a clean environment) whose pid it writes to `stem`.pid first."""
    pidfile = stem.with_suffix(".pid")
    script = 'echo $$ > "$0"; exec "$1"'  # the shell becomes the server: its pid is the server's
    params = StdioServerParameters(
        command="/bin/sh", args=["-c", script, str(pidfile), console_script()], env={**server_env(), **env}
    )
    return params, pidfile
