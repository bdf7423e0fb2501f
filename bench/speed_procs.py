"""Server processes for bench.speed: how each server starts, and the CPU time its process tree has used (/proc)."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import percentile, server_command

TICKS = os.sysconf("SC_CLK_TCK")
ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Server:
    """One server under test: its name in the tables, the command that starts it, and how it names its database."""

    name: str
    command: tuple[str, ...]
    original: bool  # the TypeScript server (SCRATCHPAD_DB_PATH, MCP_TRANSPORT=http + PORT, no auth)
    cwd: Path | None = None

    def env(self, db_path: Path, **extra: str) -> dict[str, str]:
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("SCRATCHPAD_", "ANTHROPIC_")) and k not in ("MCP_TRANSPORT", "PORT")
        }
        base["SCRATCHPAD_DB_PATH"] = str(db_path)
        if not self.original:
            base["SCRATCHPAD_AUTH"] = "none"  # the original has no auth: compare like with like over HTTP
        return {**base, **extra}


def servers(original: str | None) -> list[Server]:
    """Ours as its console script (what `uv run scratchpad-mcp` ends up running), and the original if given."""
    found = [Server("ours", tuple(server_command()), original=False)]
    if original:
        found.append(Server("original", ("node", str(Path(original).resolve())), original=True))
    return found


def uv_run() -> Server:
    """Ours the way a user on a set-up checkout starts it."""
    return Server("ours (uv run)", ("uv", "run", "scratchpad-mcp"), original=False, cwd=ROOT)


def children(pid: int) -> list[int]:
    """The live processes whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry))
    return found


def tree(pid: int) -> list[int]:
    pids = [pid]
    for child in children(pid):
        pids += tree(child)
    return pids


def cpu_seconds(pids: Sequence[int]) -> float:
    """utime + stime of these processes, in seconds (a process gone since counts 0)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # fields 14 and 15 of stat(5), counted from the state (3)
    return total / TICKS


@dataclass
class Sample:
    """One row measured once on one server: each call's seconds and the server's CPU seconds over them."""

    seconds: list[float] = field(default_factory=list)
    cpu: float = 0.0
    wall: float = 0.0  # the calls' wall time when they ran concurrently (0: back to back)

    @property
    def ops(self) -> float:
        total = self.wall or sum(self.seconds)
        return len(self.seconds) / total if total else 0.0

    def p(self, q: float) -> float:
        return percentile(self.seconds, q) * 1000

    @property
    def cpu_ms(self) -> float:
        return self.cpu / len(self.seconds) * 1000 if self.seconds else 0.0


def median_of(samples: Sequence[Sample]) -> tuple[float, float, float, float]:
    """ops/s, p50 ms, p99 ms and CPU ms per call, each the median over rounds."""
    return (
        statistics.median(s.ops for s in samples),
        statistics.median(s.p(50) for s in samples),
        statistics.median(s.p(99) for s in samples),
        statistics.median(s.cpu_ms for s in samples),
    )
