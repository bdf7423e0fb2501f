"""Our stdio transport (scratchpad_mcp.stdio.transport) against the SDK's own stdio_server(): the same tiny
MCPServer behind each, pings over raw JSON lines (each answered by the SDK's session, none by a direct path),
server CPU (/proc utime+stime) and wall time per ping, rounds interleaved.

Run:  uv run python -m bench.stdio_transport [--pings 3000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SERVER = """
import sys
from mcp.server.mcpserver import MCPServer
server = MCPServer("bench", log_level="WARNING")
if sys.argv[1] == "ours":
    from scratchpad_mcp.stdio import transport
    transport.serve(server, 1 << 20)
else:
    server.run("stdio")
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}},
}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_round(kind: str, pings: int) -> tuple[float, float]:
    """(wall µs, server CPU µs) per ping for one server process."""
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]

    send(INITIALIZE)
    process.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    started, cpu = time.perf_counter(), cpu_seconds(process.pid)
    for request_id in range(1, pings + 1):
        send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
        process.stdout.readline()
    wall, cpu = time.perf_counter() - started, cpu_seconds(process.pid) - cpu
    process.stdin.close()
    process.wait(timeout=30)
    return wall / pings * 1e6, cpu / pings * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pings", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print("| round | transport | wall µs a ping | server CPU µs a ping |\n|--:|---|--:|--:|")
    for round_number in range(1, args.rounds + 1):
        for kind, name in (("ours", "scratchpad_mcp.stdio"), ("sdk", "SDK stdio_server()")):
            wall, cpu = one_round(kind, args.pings)
            print(f"| {round_number} | {name} | {wall:,.0f} | {cpu:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
