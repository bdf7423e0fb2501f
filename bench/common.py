"""Shared by the benchmarks (and the tests that drive real processes): realistic test content,
request/reply sizes, percentiles, Markdown tables, Postgres databases and server processes."""

from __future__ import annotations

import json
import math
import random
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WORDS = [
    "agent",
    "plan",
    "note",
    "task",
    "step",
    "result",
    "check",
    "review",
    "update",
    "draft",
    "idea",
    "issue",
    "fix",
    "test",
    "build",
    "deploy",
    "data",
    "model",
    "query",
    "cache",
    "index",
    "token",
    "budget",
    "context",
    "summary",
    "version",
    "diff",
    "file",
    "log",
    "entry",
    "path",
    "prefix",
    "search",
    "limit",
    "quota",
    "user",
    "request",
    "reply",
    "error",
    "retry",
    "timeout",
    "config",
    "server",
    "client",
    "session",
    "store",
    "write",
    "read",
    "edit",
    "insert",
    "schema",
    "table",
    "column",
    "migration",
    "backup",
    "restore",
    "metric",
    "latency",
    "throughput",
    "memory",
    "disk",
    "network",
]


def note_line(rng: random.Random, number: int) -> str:
    """One markdown-ish line of 40-60 characters; the line number keeps every line unique."""
    kind = number % 25
    if kind == 0:
        head = f"## Section {number // 25 + 1}: "
    elif kind in (1, 13):
        head = ""
    elif kind % 4 == 0:
        head = f"- [ ] item {number}: "
    else:
        head = f"- {number}. "
    tail = f" (ref {number})." if kind in (1, 13) else ""
    target = rng.randint(40, 60) - len(tail)
    words: list[str] = []
    line = head
    while len(line) < target:
        candidate = head + " ".join([*words, rng.choice(WORDS)])
        if len(candidate) > 60 - len(tail):
            break
        words.append(candidate.rsplit(" ", 1)[-1])
        line = candidate
    return line + tail


def markdown_lines(count: int = 1000, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    lines = [f"# Working notes ({count} lines)"]
    lines += [note_line(rng, n) for n in range(1, count)]
    return lines


def markdown_file(count: int = 1000, seed: int = 7) -> str:
    """A realistic notes file: `count` lines of ~40-60 characters, ending with a newline."""
    return "\n".join(markdown_lines(count, seed)) + "\n"


def json_bytes(value: Any) -> int:
    """UTF-8 bytes of a value as compact JSON, the way the server encodes its replies."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def request_bytes(arguments: dict[str, Any]) -> int:
    """What the tool call's arguments cost on the wire, as compact JSON."""
    return json_bytes(arguments)


def definition_bytes(tools: Sequence[Any]) -> int:
    """What a model reads about the tools every turn: name, description and inputSchema of each, as compact JSON."""
    return sum(json_bytes({"name": t.name, "description": t.description, "inputSchema": t.input_schema}) for t in tools)


def reply_text(result: Any) -> str:
    """The text content of a tool result: what the model reads."""
    return str(result.content[0].text)


def reply_bytes(result: Any) -> int:
    return len(reply_text(result).encode())


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100); nan for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "| " + " | ".join(out) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if i in right else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([fmt(headers), rule, *(fmt(r) for r in rows)])


def server_command() -> list[str]:
    """The scratchpad-mcp console script next to this interpreter, else `python -m scratchpad_mcp`."""
    script = Path(sys.executable).parent / "scratchpad-mcp"
    if script.exists():
        return [str(script)]
    found = shutil.which("scratchpad-mcp")
    return [found] if found else [sys.executable, "-m", "scratchpad_mcp"]


def code_version() -> str:
    """The git commit being measured, with '-dirty' when the working tree has changes."""
    root = Path(__file__).resolve().parents[1]
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def create_database(admin_url: str, prefix: str) -> str:
    """A new, empty Postgres database next to admin_url's; returns its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def drop_database(admin_url: str, url: str) -> None:
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    engine.dispose()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """One `scratchpad-mcp` process serving HTTP on 127.0.0.1:port, its stderr going to `log`."""

    name: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base}/mcp"

    def stderr(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_healthy(self, timeout: float) -> None:
        import httpx2

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}: {self.stderr()[-4000:]}")
            try:
                if httpx2.get(f"{self.base}/health", timeout=5).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name}: no /health within {timeout}s: {self.stderr()[-4000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
